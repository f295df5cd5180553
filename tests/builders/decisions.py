"""Rows of the decision log written directly, for the tests that pull the log (the API and
`export_decisions`): a moderator's decision on case 1 at a given moment."""

from __future__ import annotations

import datetime as dt

from review.decisions import object_type_of
from review.models import Decision
from review.models.projects import default_project_id


def logged(action: str, at: str, **fields) -> Decision:
    return Decision.objects.create(
        project_id=default_project_id(),
        actor_name="moderator",
        action=action,
        object_type="case",
        object_id="1",
        at=dt.datetime.fromisoformat(at),
        **fields,
    )


def logged_on(obj, *, actor, action: str, note: str = "") -> Decision:
    """A row of the log naming `obj` as the log names it, with nothing else changed (a
    decision on an object that no action would take as it stands)."""
    return Decision.objects.create(
        project_id=default_project_id(),
        actor=actor,
        actor_name=actor.username,
        action=action,
        object_type=object_type_of(obj),
        object_id=str(obj.pk),
        note=note,
    )
