"""The one way a person changes anything: a versioned update plus a log row, in one
transaction.

Optimistic versions: the UPDATE only matches the version the person saw. On
PostgreSQL two concurrent decisions serialise on the row lock, and the second one's
WHERE no longer matches, so it is refused instead of silently overwriting.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from django.db import transaction
from django.db.models import F, Model
from django.utils import timezone

from review.models import Decision


class StaleVersion(Exception):
    """Someone else decided first. Carries the current row and its latest decision."""

    def __init__(self, current: Model, latest: Decision | None):
        self.current = current
        self.latest = latest
        who = latest.actor_name if latest else "someone"
        super().__init__(
            f"{type(current).__name__} {current.pk} was changed by {who} "
            f"(now version {current.version}); reload and decide again"
        )


def snapshot(obj: Model, fields: Iterable[str]) -> dict:
    """A JSON-able picture of the fields a decision touches."""
    out = {}
    for name in fields:
        value = getattr(obj, name)
        if isinstance(value, Model):
            value = str(value)
        elif hasattr(value, "isoformat"):
            value = value.isoformat()
        out[name] = value
    return out


def latest_decision(obj: Model) -> Decision | None:
    return (
        Decision.objects.filter(object_type=object_type_of(obj), object_id=str(obj.pk))
        .order_by("-at", "-pk")
        .first()
    )


def object_type_of(obj: Model) -> str:
    return type(obj)._meta.model_name


def decide(
    obj: Model,
    *,
    expected_version: int,
    actor,
    action: str,
    changes: dict,
    note: str = "",
    undoes: Decision | None = None,
    guard: Callable[[], None] | None = None,
) -> Decision:
    """Apply `changes` to `obj` if it is still at `expected_version`, and log it.

    Raises StaleVersion (and changes nothing) when the row has moved on. On success
    `obj` holds the new values and version, and the new log row is returned. `guard`, when
    given, runs first in the same transaction and refuses by raising (nothing is written).
    """
    model = type(obj)
    with transaction.atomic():
        if guard is not None:
            guard()
        # If the UPDATE below matches the version `obj` was loaded at, the row has not
        # changed since, so `obj` already is the "before" picture: no need to read it again.
        seen = obj if obj.version == expected_version else model.objects.get(pk=obj.pk)
        before = snapshot(seen, changes)
        matched = model.objects.filter(pk=obj.pk, version=expected_version).update(
            version=F("version") + 1, **changes
        )
        if not matched:
            current = model.objects.get(pk=obj.pk)
            raise StaleVersion(current, latest_decision(current))
        for name, value in changes.items():
            setattr(obj, name, value)
        obj.version = expected_version + 1
        return record(
            actor=actor,
            action=action,
            obj=obj,
            before=before,
            after=snapshot(obj, changes),
            note=note,
            undoes=undoes,
        )


def record(
    *,
    actor,
    action: str,
    obj: Model,
    before: dict,
    after: dict,
    note: str = "",
    undoes: Decision | None = None,
) -> Decision:
    """Append one row to the decision log. `decide` calls this; so does any change
    the caller makes itself (e.g. freezing a plan), inside its own transaction."""
    return Decision.objects.create(
        actor=actor if getattr(actor, "pk", None) else None,
        actor_name=getattr(actor, "username", "") or str(actor or "system"),
        action=action,
        object_type=object_type_of(obj),
        object_id=str(obj.pk),
        before=before,
        after=after,
        note=note,
        undoes=undoes,
        at=timezone.now(),
    )
