"""The decision log as JSON rows, for `export_decisions` and GET /api/decisions."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator

from django.utils import timezone

from review.adapters.errors import ImportRefused
from review.decisions import decisions_since
from review.models import Decision


def parse_since(value: str) -> dt.datetime:
    """A date ("2026-12-01", midnight UTC) or an ISO-8601 date and time (UTC unless it says)."""
    try:
        moment = dt.datetime.fromisoformat(value.strip())
    except ValueError as error:
        raise ImportRefused(
            f"since: {value!r} is not a date (2026-12-01) or an ISO-8601 date and time"
        ) from error
    if timezone.is_naive(moment):
        moment = moment.replace(tzinfo=dt.UTC)
    return moment


def decision_as_dict(row: Decision) -> dict:
    return {
        "id": row.pk,
        "at": row.at.isoformat(),
        "actor": row.actor_name,
        "action": row.action,
        "object_type": row.object_type,
        "object_id": row.object_id,
        "before": row.before,
        "after": row.after,
        "note": row.note,
        "undoes": row.undoes_id,
    }


def iter_decisions(since: dt.datetime | None = None) -> Iterator[dict]:
    for row in decisions_since(since).iterator(chunk_size=1000):
        yield decision_as_dict(row)


def decision_log_lines(
    since: dt.datetime | None = None, on_row: Callable[[int, int], None] | None = None
) -> Iterator[str]:
    """The log as JSON Lines, oldest first: what `export_decisions` writes and an export job
    keeps. `on_row(done, total)` hears each row written."""
    total = decisions_since(since).count() if on_row is not None else 0
    for done, row in enumerate(iter_decisions(since), start=1):
        yield json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n"
        if on_row is not None:
            on_row(done, total)
