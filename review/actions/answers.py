"""An editor's decision on an answer: publish, withdraw, and undo."""

from __future__ import annotations

from dataclasses import dataclass

from review.actions.reviews import decide_outcome, undo_opinion
from review.decisions import ActionRefused, ensure_seen
from review.models import Answer, Decision


@dataclass(frozen=True)
class StateAction:
    name: str  # as in the URL and the log: "answer.<name>"
    label: str
    state: str

    @property
    def slug(self) -> str:
        return self.name


STATE_ACTIONS = {
    action.name: action
    for action in (
        StateAction("publish", "Publish", Answer.State.PUBLISHED),
        StateAction("withdraw", "Withdraw", Answer.State.WITHDRAWN),
    )
}


def available_actions(answer: Answer) -> list[StateAction]:
    """The actions that would change something: publishing a published answer would not."""
    return [action for action in STATE_ACTIONS.values() if action.state != answer.state]


def decide_answer(
    answer: Answer, name: str, *, actor, expected_version: int, note: str = ""
) -> Decision:
    action = STATE_ACTIONS[name]
    ensure_seen(answer, expected_version)
    if answer.state == action.state:
        raise ActionRefused(f"This answer is already {answer.get_state_display().lower()}.")
    note = note.strip()
    return decide_outcome(
        answer, action.state, name, actor=actor, expected_version=expected_version, note=note
    )


def undo_answer(answer: Answer, *, actor, expected_version: int) -> Decision:
    ensure_seen(answer, expected_version)
    return undo_opinion(
        answer, actor=actor, expected_version=expected_version, action="answer.undo"
    )
