"""How far the people agree with each other: the figures of double review, per queue.

Counted in the database: one grouped query per queue gives how many items had each
(first reviewer, first opinion, second reviewer, second opinion, outcome, validator reason);
rows grow with the people and labels there are, never with the items. `grounding.agreement`
then computes κ, α, their bootstrap intervals and the curation shares from those counts.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, F

from grounding.agreement import (
    MAX_ITEMS,
    Agreement,
    AgreementReport,
    Curation,
    agreement_report,
    cohen_kappa,
    curation,
    percent_agreement,
)
from review.models import Answer, Case, SecondOpinions

FIRST, SECOND = "first reviewer", "second reviewer"
# How a curator decided, against the two opinions they settled.
SIDED_WITH_FIRST = "sided with the first"
SIDED_WITH_SECOND = "sided with the second"
NEITHER = "neither"
WAITING = "still in curation"


@dataclass(frozen=True)
class GroupAgreement:
    """First against second opinion on the items of one group (a validator reason, a rule)."""

    name: str
    kappa: Agreement
    percent: Agreement

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kappa": self.kappa.to_dict(), "percent": self.percent.to_dict()}


@dataclass(frozen=True)
class QueueAgreement:
    queue: str
    # Items both reviewers have given an opinion on.
    items: int
    # The two positions as raters: whoever gave the first opinion against whoever the second.
    kappa: Agreement
    # α across all reviewers; κ per pair of reviewers and per reviewer against the outcome.
    people: AgreementReport
    by_reason: tuple[GroupAgreement, ...]
    by_rule: tuple[GroupAgreement, ...]
    curation: Curation

    def to_dict(self) -> dict[str, Any]:
        return {
            "queue": self.queue,
            "items": self.items,
            "kappa": self.kappa.to_dict(),
            **self.people.to_dict(),
            "by_reason": [group.to_dict() for group in self.by_reason],
            "by_rule": [group.to_dict() for group in self.by_rule],
            "curation": self.curation.to_dict(),
        }


@dataclass(frozen=True)
class PeopleAgreement:
    cases: QueueAgreement
    answers: QueueAgreement

    @property
    def queues(self) -> tuple[QueueAgreement, ...]:
        return (self.cases, self.answers)

    def to_dict(self) -> dict[str, Any]:
        return {queue.queue: queue.to_dict() for queue in self.queues}


def agreement() -> PeopleAgreement:
    return PeopleAgreement(
        cases=queue_agreement("cases", Case, group="validator_reason"),
        answers=queue_agreement("answers", Answer),
    )


def queue_agreement(
    queue: str, model: type[SecondOpinions], group: str | None = None
) -> QueueAgreement:
    rows = _opinion_counts(model, group)
    units: dict[int, dict[str, str]] = {}
    final: dict[int, str] = {}
    positions: tuple[list[str], list[str]] = ([], [])
    groups: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    outcomes: Counter[str] = Counter()
    for row in rows:
        for _ in range(row["n"]):
            item = len(units)
            units[item] = {row["first"]: row["first_opinion"], row["second"]: row["second_opinion"]}
            if row["outcome"] != model.UNDECIDED:
                final[item] = row["outcome"]
            positions[0].append(row["first_opinion"])
            positions[1].append(row["second_opinion"])
            if group:
                groups[row["group"]][0].append(row["first_opinion"])
                groups[row["group"]][1].append(row["second_opinion"])
        if row["first_opinion"] != row["second_opinion"]:
            undecided = row["outcome"] == model.UNDECIDED
            outcomes[WAITING if undecided else _curator_side(row)] += row["n"]
    return QueueAgreement(
        queue=queue,
        items=len(units),
        kappa=cohen_kappa(*positions),
        people=agreement_report(units, final),
        by_reason=tuple(
            GroupAgreement(name or "passed", cohen_kappa(*labels), percent_agreement(*labels))
            for name, labels in sorted(groups.items())
        ),
        # Plans are not double-reviewed yet; their rules will be grouped here.
        by_rule=(),
        curation=curation(len(units), outcomes),
    )


def _opinion_counts(model: type[SecondOpinions], group: str | None) -> list[dict]:
    """How many items had each combination of reviewers, opinions and outcome."""
    columns = {
        "first": F("first_by__username"),
        "second": F("second_by__username"),
        "outcome": F(model.OUTCOME_FIELD),
    }
    if group:
        columns["group"] = F(group)
    rows = list(
        model.objects.exclude(first_opinion="")
        .exclude(second_opinion="")
        .values("first_opinion", "second_opinion", **columns)
        .annotate(n=Count("pk"))
        .order_by("first", "second", "first_opinion", "second_opinion", "outcome")
    )
    # The statistics take one label per item; past their bound the figures would not be
    # computed at all, so the newest items beyond it are left out, and the count says so.
    total = 0
    for index, row in enumerate(rows):
        total += row["n"]
        if total > MAX_ITEMS:
            row["n"] -= total - MAX_ITEMS
            return rows[: index + 1]
    return rows


def _curator_side(row: dict) -> str:
    if row["outcome"] == row["first_opinion"]:
        return SIDED_WITH_FIRST
    if row["outcome"] == row["second_opinion"]:
        return SIDED_WITH_SECOND
    return NEITHER
