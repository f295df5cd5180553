"""Rows of the decision log written directly, for the tests that pull the log (the API and
`export_decisions`): a moderator's decision on case 1 at a given moment."""

from __future__ import annotations

import datetime as dt

from review.models import Decision


def logged(action: str, at: str, **fields) -> Decision:
    return Decision.objects.create(
        actor_name="moderator",
        action=action,
        object_type="case",
        object_id="1",
        at=dt.datetime.fromisoformat(at),
        **fields,
    )
