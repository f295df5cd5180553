"""What the decisions teach: the proposer's rules, the validator's reasons and finalization,
as figures counted in the database and judged by `grounding.ledger` and `grounding.agreement`.

Every figure is one aggregate query (or two), whatever the number of decisions: rows grow with
the rules, reasons, weeks and documents there are, never with the entries, cases or log rows.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Case as DbCase
from django.db.models import (
    CharField,
    Count,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone

from grounding.agreement import Proportion, cohen_kappa_of_table, wilson_interval
from grounding.citations import CHANGE_KIND_LABELS, CHANGE_KINDS
from grounding.ledger import (
    UNFLAGGED,
    Confusion,
    ReasonRecord,
    RuleRecord,
    ValidationSettings,
)
from review.actions.entries import UNDO
from review.actions.revisions import CARRY
from review.decisions import undoable
from review.models import Answer, Case, Decision, Document, Entry
from review.permissions import project_id_of

# The longest window the weekly figures look back over.
MAX_WEEKS = 104
# Disagreements listed per side of the confusion matrix; the counts are always whole.
DISAGREEMENTS_LISTED = 50
State = Entry.State


@dataclass(frozen=True)
class Filters:
    """What the figures are narrowed to; empty means all. `project` (an id) is set by the
    door, never read from a query: the figures are always of one project's items unless a
    command's operator asks for every project's."""

    project: int | None = None
    document: int | None = None
    proposer_version: str = ""
    model: str = ""
    rule: str = ""
    weeks: int = 12
    # Only what was decided under this version of the guidelines (its standing decision).
    guideline: int | None = None

    @classmethod
    def from_query(cls, query) -> Filters:
        """The filters a query string asks for; anything malformed is ignored, not an error."""
        document = str(query.get("document") or "")
        weeks = str(query.get("weeks") or "")
        guideline = str(query.get("guideline") or "")
        return cls(
            document=int(document) if document.isdigit() else None,
            proposer_version=str(query.get("version") or "").strip()[:200],
            model=str(query.get("model") or "").strip()[:200],
            rule=str(query.get("rule") or "").strip()[:200],
            weeks=min(int(weeks), MAX_WEEKS) if weeks.isdigit() and int(weeks) > 0 else 12,
            guideline=int(guideline) if guideline.isdigit() else None,
        )

    def entries(self, *, review_copies: bool = False) -> QuerySet[Entry]:
        # An editor's review copy is counted through the plan it settles, not twice.
        entries = (
            Entry.objects.all()
            if review_copies
            else Entry.objects.filter(plan__review_of__isnull=True)
        )
        if self.project is not None:
            entries = entries.filter(plan__project_id=self.project)
        if self.document:
            entries = entries.filter(plan__document_id=self.document)
        if self.proposer_version:
            entries = entries.filter(plan__proposed_by=self.proposer_version)
        return self._under_guideline(entries, "state", UNDO)

    def cases(self) -> QuerySet[Case]:
        cases = self._in_project(Case.objects.all())
        cases = cases.filter(model=self.model) if self.model else cases
        return self._under_guideline(cases, Case.OUTCOME_FIELD, "case.undo")

    def answers(self) -> QuerySet[Answer]:
        answers = self._in_project(Answer.objects.all())
        answers = answers.filter(model=self.model) if self.model else answers
        return self._under_guideline(answers, Answer.OUTCOME_FIELD, "answer.undo")

    def _under_guideline(self, rows: QuerySet, field: str, undo_action: str) -> QuerySet:
        """`rows` narrowed to those whose standing decision (the latest not undone that set
        `field`) was made under `guideline`; all of them without it."""
        if self.guideline is None:
            return rows
        return rows.alias(guideline_in_force=guideline_in_force(rows.model, field, undo_action))\
            .filter(guideline_in_force=self.guideline)  # fmt: skip

    def _in_project(self, items: QuerySet) -> QuerySet:
        return items if self.project is None else items.filter(project_id=self.project)

    def since(self) -> dt.datetime:
        return timezone.now() - dt.timedelta(weeks=self.weeks)

    def to_dict(self) -> dict:
        return {
            "document": self.document,
            "proposer_version": self.proposer_version,
            "model": self.model,
            "rule": self.rule,
            "weeks": self.weeks,
            "guideline": self.guideline,
        }


def guideline_in_force(model, field: str, undo_action: str) -> Subquery:
    """Per row of `model`: the guideline version of the decision its `field` stands on."""
    standing = undoable(
        Decision.objects.filter(
            object_type=model._meta.model_name,
            object_id=Cast(OuterRef("pk"), output_field=CharField()),
            after__has_key=field,
        ),
        undo_action,
    ).order_by("-at", "-pk")
    return Subquery(standing.values("guideline_version")[:1])


def guideline_versions(project=None) -> list[int]:
    """The guideline versions some decision of `project` was made under, to narrow the
    figures to."""
    versions = Decision.objects.exclude(guideline_version=None).order_by()
    versions = versions if project is None else versions.filter(project=project)
    return sorted(versions.values_list("guideline_version", flat=True).distinct())


def validation_settings() -> ValidationSettings:
    return ValidationSettings(
        min_documents=settings.INSIGHTS_MIN_DOCUMENTS,
        min_lower_bound=settings.INSIGHTS_MIN_LOWER_BOUND,
    )


# --- the proposer's rules ---------------------------------------------------------------------


def rule_records(filters: Filters = Filters()) -> list[RuleRecord]:
    """One record per rule and proposer version, most decided first: the entries a person
    judged (`decided_how`), with what nobody judged counted beside them (`RuleRecord`)."""
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    unjudged: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    documents: dict[tuple[str, str], set[int]] = defaultdict(set)
    roots = _document_roots()
    rows = (
        filters.entries(review_copies=True)
        .annotate(how=decided_how())
        .values_list("rules", "plan__proposed_by", "state", "how", "plan__document_id")
        .annotate(n=Count("pk"))
    )
    for rules, version, state, how, document, n in rows.order_by():
        for rule in _rules(rules, filters):
            if how == REVIEW_COPY:
                unjudged[rule, version]["review_copies"] += n if state != State.PROPOSED else 0
                continue
            counts[rule, version][state if how in (JUDGED, "") else how] += n
            if how == JUDGED:
                documents[rule, version].add(roots.get(document, document))
    judged = validation_settings()
    records = [
        RuleRecord(
            rule=rule,
            proposer_version=version or "unknown",
            proposed=sum(by_state.values()),
            decided=sum(by_state[state] for state in State.values if state != State.PROPOSED),
            accepted=by_state[State.ACCEPTED],
            edited=by_state[State.EDITED],
            merged=by_state[State.MERGED],
            rejected=by_state[State.REJECTED],
            documents=len(documents[rule, version]),
            settings=judged,
            bulk_accepted=by_state[BULK],
            carried=by_state[CARRIED],
            review_copies=unjudged[rule, version]["review_copies"],
        )
        for (rule, version), by_state in counts.items()
    ]
    return sorted(records, key=lambda r: (-r.decided, r.rule, r.proposer_version))


# How an entry came to its decision, as the log tells (`decided_how`).
JUDGED, BULK, CARRIED, REVIEW_COPY = "judged", "bulk", "carried", "review copy"


def decided_how() -> DbCase:
    """Per entry: "" while proposed; REVIEW_COPY on a double-review copy (the plan's own
    entry counts, once, when an agreement or a curation settles it); else how the decision
    its state stands on was taken, that is the latest decision on it that set its state and
    was not undone: BULK when it was accepted with all of its rule, CARRIED when it was
    carried from an earlier revision, JUDGED otherwise (a person decided this entry; also
    an entry whose state no log row explains).

    The log is asked (a subquery on its (object_type, object_id) index) only for an entry
    that could stand on either: one whose note is an accept-all's (every decision that sets
    a state sets the note, and an undo puts the note back with the state), or one on a
    carried plan. Asking it for every decided entry doubled the counting time at 100,000
    entries (benchmarks/bench_insights.py)."""
    deciding = undoable(
        Decision.objects.filter(
            object_type="entry",
            object_id=Cast(OuterRef("pk"), output_field=CharField()),
            after__has_key="state",
        ),
        UNDO,
    )
    how = deciding.annotate(
        how=DbCase(
            When(action=CARRY, then=Value(CARRIED)),
            When(Decision.rule_batch_q(), then=Value(BULK)),
            default=Value(JUDGED),
        )
    ).order_by("-at", "-pk")
    return DbCase(
        When(plan__review_of__isnull=False, then=Value(REVIEW_COPY)),
        When(state=State.PROPOSED, then=Value("")),
        When(
            Q(note__startswith=Decision.RULE_BATCH_NOTE.partition("{")[0])
            | Q(plan__carried_from__isnull=False),
            then=Coalesce(Subquery(how.values("how")[:1]), Value(JUDGED)),
        ),
        default=Value(JUDGED),
        output_field=CharField(),
    )


def _document_roots() -> dict[int, int]:
    """Document id -> the first revision of its line, for every document that is a later
    revision: the revisions of one document are one document to a rule's record."""
    previous = dict(
        Document.objects.filter(revision_of__isnull=False).values_list("pk", "revision_of_id")
    )
    roots = {}
    for document in previous:
        root = document
        while root in previous:
            root = previous[root]
        roots[document] = root
    return roots


def rule_names(project=None) -> list[str]:
    """Every rule the proposer named on an entry of `project` (of every project when None;
    "no rule" too, if an entry named none), for choosing one to narrow the figures to."""
    lists = Filters(project=project).entries().values_list("rules", flat=True)
    return sorted({rule for rules in lists.distinct().order_by() for rule in _rule_names(rules)})


def rule_record(rule: str, proposer_version: str, project=None) -> RuleRecord | None:
    """The record of one rule as one proposer version proposed it in `project` (None if it
    proposed none there): rule records are per project."""
    filters = Filters(project=project_id_of(project), proposer_version=proposer_version, rule=rule)
    found = rule_records(filters)
    return found[0] if found else None


def _rules(rules: Any, filters: Filters) -> list[str]:
    """The entry's rules the figures count: all of them, or only the one filtered on."""
    return [rule for rule in _rule_names(rules) if not filters.rule or rule == filters.rule]


def _rule_names(rules: Any) -> list[str]:
    return [str(rule) for rule in rules or ()] or ["no rule"]


# --- the validator's reasons ------------------------------------------------------------------


@dataclass(frozen=True)
class ValidatorFigures:
    reasons: list[ReasonRecord]
    confusion: Confusion

    def to_dict(self) -> dict:
        return {
            "reasons": [record.to_dict() for record in self.reasons],
            "confusion": self.confusion.to_dict(),
        }


def validator_figures(filters: Filters = Filters()) -> ValidatorFigures:
    decided = filters.cases().exclude(verdict=Case.Verdict.PROPOSED)
    verdicts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    rows = decided.values_list("validator_reason", "verdict").annotate(n=Count("pk")).order_by()
    for reason, verdict, n in rows:
        verdicts[reason or UNFLAGGED][verdict] += n
    reasons = [
        ReasonRecord(
            reason=reason,
            upheld=by_verdict[Case.Verdict.UPHELD],
            overturned=by_verdict[Case.Verdict.OVERTURNED],
            needs_rewrite=by_verdict[Case.Verdict.NEEDS_REWRITE],
        )
        for reason, by_verdict in sorted(verdicts.items())
    ]
    return ValidatorFigures(reasons, _confusion(decided, reasons))


def _confusion(decided: QuerySet[Case], reasons: list[ReasonRecord]) -> Confusion:
    """ "Validator flagged" against "moderator did not uphold", over the decided cases."""
    cells = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for record in reasons:
        cells[record.flagged, True] += record.overturned + record.needs_rewrite
        cells[record.flagged, False] += record.upheld
    upheld = Q(verdict=Case.Verdict.UPHELD)
    listed = DISAGREEMENTS_LISTED
    return Confusion(
        flagged_not_upheld=cells[True, True],
        flagged_upheld=cells[True, False],
        unflagged_not_upheld=cells[False, True],
        unflagged_upheld=cells[False, False],
        kappa=cohen_kappa_of_table(
            [[cells[True, True], cells[True, False]], [cells[False, True], cells[False, False]]]
        ),
        flagged_but_upheld=tuple(
            decided.filter(upheld, flagged=True)
            .order_by("pk")
            .values_list("case_id", flat=True)[:listed]
        ),
        unflagged_but_not_upheld=tuple(
            decided.filter(~upheld, flagged=False)
            .order_by("pk")
            .values_list("case_id", flat=True)[:listed]
        ),
    )


# --- finalization -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ChangeKindFigure:
    kind: str
    label: str
    answers: int
    share: Proportion  # of all answers
    published: int
    withdrawn: int

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "label": self.label,
            "answers": self.answers,
            "share": self.share.to_dict(),
            "published": self.published,
            "withdrawn": self.withdrawn,
        }


@dataclass(frozen=True)
class FinalizationFigures:
    answers: int
    changed: Proportion
    kinds: list[ChangeKindFigure]

    def to_dict(self) -> dict:
        return {
            "answers": self.answers,
            "changed": self.changed.to_dict(),
            "kinds": [kind.to_dict() for kind in self.kinds],
        }


def finalization_figures(filters: Filters = Filters()) -> FinalizationFigures:
    published, withdrawn = Q(state=Answer.State.PUBLISHED), Q(state=Answer.State.WITHDRAWN)
    aggregates = {"total": Count("pk"), "changed": Count("pk", filter=Q(changed=True))}
    for kind in CHANGE_KINDS:
        has = Q(**{f"change_{kind}": True})
        aggregates[kind] = Count("pk", filter=has)
        aggregates[f"{kind}_published"] = Count("pk", filter=has & published)
        aggregates[f"{kind}_withdrawn"] = Count("pk", filter=has & withdrawn)
    values = filters.answers().aggregate(**aggregates)
    total = values["total"]
    return FinalizationFigures(
        answers=total,
        changed=wilson_interval(values["changed"], total),
        kinds=[
            ChangeKindFigure(
                kind=kind,
                label=CHANGE_KIND_LABELS[kind],
                answers=values[kind],
                share=wilson_interval(values[kind], total),
                published=values[f"{kind}_published"],
                withdrawn=values[f"{kind}_withdrawn"],
            )
            for kind in CHANGE_KINDS
        ],
    )


# --- week by week -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Week:
    start: dt.date
    rules: Proportion  # entries accepted as proposed, of those decided that week
    validator: Proportion  # verdicts that agreed with the validator, of those given that week
    finalization: Proportion  # answers finalization changed, of those imported that week

    def to_dict(self) -> dict:
        return {
            "week": self.start.isoformat(),
            "rules_accepted": self.rules.to_dict(),
            "validator_agreed": self.validator.to_dict(),
            "finalization_changed": self.finalization.to_dict(),
        }


def weeks(filters: Filters = Filters()) -> list[Week]:
    """The last `filters.weeks` weeks that saw a decision or an import, oldest first.

    Each week is a pair of conditional counts over a range of times (one query per figure, a
    column pair per week), rather than a truncation of every row's time: on SQLite that is a
    Python call per row, which made a hundred thousand entries take seconds.
    """
    starts = _week_starts(filters.weeks)
    bounds = list(zip(starts, [*starts[1:], None], strict=True))
    rules = _weekly_rule_counts(filters, bounds)
    agreed = (Q(flagged=True) & ~Q(verdict=Case.Verdict.UPHELD)) | (
        Q(flagged=False) & Q(verdict=Case.Verdict.UPHELD)
    )
    validator = _weekly_counts(
        filters.cases().exclude(verdict=Case.Verdict.PROPOSED), "decided_at", bounds, agreed
    )
    finalization = _weekly_counts(filters.answers(), "created_at", bounds, Q(changed=True))
    return [
        Week(start.date(), wilson_interval(*rule), wilson_interval(*case), wilson_interval(*answer))
        for start, rule, case, answer in zip(starts, rules, validator, finalization, strict=True)
        if rule[1] or case[1] or answer[1]
    ]


def _week_starts(count: int) -> list[dt.datetime]:
    """The starts (Monday, midnight, in the app's time zone) of the last `count` weeks."""
    today = timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)
    this_week = today - dt.timedelta(days=today.weekday())
    return [this_week - dt.timedelta(weeks=back) for back in range(count - 1, -1, -1)]


def _in_week(field_name: str, start, end) -> Q:
    window = Q(**{f"{field_name}__gte": start})
    return window & Q(**{f"{field_name}__lt": end}) if end is not None else window


def _weekly_counts(rows: QuerySet, field_name: str, bounds, success: Q) -> list[tuple[int, int]]:
    aggregates = {}
    for index, (start, end) in enumerate(bounds):
        window = _in_week(field_name, start, end)
        aggregates[f"ok{index}"] = Count("pk", filter=window & success)
        aggregates[f"n{index}"] = Count("pk", filter=window)
    values = rows.aggregate(**aggregates)
    return [(values[f"ok{index}"], values[f"n{index}"]) for index in range(len(bounds))]


def _weekly_rule_counts(filters: Filters, bounds) -> list[tuple[int, int]]:
    """Entries accepted as proposed, of those decided, per week (of one rule, if filtered)."""
    aggregates = {}
    for index, (start, end) in enumerate(bounds):
        window = _in_week("decided_at", start, end)
        aggregates[f"ok{index}"] = Count("pk", filter=window & Q(state=State.ACCEPTED))
        aggregates[f"n{index}"] = Count("pk", filter=window)
    # What a person judged, as the rules' records count it.
    decided = filters.entries().annotate(how=decided_how()).filter(how=JUDGED)
    # Grouped by the entries' rules (a handful of lists), so a rule is picked out here.
    rows = decided.values("rules").annotate(**aggregates).order_by()
    totals = [[0, 0] for _ in bounds]
    for row in rows:
        if filters.rule and filters.rule not in _rule_names(row["rules"]):
            continue
        for index, total in enumerate(totals):
            total[0] += row[f"ok{index}"]
            total[1] += row[f"n{index}"]
    return [tuple(total) for total in totals]


# --- all of it --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Insights:
    filters: Filters
    settings: ValidationSettings
    rules: list[RuleRecord]
    validator: ValidatorFigures
    finalization: FinalizationFigures
    weeks: list[Week] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "filters": self.filters.to_dict(),
            "settings": {
                "min_documents": self.settings.min_documents,
                "min_lower_bound": self.settings.min_lower_bound,
            },
            "rules": [record.to_dict() for record in self.rules],
            "validator": self.validator.to_dict(),
            "finalization": self.finalization.to_dict(),
            "weeks": [week.to_dict() for week in self.weeks],
        }


def insights(filters: Filters = Filters()) -> Insights:
    """Every figure, cached for INSIGHTS_CACHE_SECONDS under a key that changes with any new
    decision, entry, case or answer: counting a million rows takes seconds, and the same
    figures asked again before anything changed need not be counted again."""
    seconds = settings.INSIGHTS_CACHE_SECONDS
    if not seconds:
        return _count(filters)
    key = _cache_key(filters)
    found = cache.get(key)
    if found is None:
        found = _count(filters)
        cache.set(key, found, seconds)
    return found


def _cache_key(filters: Filters) -> str:
    latest = {
        name: model.objects.aggregate(latest=Max("pk"))["latest"]
        for name, model in (
            ("decision", Decision),
            ("entry", Entry),
            ("case", Case),
            ("answer", Answer),
        )
    }
    judged = validation_settings()
    parts = [repr(filters), repr(latest), repr((judged.min_documents, judged.min_lower_bound))]
    return "insights:" + hashlib.sha256("|".join(parts).encode()).hexdigest()


def _count(filters: Filters) -> Insights:
    return Insights(
        filters=filters,
        settings=validation_settings(),
        rules=rule_records(filters),
        validator=validator_figures(filters),
        finalization=finalization_figures(filters),
        weeks=weeks(filters),
    )
