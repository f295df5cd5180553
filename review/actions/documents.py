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
from review.permissions import can_decide_plans, project_id_of


@dataclass(frozen=True)
class Accepted:
    """Who acts, when the door that took the input asked their role already: a job runs
    later what an upload form or the API accepted from `user`; on the command line (`user`
    None, `COMMAND_LINE`) the operator holds the database anyway."""

    user: object | None = None


COMMAND_LINE = Accepted()


def acting_user(actor, may: Callable[[object, object], bool], refusal: str, project):
    """The user to name for `actor`, once `may(actor, project)` allows it (PermissionDenied,
    with `refusal`, otherwise); an `Accepted` actor was asked already."""
    if isinstance(actor, Accepted):
        return actor.user
    if actor is None or not may(actor, project):
        raise PermissionDenied(refusal)
    return actor


def store_document(name: str, data: bytes, *, actor, project) -> Document:
    """The stored document of `project` for these bytes (the one already kept, or a new
    one); see `review.adapters.documents.store_document`. The project's editors only."""
    acting_user(actor, can_decide_plans, "only Editors push documents", project)
    return documents.store_document(name, data, project_id=project_id_of(project))


def propose_document(
    name: str,
    data: bytes,
    *,
    actor,
    project,
    max_segment_chars: int = 0,
    path_prefix: str = "",
    on_page: PageProgress | None = None,
) -> Plan:
    """Store the document and the proposer's plan for it in `project`, or refuse and store
    nothing; see `review.adapters.plans.propose_document`. The project's editors only."""
    user = acting_user(actor, can_decide_plans, "only Editors propose plans", project)
    return plans.propose_document(
        name,
        data,
        max_segment_chars=max_segment_chars,
        path_prefix=path_prefix,
        actor=user,
        on_page=on_page,
        project_id=project_id_of(project),
    )
