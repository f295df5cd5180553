"""A moderator's verdict on a case: uphold, overturn, needs rewrite, and undo.

Every change goes through `review.decisions.decide`, so it is versioned and logged.
Undo is a new decision that puts back what the latest not-yet-undone decision
replaced; undoing again walks further back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Model
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from review.decisions import decide, object_type_of
from review.models import Case, Decision

# The fields a verdict sets; undo restores exactly these from the log's "before".
VERDICT_FIELDS = ("verdict", "note", "decided_by_id", "decided_at")


class ActionRefused(ValueError):
    """The action cannot be taken as asked; the message says what to do instead."""


@dataclass(frozen=True)
class VerdictAction:
    name: str  # as in the URL and the log: "case.<name>"
    label: str
    verdict: str
    note_required: bool

    @property
    def slug(self) -> str:
        return self.name.replace("_", "-")


VERDICT_ACTIONS = {
    action.name: action
    for action in (
        VerdictAction("uphold", "Uphold", Case.Verdict.UPHELD, note_required=False),
        VerdictAction("overturn", "Overturn", Case.Verdict.OVERTURNED, note_required=True),
        VerdictAction(
            "needs_rewrite", "Needs rewrite", Case.Verdict.NEEDS_REWRITE, note_required=True
        ),
    )
}


def decide_case(case: Case, name: str, *, actor, expected_version: int, note: str) -> Decision:
    """Record a moderator's verdict. Raises StaleVersion when the case moved on."""
    action = VERDICT_ACTIONS[name]
    note = note.strip()
    if action.note_required and not note:
        raise ActionRefused(f"{action.label} needs a note saying why.")
    return decide(
        case,
        expected_version=expected_version,
        actor=actor,
        action=f"case.{name}",
        changes={
            "verdict": action.verdict,
            "note": note,
            "decided_by_id": actor.pk,
            "decided_at": timezone.now(),
        },
        note=note,
    )


def undo_case(case: Case, *, actor, expected_version: int) -> Decision:
    return undo_latest(case, actor=actor, expected_version=expected_version, action="case.undo")


def last_undoable(obj: Model, undo_action: str) -> Decision | None:
    """The newest decision on `obj` that is not an undo and has not been undone."""
    return (
        Decision.objects.filter(
            object_type=object_type_of(obj), object_id=str(obj.pk), undone_by__isnull=True
        )
        .exclude(action=undo_action)
        .order_by("-at", "-pk")
        .first()
    )


def can_undo(history: Sequence[Decision], undo_action: str) -> bool:
    """Whether `last_undoable` would find a decision, given every decision on the object."""
    undone = {decision.undoes_id for decision in history if decision.undoes_id}
    return any(d.action != undo_action and d.pk not in undone for d in history)


def undo_latest(obj: Model, *, actor, expected_version: int, action: str) -> Decision:
    target = last_undoable(obj, action)
    if target is None:
        raise ActionRefused("There is no decision to undo.")
    changes = dict(target.before)
    if changes.get("decided_at"):
        changes["decided_at"] = parse_datetime(changes["decided_at"])
    return decide(
        obj,
        expected_version=expected_version,
        actor=actor,
        action=action,
        changes=changes,
        note=f"undoes {target.action} by {target.actor_name}",
        undoes=target,
    )
