"""How far the people agree with each other: the figures of double review, per queue.

Counted in the database: one grouped query per queue gives how many items had each
(first reviewer, first opinion, second reviewer, second opinion, outcome, validator reason or
proposer rules); for plans an item is an entry, its opinions the states in the two editors'
copies and its outcome the state settled on the plan;
rows grow with the people and labels there are, never with the items. `grounding.agreement`
then computes κ, α, their bootstrap intervals and the curation shares from those counts.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, F, OuterRef, Subquery

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
from review.actions.entries import UNDO
from review.insights import Filters, _cache_key, guideline_in_force
from review.models import Answer, Case, Entry, Plan, SecondOpinions

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
    plans: QueueAgreement

    @property
    def queues(self) -> tuple[QueueAgreement, ...]:
        return (self.plans, self.cases, self.answers)

    def to_dict(self) -> dict[str, Any]:
        return {queue.queue: queue.to_dict() for queue in self.queues}


def agreement(project=None, guideline: int | None = None) -> PeopleAgreement:
    """Every queue's figures over `project`'s items (every project's when None, for a
    command's operator), cached as the insights are (INSIGHTS_CACHE_SECONDS), under a key
    that changes with any new decision: every opinion is one, and the bootstraps cost. With
    `guideline`, only the items whose second opinion was given under that version."""
    seconds = settings.INSIGHTS_CACHE_SECONDS
    if not seconds:
        return _count(project, guideline)
    key = "agreement:" + _cache_key(Filters(project=project, guideline=guideline))
    found = cache.get(key)
    if found is None:
        found = _count(project, guideline)
        cache.set(key, found, seconds)
    return found


def _count(project, guideline: int | None) -> PeopleAgreement:
    cases = _opinion_counts(Case, project, "validator_reason", guideline=guideline)
    return PeopleAgreement(
        cases=figures_of("cases", cases, Case.UNDECIDED),
        answers=figures_of(
            "answers", _opinion_counts(Answer, project, guideline=guideline), Answer.UNDECIDED
        ),
        plans=figures_of(
            "plans", _entry_opinion_counts(project, guideline), Entry.State.PROPOSED, by="rule"
        ),
    )


def figures_of(queue: str, rows: list[dict], undecided: str, by: str = "reason") -> QueueAgreement:
    """Every figure from `rows` of counted (reviewers, opinions, outcome, group)."""
    units: dict[int, dict[str, str]] = {}
    final: dict[int, str] = {}
    positions: tuple[list[str], list[str]] = ([], [])
    groups: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    outcomes: Counter[str] = Counter()
    for row in rows:
        for _ in range(row["n"]):
            item = len(units)
            units[item] = {row["first"]: row["first_opinion"], row["second"]: row["second_opinion"]}
            if row["outcome"] != undecided:
                final[item] = row["outcome"]
            positions[0].append(row["first_opinion"])
            positions[1].append(row["second_opinion"])
            for name in _groups(row.get("group")):
                groups[name][0].append(row["first_opinion"])
                groups[name][1].append(row["second_opinion"])
        if row["first_opinion"] != row["second_opinion"]:
            waiting = row["outcome"] == undecided
            outcomes[WAITING if waiting else _curator_side(row)] += row["n"]
    grouped = tuple(
        GroupAgreement(name, cohen_kappa(*labels), percent_agreement(*labels))
        for name, labels in sorted(groups.items())
    )
    return QueueAgreement(
        queue=queue,
        items=len(units),
        kappa=cohen_kappa(*positions),
        people=agreement_report(units, final),
        by_reason=grouped if by == "reason" else (),
        by_rule=grouped if by == "rule" else (),
        curation=curation(len(units), outcomes),
    )


def _groups(value) -> list[str]:
    """A case's validator reason, or a plan entry's rules (a JSON list, text on SQLite)."""
    if value is None:
        return []
    if isinstance(value, str) and value.startswith("["):
        value = json.loads(value)
    if isinstance(value, list):
        return [rule for rule in value if rule.startswith("rule:")]
    return [value or "passed"]


def _entry_opinion_counts(project, guideline: int | None = None) -> list[dict]:
    """For plans: each entry of an editor's submitted copy beside the same entry of the other
    copy (the later one) and of the plan it settles, counted by reviewers, states and rules;
    with `guideline`, those whose later copy's entry was decided under that version."""
    submitted = Entry.objects.filter(
        plan__review_of=OuterRef("plan__review_of"),
        plan__status=Plan.Status.ADJUDICATED,
        plan__pk__gt=OuterRef("plan_id"),
        position=OuterRef("position"),
    )
    settled = Entry.objects.filter(plan=OuterRef("plan__review_of"), position=OuterRef("position"))
    copies = Entry.objects.filter(
        plan__review_of__isnull=False, plan__status=Plan.Status.ADJUDICATED
    )
    if project is not None:
        copies = copies.filter(plan__project=project)
    rows = copies.annotate(
        first=F("plan__reviewer__username"),
        first_opinion=F("state"),
        second_opinion=Subquery(submitted.values("state")[:1]),
        second=Subquery(submitted.values("plan__reviewer__username")[:1]),
        outcome=Subquery(settled.values("state")[:1]),
        group=F("rules"),
    ).filter(second_opinion__isnull=False)
    if guideline is not None:
        later = Subquery(
            submitted.annotate(under=guideline_in_force(Entry, "state", UNDO)).values("under")[:1]
        )
        rows = rows.alias(second_version=later).filter(second_version=guideline)
    rows = (
        rows.values("first", "first_opinion", "second", "second_opinion", "outcome", "group")
        .annotate(n=Count("pk"))
        .order_by("first", "second", "first_opinion", "second_opinion", "outcome")
    )
    return _bounded(list(rows))


def _opinion_counts(
    model: type[SecondOpinions], project, group: str | None = None, *, guideline: int | None = None
) -> list[dict]:
    """How many items had each combination of reviewers, opinions and outcome; with
    `guideline`, of the items whose second opinion was given under that version."""
    columns = {
        "first": F("first_by__username"),
        "second": F("second_by__username"),
        "outcome": F(model.OUTCOME_FIELD),
    }
    if group:
        columns["group"] = F(group)
    items = model.objects.all() if project is None else model.objects.filter(project=project)
    items = items.exclude(first_opinion="").exclude(second_opinion="")
    if guideline is not None:
        undo = f"{model._meta.model_name}.undo"
        second = guideline_in_force(model, "second_opinion", undo)
        items = items.alias(second_version=second).filter(second_version=guideline)
    rows = list(
        items.values("first_opinion", "second_opinion", **columns)
        .annotate(n=Count("pk"))
        .order_by("first", "second", "first_opinion", "second_opinion", "outcome")
    )
    return _bounded(rows)


def _bounded(rows: list[dict]) -> list[dict]:
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
