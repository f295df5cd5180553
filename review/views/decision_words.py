"""A log row in the product's words, for the dashboard and the plan's history: "accepted
entry #4", "merged entry #5 into #4", "upheld c-1012", "undid the accept of entry #4"."""

from __future__ import annotations

from review.models import Decision

# What the person did, as a verb before its object.
VERBS = {
    "entry.accept": "accepted",
    "entry.reject": "rejected",
    "entry.merge": "merged",
    "entry.edit": "edited",
    "entry.confirm_anchor": "confirmed the anchor of",
    "plan.adjudicate": "adjudicated",
    "plan.supersede": "superseded",
    "case.uphold": "upheld",
    "case.overturn": "overturned",
    "case.needs_rewrite": "asked for a rewrite of",
    "answer.publish": "published",
    "answer.withdraw": "withdrew",
    "lease.release": "released the hold on",
}
# The same, as a noun after "undid the".
NOUNS = {
    "entry.accept": "accept",
    "entry.reject": "rejection",
    "entry.merge": "merge",
    "entry.edit": "edit",
    "entry.confirm_anchor": "anchor confirmation",
    "case.uphold": "upholding",
    "case.overturn": "overturning",
    "case.needs_rewrite": "request for a rewrite",
    "answer.publish": "publication",
    "answer.withdraw": "withdrawal",
}


def in_words(decision: Decision, subject: str, *, number: int | None = None) -> str:
    """`subject` names what was decided on ("entry #4", "c-1012"); `number` is an entry's
    number, for saying where a merge went (into the entry before it)."""
    if decision.undoes_id and decision.undoes is not None:
        noun = NOUNS.get(decision.undoes.action, decision.undoes.action)
        return f"undid the {noun} of {subject}"
    verb = VERBS.get(decision.action, decision.action)
    if decision.action == "entry.merge" and number and number > 1:
        return f"{verb} {subject} into #{number - 1}"
    return f"{verb} {subject}"
