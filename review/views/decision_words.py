"""A log row in the product's words, for the dashboard and the plan's history: "accepted
entry #4", "merged entry #5 into #4", "upheld c-1012", "undid the accept of entry #4",
"settled c-1004 in curation: upheld", "released rita's hold on a-114"."""

from __future__ import annotations

from review.models import Decision

# What the person did, `{subject}` standing for what they did it to.
PHRASES = {
    "entry.accept": "accepted {subject}",
    "entry.reject": "rejected {subject}",
    "entry.merge": "merged {subject}",
    "entry.edit": "edited {subject}",
    "entry.confirm_anchor": "confirmed the anchor of {subject}",
    "entry.agreed": "settled {subject}: both reviews agreed",
    "entry.curate": "settled {subject} in curation",
    "entry.carry": "carried the decision on {subject} over from the earlier revision",
    "plan.adjudicate": "adjudicated {subject}",
    "plan.review_copy": "opened {subject}",
    "plan.supersede": "marked {subject} superseded by a newer revision",
    "case.uphold": "upheld {subject}",
    "case.overturn": "overturned {subject}",
    "case.needs_rewrite": "asked for a rewrite of {subject}",
    "case.first_opinion": "gave the first opinion on {subject}",
    "case.second_opinion": "gave the second opinion on {subject}",
    "case.curate": "settled {subject} in curation",
    "answer.publish": "published {subject}",
    "answer.withdraw": "withdrew {subject}",
    "answer.first_opinion": "gave the first opinion on {subject}",
    "answer.second_opinion": "gave the second opinion on {subject}",
    "answer.curate": "settled {subject} in curation",
    "lease.release": "released the hold on {subject}",
    "policy.set": "set the review policy for {subject}",
}
# The same, as a noun after "undid the".
NOUNS = {
    "entry.accept": "accept",
    "entry.reject": "rejection",
    "entry.merge": "merge",
    "entry.edit": "edit",
    "entry.confirm_anchor": "anchor confirmation",
    "entry.agreed": "agreement",
    "entry.curate": "curation",
    "entry.carry": "carried decision",
    "case.uphold": "upholding",
    "case.overturn": "overturning",
    "case.needs_rewrite": "request for a rewrite",
    "case.first_opinion": "first opinion",
    "case.second_opinion": "second opinion",
    "case.curate": "curation",
    "answer.publish": "publication",
    "answer.withdraw": "withdrawal",
    "answer.first_opinion": "first opinion",
    "answer.second_opinion": "second opinion",
    "answer.curate": "curation",
}
# Where an opinion or a curation keeps what it said (a case's verdict, an answer's state).
_SAID = ("first_opinion", "second_opinion", "verdict", "state")


def plan_label(plan_id: int, review_of_id: int | None = None) -> str:
    """A plan as a subject: "plan 12", or "the review copy of plan 12" for an editor's copy."""
    if review_of_id is not None:
        return f"the review copy of plan {review_of_id}"
    return f"plan {plan_id}"


def in_words(decision: Decision, subject: str, *, number: int | None = None) -> str:
    """`subject` names what was decided on ("entry #4", "c-1012"); `number` is an entry's
    number, for saying where a merge went (into the entry before it)."""
    if decision.undoes_id and decision.undoes is not None:
        noun = NOUNS.get(decision.undoes.action, "decision")
        return f"undid the {noun} of {subject}"
    action = decision.action
    # An action with no words yet still reads as a sentence, its code left to the log.
    words = PHRASES.get(action, "decided on {subject}").format(subject=subject)
    if action == "entry.merge" and number and number > 1:
        return f"{words} into #{number - 1}"
    if action == "lease.release" and decision.before.get("holder"):
        return f"released {decision.before['holder']}'s hold on {subject}"
    if action.endswith(("_opinion", ".curate")) and not action.startswith("entry."):
        said = next((decision.after[key] for key in _SAID if decision.after.get(key)), "")
        if said:
            return f"{words}: {str(said).replace('_', ' ')}"
    return words
