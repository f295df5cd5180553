"""Turning a proposed plan into an adjudicated one, one decision per entry.

Pure functions: the caller (the review app, a script) supplies the decisions and the text
the plan was proposed against; `adjudicate` returns the adjudicated payload, already
checked by `parse_segmentation_plan` against that text, or refuses.

Decisions:
- accept: the entry stays as proposed;
- edit: a new title, path and/or span (None keeps the old one); a new span gets a fresh anchor;
- merge: the entry joins the previous kept entry, whose span grows to cover both and
  everything between, so no text is lost;
- reject: the entry leaves the plan and is kept in the payload's "rejected" record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from grounding.anchors import make_anchor
from grounding.segmentation import (
    ACCEPT,
    EDIT,
    MERGE,
    REJECT,
    Adjudication,
    PlanEntry,
    PlanError,
    PriorValues,
    RecordedEntry,
    SegmentationPlan,
    is_valid_path,
    parse_segmentation_plan,
    plan_to_payload,
    shown_number,
)

DECISION_KINDS = (ACCEPT, EDIT, MERGE, REJECT)


class AdjudicationError(ValueError):
    """The decisions cannot produce a valid adjudicated plan."""


class UndecidedEntries(AdjudicationError):
    """Some entries have no decision yet; an adjudicated plan needs every one decided."""

    def __init__(self, undecided: Sequence[tuple[int, str]]) -> None:
        listed = ", ".join(f"#{shown_number(index)} ({path!r})" for index, path in undecided)
        super().__init__(
            f"{len(undecided)} entr{'y is' if len(undecided) == 1 else 'ies are'} still undecided: "
            f"{listed}; decide every entry before exporting the plan"
        )
        self.undecided = tuple(undecided)


@dataclass(frozen=True)
class Decision:
    """One editor's decision on one entry. `at` may be a datetime or an ISO-8601 string."""

    kind: str
    by: str
    at: datetime | str
    note: str = ""
    title: str | None = None
    path: str | None = None
    span: tuple[int, int] | None = field(default=None)
    # Under double review: the two reviewers who settled this entry, and the curator if any.
    reviewers: tuple[str, ...] = ()
    curator: str = ""

    def __post_init__(self) -> None:
        if self.kind not in DECISION_KINDS:
            raise AdjudicationError(
                f"decision kind {self.kind!r} is not one of {', '.join(DECISION_KINDS)}"
            )
        if not isinstance(self.by, str) or not self.by.strip():
            raise AdjudicationError("a decision names who made it: 'by' is empty")
        if not isinstance(self.note, str):
            raise AdjudicationError(f"a decision's note is text, not {type(self.note).__name__}")
        object.__setattr__(self, "at", _iso(self.at))
        changes = (self.title, self.path, self.span)
        if self.kind == EDIT and all(value is None for value in changes):
            raise AdjudicationError("an edit changes a title, a path or a span; this one none")
        if self.kind != EDIT and any(value is not None for value in changes):
            raise AdjudicationError(
                f"only an edit carries a new title, path or span, not a {self.kind!r} decision"
            )
        if self.span is not None:
            object.__setattr__(self, "span", tuple(self.span))

    @classmethod
    def accept(cls, by: str, at: datetime | str, note: str = "") -> Decision:
        return cls(ACCEPT, by, at, note)

    @classmethod
    def edit(
        cls,
        by: str,
        at: datetime | str,
        note: str = "",
        *,
        title: str | None = None,
        path: str | None = None,
        span: tuple[int, int] | None = None,
    ) -> Decision:
        return cls(EDIT, by, at, note, title=title, path=path, span=span)

    @classmethod
    def merge(cls, by: str, at: datetime | str, note: str = "") -> Decision:
        return cls(MERGE, by, at, note)

    @classmethod
    def reject(cls, by: str, at: datetime | str, note: str = "") -> Decision:
        return cls(REJECT, by, at, note)

    def record(self, was: PriorValues | None = None) -> Adjudication:
        return Adjudication(
            decision=self.kind,
            by=self.by,
            at=self.at,
            note=self.note,
            was=was,
            reviewers=tuple(self.reviewers),
            curator=self.curator,
        )


@dataclass
class _Kept:
    """An entry on its way into the adjudicated plan; merges extend it."""

    index: int
    entry: PlanEntry
    decision: Decision
    title: str
    path: str
    span: tuple[int, int]
    was: PriorValues | None
    merged: list[RecordedEntry] = field(default_factory=list)


def adjudicate(
    plan: SegmentationPlan,
    decisions: Sequence[Decision | None],
    text: str,
    *,
    double_review: bool = False,
) -> dict:
    """The adjudicated payload for `plan` under `decisions` (aligned with plan.entries).
    With `double_review`, every decision must carry its two reviewers, and the payload says so,
    so that a replay refuses an entry one person settled."""
    _check_decisions(plan, decisions, text)
    kept, rejected = _applied(plan, decisions, text)
    if not kept:
        raise AdjudicationError(
            "every entry was rejected: an adjudicated plan needs at least one entry to replay"
        )
    payload = plan_to_payload(
        SegmentationPlan(
            source_sha256=plan.source_sha256,
            extractor_id=plan.extractor_id,
            extractor_version=plan.extractor_version,
            proposed_by=plan.proposed_by,
            adjudicated=True,
            entries=tuple(_finished(item, text) for item in kept),
            rejected=tuple(rejected),
            double_review=double_review,
        )
    )
    # The gate every consumer uses must accept what we export; if it does not, we don't.
    try:
        parse_segmentation_plan(payload, text)
    except PlanError as error:
        raise AdjudicationError(f"the decisions do not make a valid plan: {error}") from error
    return payload


def _check_decisions(
    plan: SegmentationPlan, decisions: Sequence[Decision | None], text: str
) -> None:
    """Refuses unless `plan` is a proposal that fits `text` and every entry has one Decision."""
    if plan.adjudicated:
        raise AdjudicationError("this plan is already adjudicated; adjudicate the proposal")
    if len(decisions) != len(plan.entries):
        raise AdjudicationError(
            f"{len(decisions)} decisions for {len(plan.entries)} entries: give one per entry "
            "(None where undecided)"
        )
    undecided = [
        (index, entry.path)
        for index, (entry, decision) in enumerate(zip(plan.entries, decisions, strict=True))
        if decision is None
    ]
    if undecided:
        raise UndecidedEntries(undecided)
    for index, decision in enumerate(decisions):
        if not isinstance(decision, Decision):
            raise AdjudicationError(
                f"entry #{shown_number(index)} ({plan.entries[index].path!r}): "
                "expected a Decision, "
                f"not {type(decision).__name__}"
            )
    try:
        parse_segmentation_plan(plan_to_payload(plan), text)
    except PlanError as error:
        raise AdjudicationError(
            f"the plan does not fit this text, so decisions on it would be blind: {error}"
        ) from error


def _applied(
    plan: SegmentationPlan, decisions: Sequence[Decision], text: str
) -> tuple[list[_Kept], list[RecordedEntry]]:
    """The entries kept (merges folded into the entry before) and the entries rejected."""
    kept: list[_Kept] = []
    rejected: list[RecordedEntry] = []
    previous_rejected = False
    for index, (entry, decision) in enumerate(zip(plan.entries, decisions, strict=True)):
        where = f"entry #{shown_number(index)} ({entry.path!r})"
        if decision.kind == REJECT:
            rejected.append(_recorded(entry, decision))
            previous_rejected = True
            continue
        if decision.kind == MERGE:
            if index == 0:
                raise AdjudicationError(f"{where} cannot merge: there is no entry before it")
            if previous_rejected:
                raise AdjudicationError(
                    f"{where} cannot merge into entry #{shown_number(index - 1)} "
                    f"({plan.entries[index - 1].path!r}): that entry is rejected"
                )
            target = kept[-1]
            target.span = (min(target.span[0], entry.span[0]), max(target.span[1], entry.span[1]))
            target.merged.append(_recorded(entry, decision))
            continue
        previous_rejected = False
        title, path, span, was = _apply_edit(entry, decision, text, where)
        kept.append(_Kept(index, entry, decision, title, path, span, was))
    return kept, rejected


def _apply_edit(
    entry: PlanEntry, decision: Decision, text: str, where: str
) -> tuple[str, str, tuple[int, int], PriorValues | None]:
    if decision.kind == ACCEPT:
        return entry.title, entry.path, entry.span, None
    title, path, span = entry.title, entry.path, entry.span
    if decision.title is not None:
        if not isinstance(decision.title, str) or not decision.title.strip():
            raise AdjudicationError(f"{where}: an edited title must be non-blank text")
        if "\n" in decision.title:
            raise AdjudicationError(f"{where}: an edited title is one line")
        title = decision.title
    if decision.path is not None:
        if not is_valid_path(decision.path):
            raise AdjudicationError(
                f"{where}: edited path {decision.path!r} is not lower-case slugs "
                "(a-z, 0-9, single dashes) separated by '/'"
            )
        path = decision.path
    if decision.span is not None:
        span = _checked_span(decision.span, text, where)
    was = PriorValues(
        title=entry.title if title != entry.title else None,
        path=entry.path if path != entry.path else None,
        span=entry.span if span != entry.span else None,
    )
    if was == PriorValues():
        raise AdjudicationError(f"{where}: the edit changes nothing; accept the entry instead")
    return title, path, span, was


def _checked_span(span: tuple, text: str, where: str) -> tuple[int, int]:
    if len(span) != 2 or not all(
        isinstance(value, int) and not isinstance(value, bool) for value in span
    ):
        raise AdjudicationError(f"{where}: an edited span is two integers, not {span!r}")
    start, end = span
    if not 0 <= start < end <= len(text):
        raise AdjudicationError(
            f"{where}: edited span {list(span)} must satisfy 0 <= start < end <= {len(text)}"
        )
    if not text[start:end].strip():
        raise AdjudicationError(f"{where}: edited span {list(span)} holds only whitespace")
    return (start, end)


def _recorded(entry: PlanEntry, decision: Decision) -> RecordedEntry:
    return RecordedEntry(entry.path, entry.title, entry.span, entry.rules, decision.record())


def _finished(item: _Kept, text: str) -> PlanEntry:
    rules = list(item.entry.rules)
    for record in item.merged:
        rules.extend(rule for rule in record.derived if rule not in rules)
    start, end = item.span
    anchor = item.entry.anchor if item.span == item.entry.span else make_anchor(text, start, end)
    record = item.decision.record(item.was)
    if item.merged:
        record = Adjudication(
            record.decision,
            record.by,
            record.at,
            record.note,
            record.was,
            tuple(item.merged),
            record.reviewers,
            record.curator,
        )
    return PlanEntry(item.path, item.title, item.span, anchor, tuple(rules), record)


def _iso(at: object) -> str:
    if isinstance(at, datetime):
        return at.isoformat()
    if isinstance(at, str):
        try:
            return datetime.fromisoformat(at).isoformat()
        except ValueError:
            pass
    raise AdjudicationError(f"a decision's time is a datetime or an ISO-8601 string, not {at!r}")
