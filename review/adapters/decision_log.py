"""The decision log as JSON rows, for `export_decisions` and GET /api/decisions."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterator

from django.db.models import QuerySet
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


# What a withheld row still says: that a decision was made, when, and on what; never by whom,
# what it was or its note (`DecisionQuerySet.blind_to`). Its action is this neutral word, since
# the action itself ("entry.accept", "case.first_opinion") would tell what was decided.
WITHHELD = "double review unfinished: shown once the item is settled"
WITHHELD_ACTION = "withheld"


def decision_as_dict(row: Decision) -> dict:
    if getattr(row, "withheld", False):
        return {
            "id": row.pk,
            "at": row.at.isoformat(),
            "actor": "",
            "action": WITHHELD_ACTION,
            "object_type": row.object_type,
            "object_id": row.object_id,
            "before": {},
            "after": {},
            "note": "",
            "undoes": None,
            "withheld": WITHHELD,
        }
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


def _logged(since, reader, project) -> QuerySet[Decision]:
    rows = decisions_since(since)
    return rows if project is None else rows.filter(project=project)


def iter_decisions(
    since: dt.datetime | None = None, *, reader=None, project=None
) -> Iterator[dict]:
    """The log as `reader` may see it (None: no one in particular), oldest first: of
    `project` alone, or of every project `reader` works in."""
    for row in _logged(since, reader, project).blind_to(reader).iterator(chunk_size=1000):
        yield decision_as_dict(row)


def decision_log_lines(
    since: dt.datetime | None = None,
    on_row: Callable[[int, int], None] | None = None,
    *,
    reader=None,
    project=None,
) -> Iterator[str]:
    """The log as JSON Lines, oldest first, as `reader` may see it: what `export_decisions`
    writes (for no one in particular) and an export job keeps (for whoever started it).
    `on_row(done, total)` hears each row written."""
    total = _logged(since, reader, project).count() if on_row is not None else 0
    rows = iter_decisions(since, reader=reader, project=project)
    for done, row in enumerate(rows, start=1):
        yield json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n"
        if on_row is not None:
            on_row(done, total)
