"""A moderator's verdict on a case: uphold, overturn, needs rewrite, and undo."""

from __future__ import annotations

from dataclasses import dataclass

from review.actions.reviews import decide_outcome, undo_opinion
from review.decisions import (
    ActionRefused,
    ensure_seen,
)
from review.models import Case, Decision


@dataclass(frozen=True)
class VerdictAction:
    name: str  # as in the log: "case.<name>"
    label: str
    verdict: str
    note_required: bool

    @property
    def slug(self) -> str:
        """As in the URL."""
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
    # The refusal below redraws the panel at the case's version now: a verdict the
    # moderator never saw is a conflict first, or the next submit would overwrite it.
    ensure_seen(case, expected_version)
    if action.note_required and not note:
        raise ActionRefused(f"{action.label} needs a note saying why.")
    return decide_outcome(
        case, action.verdict, name, actor=actor, expected_version=expected_version, note=note
    )


def undo_case(case: Case, *, actor, expected_version: int) -> Decision:
    ensure_seen(case, expected_version)
    return undo_opinion(case, actor=actor, expected_version=expected_version, action="case.undo")
