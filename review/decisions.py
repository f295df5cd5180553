"""The one way a person changes anything: a versioned update plus a log row, in one
transaction; and the one way to take a decision back.

Optimistic versions: the UPDATE only matches the version the person saw. On PostgreSQL two
concurrent decisions serialise on the row lock, and the second one's WHERE no longer matches,
so it is refused instead of silently overwriting.

Undo is the same for an entry, a case and an answer: a new decision that puts back what the
latest not-yet-undone decision on the object replaced. Undoing again walks further back; an
undo is never itself taken back.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import F, Model, Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from review.models import Decision
from review.webhooks import events as webhook_events

if TYPE_CHECKING:
    from review.models import Plan

# Below the models, which refuse with them too; actions and views know them from here.
from review.refusals import FROZEN as FROZEN
from review.refusals import ActionRefused as ActionRefused


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


# --- deciding ----------------------------------------------------------------------------


def ensure_open(plan: Plan) -> None:
    """Refuse any change to a plan that is no longer open, saying why: adjudicated (frozen),
    or superseded by a newer revision (naming the plan to decide instead)."""
    plan.refuse_unless_open()


def ensure_seen(obj: Model, expected_version: int) -> None:
    """Raise StaleVersion unless `obj` is at the version the person saw. Every action asks
    this before any refusal about the object's state: "already accepted" about a state the
    person never saw is someone else's decision, a conflict (409), not a mistake (422)."""
    if obj.version != expected_version:
        raise StaleVersion(obj, latest_decision(obj))


def decide(
    obj: Model,
    *,
    expected_version: int,
    actor,
    action: str,
    changes: dict,
    note: str = "",
    undoes: Decision | None = None,
    batch: str = "",
    unlogged: dict | None = None,
) -> Decision:
    """Apply `changes` to `obj` if it is still at `expected_version`, and log it.

    Raises StaleVersion (and changes nothing) when the row has moved on. On success
    `obj` holds the new values and version, and the new log row is returned.
    `unlogged` is stored by the same UPDATE but kept out of the log's before and after (a
    plan's adjudicated payload: the export serves it, the log keeps to the status). What the
    change does beyond its row, the row's model says in its hooks (`DecisionHooks`): an
    entry's plan keeps its counters and path collisions there, in this transaction.
    """
    model = type(obj)
    with transaction.atomic():
        # If the UPDATE below matches the version `obj` was loaded at, the row has not
        # changed since, so `obj` already is the "before" picture: no need to read it again.
        seen = obj if obj.version == expected_version else model.objects.get(pk=obj.pk)
        before = snapshot(seen, changes)
        was = copy.copy(seen)
        seen.on_decision(_as_changed(seen, changes))
        matched = model.objects.filter(pk=obj.pk, version=expected_version).update(
            version=F("version") + 1, **changes, **(unlogged or {})
        )
        if not matched:
            current = model.objects.get(pk=obj.pk)
            raise StaleVersion(current, latest_decision(current))
        for name, value in {**changes, **(unlogged or {})}.items():
            setattr(obj, name, value)
        obj.version = expected_version + 1
        obj.after_decision(was)
        return _record(
            actor=actor,
            action=action,
            obj=obj,
            before=before,
            after=snapshot(obj, changes),
            note=note,
            undoes=undoes,
            batch=batch,
        )


def _as_changed(obj: Model, changes: dict) -> Model:
    """A copy of `obj` with `changes` applied: the row as the decision will leave it."""
    changed = copy.copy(obj)
    for name, value in changes.items():
        setattr(changed, name, value)
    return changed


def decided_by(actor, note: str) -> dict:
    """The changes that say who decided, when, and their note: part of every decision."""
    return {"note": note, "decided_by_id": actor.pk, "decided_at": timezone.now()}


def record_decision(
    obj: Model,
    field: str,
    value: str,
    *,
    action: str,
    actor,
    expected_version: int,
    note: str,
    batch: str = "",
) -> Decision:
    """Set `field` to `value` with who decided it, when, and their note, as one decision."""
    return decide(
        obj,
        expected_version=expected_version,
        actor=actor,
        action=action,
        changes={field: value, **decided_by(actor, note)},
        note=note,
        batch=batch,
    )


def record_made(
    obj: Model, *, actor, action: str, after: dict, before: dict | None = None, note: str = ""
) -> Decision:
    """Log the making of `obj`, which the caller has just stored in its own transaction (a
    review copy, a carried entry): no version to check, since nobody saw it before. `before`
    is what an undo would put back (a carried entry: as proposed), when there is one."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("record_made logs a row stored in the caller's transaction")
    return _record(actor=actor, action=action, obj=obj, before=before or {}, after=after, note=note)


def delete_logged(obj: Model, *, actor, action: str, before: dict, after: dict) -> Decision:
    """Delete `obj` (a lease a lead ends) and log it, in one transaction."""
    with transaction.atomic():
        decision = _record(actor=actor, action=action, obj=obj, before=before, after=after)
        type(obj).objects.filter(pk=obj.pk).delete()
    return decision


def _record(
    *,
    actor,
    action: str,
    obj: Model,
    before: dict,
    after: dict,
    note: str = "",
    undoes: Decision | None = None,
    batch: str = "",
) -> Decision:
    """Append one row to the decision log: the one place that does, with the version of
    the guidelines the decision was made under."""
    project_id = obj.decision_project_id
    decision = Decision.objects.create(
        actor=actor if getattr(actor, "pk", None) else None,
        actor_name=getattr(actor, "username", "") or str(actor or "system"),
        action=action,
        object_type=object_type_of(obj),
        object_id=str(obj.pk),
        project_id=project_id,
        guideline_version=Decision.guideline_in_force(project_id),
        before=before,
        after=after,
        note=note,
        undoes=undoes,
        batch=batch,
        at=timezone.now(),
    )
    # The INSERT stored the version the subquery found; read only if asked for (deferred).
    del decision.guideline_version
    # What the decision tells the project's webhooks, in its transaction (the outbox).
    webhook_events.on_decision(decision, obj)
    return decision


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


def object_type_of(obj: Model) -> str:
    return type(obj)._meta.model_name


# --- reading the log ---------------------------------------------------------------------


def decisions_on(obj: Model) -> QuerySet[Decision]:
    """Every decision on `obj`, newest first."""
    return Decision.objects.filter(object_type=object_type_of(obj), object_id=str(obj.pk)).order_by(
        "-at", "-pk"
    )


def latest_decision(obj: Model) -> Decision | None:
    return decisions_on(obj).first()


def decisions_by(actor, limit: int) -> list[Decision]:
    """The person's own latest decisions, newest first."""
    rows = Decision.objects.visible_to(actor).filter(actor=actor).select_related("undoes")
    return list(rows.order_by("-at", "-pk")[:limit])


def decisions_since(since=None, after: Decision | None = None) -> QuerySet[Decision]:
    """The whole log oldest first, in the order decided; from `since` on, inclusive; and
    only what comes after the decision `after` in that order (a page's cursor)."""
    rows = Decision.objects.order_by("at", "pk")
    if since is not None:
        rows = rows.filter(at__gte=since)
    if after is not None:
        # `at >= ...` first, so the index on `at` starts at the cursor rather than the
        # database reading (and dropping) every row before it.
        rows = rows.filter(Q(at__gte=after.at) & (Q(at__gt=after.at) | Q(pk__gt=after.pk)))
    return rows


def decisions_on_plan(plan: Plan) -> QuerySet[Decision]:
    """Every decision on the plan and on its entries, newest first."""
    return Decision.objects.on_plan(plan).order_by("-at", "-pk")


def undoable_entry_ids(plan: Plan, undo_action: str = "entry.undo") -> set[int]:
    """Entries with a decision that an undo would take back; one query for the whole plan."""
    keys = undoable(Decision.objects.on_plan_entries(plan), undo_action)
    return {int(key) for key in keys.values_list("object_id", flat=True).distinct()}


def undoable(decisions: QuerySet[Decision], undo_action: str) -> QuerySet[Decision]:
    """Those of `decisions` an undo may still take back: not undos, and not undone yet."""
    return decisions.exclude(action=undo_action).filter(undone_by__isnull=True)


def last_undoable(obj: Model, undo_action: str) -> Decision | None:
    """The newest decision on `obj` that is not an undo and has not been undone."""
    return undoable(decisions_on(obj), undo_action).first()


def can_undo(history: Sequence[Decision], undo_action: str) -> bool:
    """Whether `last_undoable` would find a decision, given every decision on the object."""
    undone = {decision.undoes_id for decision in history if decision.undoes_id}
    return any(d.action != undo_action and d.pk not in undone for d in history)


# --- taking back ---------------------------------------------------------------------------


def undo_latest(
    obj: Model,
    *,
    actor,
    expected_version: int,
    action: str,
    note: str | None = None,
    fields: Collection[str] | None = None,
    check: Callable[[dict], None] | None = None,
    nothing: str = "There is no decision to undo.",
) -> Decision:
    """Take back the latest decision on `obj` that is not yet undone, as a new decision that
    names it. Only `fields` of what it replaced are put back, when given; `check` sees them
    first and refuses by raising.
    Without a `note`, the log says what was undone."""
    target = last_undoable(obj, action)
    if target is None:
        raise ActionRefused(nothing)
    changes = {
        name: _restored(name, value)
        for name, value in target.before.items()
        if fields is None or name in fields
    }
    if check is not None:
        check(changes)
    return decide(
        obj,
        expected_version=expected_version,
        actor=actor,
        action=action,
        changes=changes,
        note=f"undoes {target.action} by {target.actor_name}" if note is None else note,
        undoes=target,
    )


def _restored(name: str, value):
    # The log keeps a time as ISO text; the column wants it back as a datetime.
    if name == "decided_at" and isinstance(value, str):
        return parse_datetime(value)
    return value
