"""The cursor an open item page's poll carries: what of the item's part of the decision log the
page has seen, the same kind for a plan and a case. It is a moment of the log with the rows
already drawn near it, "<ISO time>;<id>,<id>", written by the server and handed back unread
by the page (the `seen` field of the "Also here" strip).

A decision is stamped before its transaction commits, so one that commits just after a poll
can carry a time before that poll's: each poll looks back LOOK_BACK past the cursor, and the
ids of the rows it read inside that window go in the cursor, so that nothing is drawn twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from review.models import Decision

LOOK_BACK = timedelta(seconds=2)


@dataclass(frozen=True)
class Cursor:
    at: datetime
    drawn: frozenset[int] = frozenset()

    def __str__(self) -> str:
        return f"{self.at.isoformat()};{','.join(str(pk) for pk in sorted(self.drawn))}"

    @classmethod
    def parse(cls, text: str) -> Cursor | None:
        """The cursor `text` says; None for one that is not a cursor (a page's first poll)."""
        moment, _, ids = text.partition(";")
        try:
            at = parse_datetime(moment)
            drawn = frozenset(int(pk) for pk in ids.split(",") if pk.isdigit())
        except ValueError:  # a date that does not exist, or a number too long to read
            return None
        if at is None or timezone.is_naive(at):
            return None
        return cls(at, drawn)


def page_cursor(rows: QuerySet[Decision]) -> str:
    """The cursor of a page drawn now from the item whose log rows are `rows`: what it drew is
    not news to its first poll."""
    now = timezone.now()
    recent = rows.filter(at__gt=now - LOOK_BACK).values_list("pk", flat=True)
    return str(Cursor(now, frozenset(recent)))


def news_since(
    rows: QuerySet[Decision], seen: str, reader, *, most: int | None = None
) -> tuple[list[Decision], str]:
    """The rows of `rows` (an item's part of the log, in its own order) that people other than
    `reader` made since the cursor `seen` and that no poll drew yet, at most `most` of them
    read; and the cursor to ask from next. A `seen` that is no cursor has no news: the page
    learns the cursor now."""
    now = timezone.now()
    cursor = Cursor.parse(seen)
    if cursor is None:
        return [], str(Cursor(now))
    read = rows.filter(at__gt=cursor.at - LOOK_BACK).exclude(actor=reader)
    read = list(read if most is None else read[:most])
    # A row drawn once stays in the cursor while the next poll's window still reaches it.
    drawn = frozenset(row.pk for row in read if row.at > now - LOOK_BACK)
    return [row for row in read if row.pk not in cursor.drawn], str(Cursor(now, drawn))
