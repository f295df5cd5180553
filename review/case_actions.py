"""A moderator's verdict on a case: uphold, overturn, needs rewrite, and undo.

Every change goes through `review.decisions.decide`, so it is versioned and logged;
undo is `review.undo`'s. An answer's publication is decided the same way, with these.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Model
from django.utils import timezone

from review.decisions import StaleVersion, decide, latest_decision
from review.models import Case, Decision
from review.undo import last_undoable, take_back


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
    if case.version != expected_version:
        # The refusal below redraws the panel at the case's version now: a verdict the
        # moderator never saw is a conflict first, or the next submit would overwrite it.
        raise StaleVersion(case, latest_decision(case))
    if action.note_required and not note:
        raise ActionRefused(f"{action.label} needs a note saying why.")
    return record_decision(
        case,
        "verdict",
        action.verdict,
        action=f"case.{name}",
        actor=actor,
        expected_version=expected_version,
        note=note,
    )


def undo_case(case: Case, *, actor, expected_version: int) -> Decision:
    return undo_latest(case, actor=actor, expected_version=expected_version, action="case.undo")


def record_decision(
    obj: Model, field: str, value: str, *, action: str, actor, expected_version: int, note: str
) -> Decision:
    """Set `field` to `value` with who decided it, when, and their note, as one decision."""
    return decide(
        obj,
        expected_version=expected_version,
        actor=actor,
        action=action,
        changes={
            field: value,
            "note": note,
            "decided_by_id": actor.pk,
            "decided_at": timezone.now(),
        },
        note=note,
    )


def undo_latest(obj: Model, *, actor, expected_version: int, action: str) -> Decision:
    target = last_undoable(obj, action)
    if target is None:
        raise ActionRefused("There is no decision to undo.")
    return take_back(
        obj,
        target,
        actor=actor,
        expected_version=expected_version,
        action=action,
        note=f"undoes {target.action} by {target.actor_name}",
    )
