"""The lockouts in force, read from the failed sign-ins django-axes counts (its `AccessAttempt`
rows, one per account, address and browser, each with its count and its latest failure): which
accounts and addresses are locked, and until when. Lifting one is `review.actions.lockouts`.

An account or an address is locked while its failures within the cool-off reach the limit;
each row's failures fall out of the count together, a cool-off after its latest one, so the
lockout ends when the row that brought the count to the limit does."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.utils import timezone

# What a lockout is of, in the product's words, and the column axes counts it by.
COLUMNS = {"account": "username", "address": "ip_address"}
# The most lockouts of each kind the staff page lists (a spray over thousands of made-up names
# would otherwise be thousands of rows); the oldest first, as they end first.
LISTED = 200


@dataclass(frozen=True)
class Lockout:
    of: str  # "account" or "address"
    value: str
    failures: int
    ends_at: dt.datetime


def _window(now: dt.datetime) -> dt.datetime:
    return now - settings.AXES_COOLOFF_TIME


def _ends_at(of: str, value: str, now: dt.datetime) -> dt.datetime | None:
    """When the lockout of `value` ends, or None when it is not locked. Every row holds one
    failure or more, so the newest `limit` rows settle it."""
    limit = settings.AXES_FAILURE_LIMIT
    rows = (
        AccessAttempt.objects.filter(**{COLUMNS[of]: value}, attempt_time__gte=_window(now))
        .order_by("-attempt_time")
        .values_list("attempt_time", "failures_since_start")[:limit]
    )
    counted = 0
    for at, failures in rows:
        counted += failures
        if counted >= limit:
            return at + settings.AXES_COOLOFF_TIME
    return None


def lockouts_of(username: str | None, address: str | None) -> list[Lockout]:
    """The lockouts in force on this account or from this address."""
    now = timezone.now()
    found = []
    for of, value in (("account", username), ("address", address)):
        if value and (ends_at := _ends_at(of, value, now)) is not None:
            found.append(Lockout(of, value, settings.AXES_FAILURE_LIMIT, ends_at))
    return found


def lockouts_in_force() -> list[Lockout]:
    """Every account and address locked now, accounts first, each kind by when it ends."""
    now = timezone.now()
    found = []
    for of, column in COLUMNS.items():
        counts = (
            AccessAttempt.objects.filter(attempt_time__gte=_window(now))
            .exclude(**{f"{column}__isnull": True})
            .exclude(**{column: ""})
            .values(column)
            .annotate(failures=Sum("failures_since_start"))
            .filter(failures__gte=settings.AXES_FAILURE_LIMIT)
            .order_by(column)
            .values_list(column, "failures")[:LISTED]
        )
        locked = [
            Lockout(of, value, failures, ends_at)
            for value, failures in counts
            if (ends_at := _ends_at(of, value, now)) is not None
        ]
        found += sorted(locked, key=lambda lockout: lockout.ends_at)
    return found
