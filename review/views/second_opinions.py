"""What the case and answer decision panels show of a double review, and what they hide.

Blind review: while the second opinion is awaited, nobody but the first reviewer sees the first
opinion, its note or its author, in the panel or in the history under it.
"""

from __future__ import annotations

from dataclasses import dataclass

from grounding.revisions import WordChange, word_sides
from review.actions.reviews import second_opinion_ahead
from review.models import SecondOpinions
from review.permissions import can_curate


@dataclass(frozen=True)
class Opinion:
    label: str
    reviewer: str
    note: str
    # Beside the other opinion: whether the verdicts differ, and the note as runs "same" or
    # "differs" (`grounding.revisions.word_sides`); empty with one opinion alone.
    label_differs: bool = False
    note_words: tuple[WordChange, ...] = ()


@dataclass(frozen=True)
class OpinionsPanel:
    stage: str
    message: str
    opinions: tuple[Opinion, ...] = ()


def may_decide_now(user, item: SecondOpinions, may_decide: bool) -> bool:
    """Whether `user` gets the buttons: in curation only curators, otherwise deciders, and
    never the first reviewer while the second opinion is awaited."""
    stage = item.review_stage
    if stage == item.IN_CURATION:
        curates = can_curate(user, item.project_id)
        return curates and user.pk not in (item.first_by_id, item.second_by_id)
    if stage == item.AWAITING_SECOND:
        return may_decide and item.first_by_id != user.pk
    return may_decide


def may_undo_now(user, item: SecondOpinions, history, *, may_decide: bool, undo: str) -> bool:
    """Whether `user` gets the Undo button, by `actions.reviews.undo_opinion`'s rule: under
    double review only the author of the latest decision or a curator (a curator who settled
    a case takes it back from the page like anyone else); otherwise whoever may decide."""
    undone = {decision.undoes_id for decision in history if decision.undoes_id}
    latest = next((d for d in history if d.action != undo and d.pk not in undone), None)
    if latest is None:
        return False
    if item.review_stage == item.SINGLE:
        return may_decide
    if can_curate(user, item.project_id):
        return True
    return may_decide and latest.actor_id == user.pk


def opinions_context(request, item: SecondOpinions, history, *, may_decide: bool, undo: str):
    """The panel's `opinions`, `can_decide`, `can_undo` and `history` for `request.user`."""
    user = request.user
    label = dict(type(item)._meta.get_field(item.OUTCOME_FIELD).choices)
    stage = item.review_stage
    may_undo = may_undo_now(user, item, history, may_decide=may_decide, undo=undo)
    panel = None
    if item.hides_first_opinion_from(user):
        # Only the viewer's own decisions: the first reviewer's row names them and their note.
        history = [decision for decision in history if decision.actor_id == user.pk]
        panel = OpinionsPanel(stage, "Second opinion: decide without seeing the first.")
    elif stage == item.AWAITING_SECOND:
        panel = OpinionsPanel(
            stage,
            "Your first opinion; a second reviewer decides blind.",
            (Opinion(label.get(item.first_opinion, ""), str(item.first_by), item.first_note),),
        )
    elif stage != item.SINGLE:
        messages = {
            item.IN_CURATION: "The two opinions differ: a curator decides.",
            item.AGREED: "Two reviewers agreed.",
            item.CURATED: "A curator settled two opinions that differed.",
        }
        differs = item.first_opinion != item.second_opinion
        notes = word_sides(item.first_note, item.second_note)
        panel = OpinionsPanel(
            stage,
            messages[stage],
            tuple(
                Opinion(label.get(value, value), str(reviewer), note, differs, words)
                for (value, reviewer, note), words in zip(
                    (
                        (item.first_opinion, item.first_by, item.first_note),
                        (item.second_opinion, item.second_by, item.second_note),
                    ),
                    notes,
                    strict=True,
                )
            ),
        )
    can_decide = may_decide_now(user, item, may_decide)
    if stage == item.SINGLE and can_decide:
        panel = _before_the_first(item)
    return {
        "opinions": panel,
        "can_decide": can_decide,
        "can_undo": may_undo,
        "history": history,
    }


def _before_the_first(item: SecondOpinions) -> OpinionsPanel | None:
    """What the reviewer is told before a verdict: whether theirs will be the first of two
    opinions. Nothing about anyone else is known yet, so nothing blind is given away."""
    always, checked = second_opinion_ahead(item)
    thing = item._meta.verbose_name
    if always:
        message = (
            f"Double review: yours is the first opinion. A second reviewer also decides this "
            f"{thing}, blind; your verdict alone does not decide it."
        )
    elif checked:
        label = dict(type(item)._meta.get_field(item.OUTCOME_FIELD).choices)[checked]
        message = (
            f"Single review, unless your verdict is {label.lower()}: then it is the first "
            f"opinion, and a second reviewer also decides this {thing}, blind."
        )
    else:
        return None
    return OpinionsPanel(item.SINGLE, message)
