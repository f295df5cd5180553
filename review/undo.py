"""Undo, the same for an entry, a case and an answer: a new decision that puts back what the
latest not-yet-undone decision on the object replaced. Undoing again walks further back; an
undo is never itself taken back.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from django.db.models import Model, QuerySet
from django.utils.dateparse import parse_datetime

from review.decisions import decide, object_type_of
from review.models import Decision


def decisions_on(obj: Model) -> QuerySet[Decision]:
    """Every decision on `obj`, newest first."""
    return Decision.objects.filter(object_type=object_type_of(obj), object_id=str(obj.pk)).order_by(
        "-at", "-pk"
    )


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


def take_back(
    obj: Model,
    target: Decision,
    *,
    actor,
    expected_version: int,
    action: str,
    note: str,
    fields: Collection[str] | None = None,
    guard: Callable[[], None] | None = None,
) -> Decision:
    """Put back on `obj` what `target` replaced (only `fields` of it, when given), as a new
    decision that names `target` as the one it undoes."""
    changes = {
        name: _restored(name, value)
        for name, value in target.before.items()
        if fields is None or name in fields
    }
    return decide(
        obj,
        expected_version=expected_version,
        actor=actor,
        action=action,
        changes=changes,
        note=note,
        undoes=target,
        guard=guard,
    )


def _restored(name: str, value):
    # The log keeps a time as ISO text; the column wants it back as a datetime.
    if name == "decided_at" and isinstance(value, str):
        return parse_datetime(value)
    return value
