"""What an action answers when it cannot be taken as asked: the models refuse with it too
(a decision on an entry of a plan no longer open), so it lives below both."""

from __future__ import annotations

FROZEN = "This plan is adjudicated and frozen: its entries can no longer change."


class ActionRefused(ValueError):
    """The action cannot be taken as asked; the message says what to do instead. Nothing
    was changed."""
