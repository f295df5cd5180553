"""Documents in, and the proposer's plan for them: the one way every door (the upload form,
the API, a job, a command) stores a document or proposes a plan.

Each action asks who acts (`review.permissions`), then hands the bytes to `review.adapters`,
which refuse bad input (ImportRefused) and then store nothing. A door that must answer a role
that may not before it reads the input (the API's key, the upload form) asks the same
permission function first; the action asks again, so no door can forget.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied

from grounding.extract import PageProgress
from review.adapters import documents, plans
from review.models import Document, Plan
from review.permissions import can_decide_plans


@dataclass(frozen=True)
class Accepted:
    """Who acts, when the door that took the input asked their role already: a job runs
    later what an upload form or the API accepted from `user`; on the command line (`user`
    None, `COMMAND_LINE`) the operator holds the database anyway."""

    user: object | None = None


COMMAND_LINE = Accepted()


def acting_user(actor, may: Callable[[object], bool], refusal: str):
    """The user to name for `actor`, once `may(actor)` allows it (PermissionDenied, with
    `refusal`, otherwise); an `Accepted` actor was asked already."""
    if isinstance(actor, Accepted):
        return actor.user
    if actor is None or not may(actor):
        raise PermissionDenied(refusal)
    return actor


def store_document(name: str, data: bytes, *, actor) -> Document:
    """The stored document for these bytes (the one already kept, or a new one); see
    `review.adapters.documents.store_document`. Editors only."""
    acting_user(actor, can_decide_plans, "only Editors push documents")
    return documents.store_document(name, data)


def propose_document(
    name: str,
    data: bytes,
    *,
    actor,
    max_segment_chars: int = 0,
    path_prefix: str = "",
    on_page: PageProgress | None = None,
) -> Plan:
    """Store the document and the proposer's plan for it, or refuse and store nothing; see
    `review.adapters.plans.propose_document`. Editors only."""
    user = acting_user(actor, can_decide_plans, "only Editors propose plans")
    return plans.propose_document(
        name,
        data,
        max_segment_chars=max_segment_chars,
        path_prefix=path_prefix,
        actor=user,
        on_page=on_page,
    )
