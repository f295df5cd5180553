"""What an action answers when it cannot be taken as asked: the models refuse with it too
(a decision on an entry of a plan no longer open), so it lives below both."""

from __future__ import annotations

FROZEN = "This plan is adjudicated and frozen: its entries can no longer change."


class ActionRefused(ValueError):
    """The action cannot be taken as asked; the message says what to do instead. Nothing
    was changed."""


class StaleEdit(Exception):
    """A text (the guidelines, a comment) was saved by someone since the version the person
    edited. Carries the row as it is now and who saved it; nothing was changed."""

    def __init__(self, current, who: str):
        self.current = current
        self.who = who
        super().__init__(
            f"{who} saved a newer version (now version {current.version}) since you began; "
            "your text was not saved over it: reload, and edit again."
        )
