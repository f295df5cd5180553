"""What an editor may do to the entries of a segmentation plan, and the rules each action keeps.

Views call these; every change goes through `review.decisions.decide`, so each action is one
versioned update plus one row in the decision log. An undo is a new decision that puts back
what the latest not-yet-undone decision on that entry changed.

Validation that is about plans (path grammar, titles, spans, anchors) is asked of `grounding`;
what is checked here is what only the database knows: neighbours, path uniqueness, state.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import CharField, Count, Q
from django.db.models.functions import Cast
from django.utils import timezone

from grounding.anchors import PLACED, Anchor, locate, make_anchor
from grounding.segmentation import PROPOSED_MARKER, PlanError, parse_segmentation_plan
from review.decisions import StaleVersion, decide, latest_decision
from review.models import Decision, Document, Entry, Plan
from review.undo import last_undoable, take_back, undoable

State = Entry.State
AnchorStatus = Entry.AnchorStatus

KEPT_STATES = frozenset({State.ACCEPTED, State.EDITED})
UNSETTLED_ANCHORS = frozenset({AnchorStatus.FUZZY, AnchorStatus.AMBIGUOUS, AnchorStatus.ORPHANED})
# An edited entry has a fresh anchor; a rejected one leaves the plan: neither needs confirming.
ANCHOR_SETTLING_STATES = frozenset({State.EDITED, State.REJECTED})
# Fields an undo may put back; anything else in a snapshot is ignored.
RESTORABLE = frozenset(
    {
        "state",
        "title",
        "path",
        "span_start",
        "span_end",
        "quote",
        "prefix",
        "suffix",
        "anchor_status",
        "anchor_score",
        "anchor_confirmed",
        "decided_by_id",
        "decided_at",
        "note",
    }
)
# A blank line, possibly holding spaces: where one paragraph ends and the next starts.
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")


FROZEN = "This plan is adjudicated and frozen: its entries can no longer change."


class ActionRefused(ValueError):
    """The action would break a rule of the plan. Nothing was changed."""


class EditRefused(ActionRefused):
    """An edit with problems, by form field ("form" for the edit as a whole)."""

    def __init__(self, errors: dict[str, list[str]]):
        self.errors = errors
        super().__init__("; ".join(message for messages in errors.values() for message in messages))


class BoundaryOffer(ActionRefused):
    """A moved boundary fell inside a paragraph: the editor chooses before anything is saved."""

    def __init__(self, offers: dict[str, list[Boundary]]):
        self.offers = offers
        names = " and ".join(offers)
        super().__init__(f"the new {names} falls inside a paragraph")


@dataclass(frozen=True)
class Boundary:
    """A paragraph boundary near an offset, with a little of the text beside it."""

    offset: int
    context: str


# --- reading a plan ----------------------------------------------------------------------


@dataclass(frozen=True)
class PlanCounts:
    total: int = 0
    proposed: int = 0
    accepted: int = 0
    edited: int = 0
    merged: int = 0
    rejected: int = 0
    # Entries still in the plan whose anchor is fuzzy, ambiguous or orphaned and unconfirmed.
    unsettled_anchors: int = 0
    by_state: tuple[tuple[str, str, int], ...] = field(default=())

    @property
    def decided(self) -> int:
        return self.total - self.proposed

    @property
    def percent(self) -> int:
        return round(100 * self.decided / self.total) if self.total else 0

    @property
    def blockers(self) -> list[str]:
        reasons = []
        if self.proposed:
            reasons.append(f"{self.proposed} {_entries(self.proposed)} still proposed")
        if self.unsettled_anchors:
            anchors = "anchor" if self.unsettled_anchors == 1 else "anchors"
            reasons.append(f"{self.unsettled_anchors} {anchors} to confirm or edit")
        return reasons

    @property
    def ready(self) -> bool:
        return self.total > 0 and not self.blockers


def document_text(plan: Plan) -> str:
    """The plan's document text, without loading the document's original bytes."""
    if Plan.document.is_cached(plan):
        return plan.document.text
    if not hasattr(plan, "_document_text"):
        plan._document_text = Document.objects.values_list("text", flat=True).get(
            pk=plan.document_id
        )
    return plan._document_text


def _entries(count: int) -> str:
    return "entry" if count == 1 else "entries"


def count_aggregates(prefix: str = "") -> dict:
    """Conditional counts over entries; `prefix` is the lookup path to Entry ("entries__")."""
    aggregates = {"total": Count(f"{prefix}pk")}
    for state in State:
        aggregates[state.value] = Count(f"{prefix}pk", filter=Q(**{f"{prefix}state": state}))
    aggregates["unsettled_anchors"] = Count(
        f"{prefix}pk",
        filter=Q(
            **{
                f"{prefix}anchor_status__in": UNSETTLED_ANCHORS,
                f"{prefix}anchor_confirmed": False,
            }
        )
        & ~Q(**{f"{prefix}state__in": list(ANCHOR_SETTLING_STATES)}),
    )
    return aggregates


def counts_from(values: dict) -> PlanCounts:
    """PlanCounts from the result of `count_aggregates` (an aggregate or annotated row)."""
    return PlanCounts(
        total=values["total"],
        unsettled_anchors=values["unsettled_anchors"],
        by_state=tuple((state.value, state.label, values[state.value]) for state in State),
        **{state.value: values[state.value] for state in State},
    )


def plan_counts(plan: Plan) -> PlanCounts:
    """The plan's counters, in one small GROUP BY (every entry action redraws them)."""
    groups = (
        Entry.objects.filter(plan=plan)
        .values_list("state", "anchor_status", "anchor_confirmed")
        .annotate(count=Count("pk"))
        .order_by()
    )
    return _tally(groups)


def counts_of_entries(entries: list[Entry]) -> PlanCounts:
    """The same counts as `plan_counts`, from entries already loaded (no query)."""
    return _tally((e.state, e.anchor_status, e.anchor_confirmed, 1) for e in entries)


def _tally(groups) -> PlanCounts:
    values = {"total": 0, "unsettled_anchors": 0, **{state.value: 0 for state in State}}
    for state, anchor_status, confirmed, count in groups:
        values["total"] += count
        values[state] += count
        if (
            anchor_status in UNSETTLED_ANCHORS
            and not confirmed
            and state not in ANCHOR_SETTLING_STATES
        ):
            values["unsettled_anchors"] += count
    return counts_from(values)


def entry_anchor_unsettled(entry: Entry) -> bool:
    return entry.anchor_status in UNSETTLED_ANCHORS and not entry.anchor_confirmed


def _entry_keys(plan: Plan):
    """Entry ids of a plan as the decision log stores them (text), as a subquery."""
    return (
        Entry.objects.filter(plan=plan)
        .annotate(key=Cast("pk", output_field=CharField()))
        .values("key")
    )


def undoable_entry_ids(plan: Plan) -> set[int]:
    """Entries with a decision that an undo would take back; one query for the whole plan."""
    keys = undoable(
        Decision.objects.filter(object_type="entry", object_id__in=_entry_keys(plan)),
        "entry.undo",
    ).values_list("object_id", flat=True)
    return {int(key) for key in keys.distinct()}


def undo_target(entry: Entry) -> Decision | None:
    """The latest decision on `entry` that has not been undone (undos themselves excluded)."""
    return last_undoable(entry, "entry.undo")


def plan_decisions(plan: Plan):
    """Every decision on the plan and on its entries, newest first."""
    return Decision.objects.filter(
        Q(object_type="plan", object_id=str(plan.pk))
        | Q(object_type="entry", object_id__in=_entry_keys(plan))
    ).order_by("-at", "-pk")


def base_span(entry: Entry, text: str | None = None) -> tuple[int, int] | None:
    """Where the proposed entry lies in the stored text: its proposed span, or where its
    proposed anchor is found when the text moved under it. An accept keeps this span."""
    proposed = entry.proposed or {}
    if "span" not in proposed:
        return None
    start, end = proposed["span"]
    anchor = proposed.get("anchor")
    if anchor:
        text = document_text(entry.plan) if text is None else text
        if text[start:end] != anchor.get("quote"):
            location = locate(text, Anchor.from_dict(anchor), hint=start)
            if location.start >= 0:
                start, end = location.start, location.end
    return (start, end)


def differs_from_proposal(
    entry: Entry, *, title: str | None = None, path: str | None = None, span=None, text=None
) -> bool:
    """Whether the entry (or the given new values) differs from what was proposed: such an
    entry is kept as an edit, never as an accept, or the export would drop the change."""
    proposed = entry.proposed or {}
    title = entry.title if title is None else title
    path = entry.path if path is None else path
    span = (entry.span_start, entry.span_end) if span is None else tuple(span)
    if proposed.get("title", title) != title or proposed.get("path", path) != path:
        return True
    # The common case needs no text: the entry still has the span it was proposed with.
    if "span" not in proposed or tuple(proposed["span"]) == span:
        return False
    return base_span(entry, text) != span


# --- the actions -------------------------------------------------------------------------


def _ensure_open(plan: Plan) -> None:
    if plan.status != Plan.Status.OPEN:
        raise ActionRefused(FROZEN)


def _decide_while_open(entry: Entry, **decision) -> Decision:
    return decide(entry, guard=lambda: _ensure_still_open(entry), **decision)


def _ensure_still_open(entry: Entry) -> None:
    """Refuse, inside the decision's transaction, if the plan is no longer open as committed
    now (not as it was loaded): a plan adjudicated since the page was drawn is frozen."""
    # The entry's row first (adjudication locks entries before it freezes the plan), then
    # the plan's status in a statement of its own, so that it sees what that committed.
    list(Entry.objects.select_for_update().filter(pk=entry.pk).values_list("pk"))
    if not Plan.objects.filter(pk=entry.plan_id, status=Plan.Status.OPEN).exists():
        raise ActionRefused(FROZEN)


def _decided(actor, state: str, note: str) -> dict:
    return {
        "state": state,
        "decided_by_id": actor.pk,
        "decided_at": timezone.now(),
        "note": note,
    }


def _set_state(
    entry: Entry, state: str, *, action: str, actor, version: int, note: str
) -> Decision:
    return _decide_while_open(
        entry,
        expected_version=version,
        actor=actor,
        action=action,
        changes=_decided(actor, state, note),
        note=note,
    )


def _previous(entry: Entry) -> Entry | None:
    return entry.plan.entries.filter(position__lt=entry.position).order_by("-position").first()


def _following(entry: Entry) -> Entry | None:
    return entry.plan.entries.filter(position__gt=entry.position).order_by("position").first()


def accept(entry: Entry, *, actor, version: int, note: str = "") -> Decision:
    _ensure_open(entry.plan)
    # An entry whose values differ from the proposal is kept as an edit, never as an accept.
    state = State.EDITED if differs_from_proposal(entry) else State.ACCEPTED
    if entry.state == state:
        raise ActionRefused(f"This entry is already {entry.get_state_display().lower()}.")
    return _set_state(entry, state, action="entry.accept", actor=actor, version=version, note=note)


def reject(entry: Entry, *, actor, version: int, note: str = "") -> Decision:
    _ensure_open(entry.plan)
    if entry.state == State.REJECTED:
        raise ActionRefused("This entry is already rejected.")
    following = _following(entry)
    if following is not None and following.state == State.MERGED:
        raise ActionRefused(
            f"“{following.title}” is merged into this entry; undo that merge before rejecting it."
        )
    return _set_state(
        entry, State.REJECTED, action="entry.reject", actor=actor, version=version, note=note
    )


def merge_into_previous(entry: Entry, *, actor, version: int, note: str = "") -> Decision:
    _ensure_open(entry.plan)
    if entry.state == State.MERGED:
        raise ActionRefused("This entry is already merged into the one before it.")
    previous = _previous(entry)
    if previous is None:
        raise ActionRefused("The first entry has no entry before it to merge into.")
    if previous.state == State.REJECTED:
        raise ActionRefused(
            f"The entry before this one (“{previous.title}”) is rejected; "
            "a merge needs a kept entry to join."
        )
    return _set_state(
        entry, State.MERGED, action="entry.merge", actor=actor, version=version, note=note
    )


def confirm_anchor(entry: Entry, *, actor, version: int, note: str = "") -> Decision:
    """The editor has looked at a fuzzy, ambiguous or orphaned anchor's span and says it is
    right; the anchor is re-made from the text at that span so the export replays exactly."""
    _ensure_open(entry.plan)
    if not entry_anchor_unsettled(entry):
        raise ActionRefused("This entry's anchor needs no confirming.")
    text = document_text(entry.plan)
    if not 0 <= entry.span_start < entry.span_end <= len(text):
        raise ActionRefused(
            "This anchor was not found in the text, so there is no span to confirm; "
            "edit its boundaries instead."
        )
    anchor = make_anchor(text, entry.span_start, entry.span_end)
    changes = {"anchor_confirmed": True}
    changes.update(
        {name: value for name, value in anchor.to_dict().items() if getattr(entry, name) != value}
    )
    return _decide_while_open(
        entry,
        expected_version=version,
        actor=actor,
        action="entry.confirm_anchor",
        changes=changes,
        note=note,
    )


def undo(entry: Entry, *, actor, version: int, note: str = "") -> Decision:
    _ensure_open(entry.plan)
    target = undo_target(entry)
    if target is None:
        raise ActionRefused("There is nothing on this entry to undo.")
    _check_restorable(entry, {k: v for k, v in target.before.items() if k in RESTORABLE})
    return take_back(
        entry,
        target,
        actor=actor,
        expected_version=version,
        action="entry.undo",
        note=note,
        fields=RESTORABLE,
        guard=lambda: _ensure_still_open(entry),
    )


def _check_restorable(entry: Entry, restored: dict) -> None:
    """Refuse an undo that would put back what the neighbours have since made wrong: the
    same rules reject, merge and edit keep."""
    state = restored.get("state", entry.state)
    start = restored.get("span_start", entry.span_start)
    end = restored.get("span_end", entry.span_end)
    path = restored.get("path", entry.path)
    # Only what the undo would move can clash with a neighbour: ask for no other.
    previous = _previous(entry) if state == State.MERGED or start < entry.span_start else None
    following = _following(entry) if state == State.REJECTED or end > entry.span_end else None
    if state == State.REJECTED and following is not None and following.state == State.MERGED:
        raise ActionRefused(
            f"Undoing would reject this entry, but “{following.title}” is merged into it; "
            "undo that merge first."
        )
    if state == State.MERGED and (previous is None or previous.state == State.REJECTED):
        raise ActionRefused(
            "Undoing would merge this entry into the one before it, which is rejected "
            "(or there is none)."
        )
    if previous is not None and start < previous.span_end:
        raise ActionRefused(
            f"Undoing would start this entry at {start}, before the previous entry "
            f"(“{previous.title}”) ends at {previous.span_end}; edit it instead."
        )
    if following is not None and end > following.span_start:
        raise ActionRefused(
            f"Undoing would end this entry at {end}, after the next entry "
            f"(“{following.title}”) starts at {following.span_start}; edit it instead."
        )
    if path != entry.path and entry.plan.entries.filter(path=path).exclude(pk=entry.pk).exists():
        raise ActionRefused(
            f"Undoing would give this entry the path {path}, which another entry of this plan "
            "already has; edit it instead."
        )


@dataclass(frozen=True)
class EditRequest:
    title: str
    path: str
    start: str | int
    end: str | int
    note: str = ""
    # The editor saw the nearest paragraph boundaries and kept their own offsets anyway.
    keep_boundaries: bool = False


def edit(entry: Entry, request: EditRequest, *, actor, version: int) -> Decision:
    _ensure_open(entry.plan)
    if version != entry.version:
        # Offers and field errors redraw the form at the entry's version now: one the editor
        # never saw is a conflict first, or the next submit would overwrite it unseen.
        raise StaleVersion(entry, latest_decision(entry))
    text = document_text(entry.plan)
    title, path, start, end = _checked_edit(entry, request, text)
    offers = {}
    if not request.keep_boundaries:
        if start != entry.span_start and not is_paragraph_start(text, start):
            offers["start"] = nearest_paragraph_starts(text, start)
        if end != entry.span_end and not is_paragraph_end(text, end):
            offers["end"] = nearest_paragraph_ends(text, end)
        offers = {name: found for name, found in offers.items() if found}
    if offers:
        raise BoundaryOffer(offers)

    changes: dict = {}
    if title != entry.title:
        changes["title"] = title
    if path != entry.path:
        changes["path"] = path
    if (start, end) != (entry.span_start, entry.span_end):
        changes["span_start"], changes["span_end"] = start, end
    # Whoever edits an entry has looked at its span, so the anchor is re-made from the text
    # there: that also settles a fuzzy, ambiguous or orphaned anchor.
    anchor = make_anchor(text, start, end).to_dict()
    changes.update({name: value for name, value in anchor.items() if getattr(entry, name) != value})
    if entry.anchor_status not in PLACED or entry.anchor_score != 1.0:
        changes.update(anchor_status=AnchorStatus.EXACT, anchor_score=1.0)
    if not changes and entry.state in KEPT_STATES:
        raise EditRefused({"form": ["Nothing changed: change the title, the path or a boundary."]})

    edited = differs_from_proposal(entry, title=title, path=path, span=(start, end), text=text)
    state = State.EDITED if edited else State.ACCEPTED
    changes.update(_decided(actor, state, request.note))
    return _decide_while_open(
        entry,
        expected_version=version,
        actor=actor,
        action="entry.edit",
        changes=changes,
        note=request.note,
    )


def _checked_edit(entry: Entry, request: EditRequest, text: str) -> tuple[str, str, int, int]:
    errors: dict[str, list[str]] = {}
    title = (request.title or "").strip()
    path = (request.path or "").strip()
    start = _offset(request.start, "start", errors)
    end = _offset(request.end, "end", errors)
    for name, value in (("title", title), ("path", path)):
        limit = Entry._meta.get_field(name).max_length
        if len(value) > limit:
            errors.setdefault(name, []).append(f"At most {limit} characters, not {len(value)}.")
    if errors:
        raise EditRefused(errors)
    if not 0 <= start < end <= len(text):
        problem = f"A span lies within 0–{len(text)}, start before end: not {start}–{end}."
        raise EditRefused({"form": [problem]})

    previous, following = _previous(entry), _following(entry)
    if previous is not None and start < previous.span_end:
        errors.setdefault("start", []).append(
            f"Starts before the previous entry (“{previous.title}”) ends at {previous.span_end}."
        )
    if following is not None and end > following.span_start:
        errors.setdefault("end", []).append(
            f"Ends after the next entry (“{following.title}”) starts at {following.span_start}."
        )
    if path and entry.plan.entries.filter(path=path).exclude(pk=entry.pk).exists():
        errors.setdefault("path", []).append("Another entry of this plan already has this path.")
    if errors:
        raise EditRefused(errors)

    # The plan grammar is grounding's: ask it about this entry as a one-entry plan.
    payload = {
        "source_sha256": entry.plan.source_sha256,
        "extractor_id": entry.plan.extractor_id or "unknown",
        "extractor_version": entry.plan.extractor_version or "unknown",
        "proposed_by": entry.plan.proposed_by or "unknown",
        "adjudicated": False,
        "entries": [
            {
                "path": path,
                "title": title,
                "span": [start, end],
                "anchor": make_anchor(text, start, end).to_dict(),
                "derived": [PROPOSED_MARKER, *(entry.rules or ["rule:edited"])],
            }
        ],
    }
    try:
        parse_segmentation_plan(payload, text)
    except PlanError as error:
        name = error.field if error.field in ("title", "path") else "form"
        raise EditRefused({name: [_sentence(error.problem)]}) from error
    if not text[start:end].strip():
        raise EditRefused({"form": ["The new span holds only whitespace."]})
    return title, path, start, end


def _offset(value, name: str, errors: dict) -> int:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        errors.setdefault(name, []).append("Enter a character offset (a whole number).")
        return 0


def _sentence(problem: str) -> str:
    problem = problem.strip()
    return problem[:1].upper() + problem[1:] + ("" if problem.endswith(".") else ".")


# --- paragraph boundaries ------------------------------------------------------------------


def paragraph_boundaries(text: str) -> tuple[list[int], list[int]]:
    """Offsets where paragraphs start and where they end (the end excludes the blank line)."""
    starts, ends = [0], []
    for match in _PARAGRAPH_BREAK.finditer(text):
        ends.append(match.start())
        starts.append(match.end())
    ends.append(len(text.rstrip()))
    return starts, ends


def is_paragraph_start(text: str, offset: int) -> bool:
    return offset in paragraph_boundaries(text)[0]


def is_paragraph_end(text: str, offset: int) -> bool:
    """At the end of a paragraph's text, or where the next paragraph starts (the proposer's
    entries end there, so that they tile the text), or at the end of the text."""
    starts, ends = paragraph_boundaries(text)
    return offset in ends or offset in starts[1:] or offset == len(text)


def _nearest(offsets: list[int], offset: int, count: int) -> list[int]:
    index = bisect.bisect_left(offsets, offset)
    around = offsets[max(0, index - count) : index + count]
    return sorted(sorted(around, key=lambda found: abs(found - offset))[:count])


def nearest_paragraph_starts(text: str, offset: int, count: int = 2) -> list[Boundary]:
    starts, _ = paragraph_boundaries(text)
    return [
        Boundary(found, _one_line(text[found : found + 48]) + "…")
        for found in _nearest(starts, offset, count)
    ]


def nearest_paragraph_ends(text: str, offset: int, count: int = 2) -> list[Boundary]:
    """Ends offered where the next paragraph starts, as the proposer ends its entries."""
    starts, _ = paragraph_boundaries(text)
    ends = sorted({*starts[1:], len(text)})
    return [
        Boundary(found, "…" + _one_line(text[max(0, found - 48) : found]))
        for found in _nearest(ends, offset, count)
    ]


def _one_line(snippet: str) -> str:
    return " ".join(snippet.split())


# --- many entries, and the plan itself -----------------------------------------------------


def rule_candidates(plan: Plan, rule: str) -> list[Entry]:
    """The PROPOSED entries that name `rule`, in order (filtered in Python: JSON lookups
    differ between SQLite and PostgreSQL)."""
    proposed = plan.entries.filter(state=State.PROPOSED).order_by("position")
    return [entry for entry in proposed if rule in (entry.rules or [])]


def accept_rule(plan: Plan, rule: str, *, actor, versions: dict[int, int]) -> list[Decision]:
    """Accept every listed PROPOSED entry of `rule`: one decision per entry, all or none.

    `versions` is what the confirmation page showed (entry id -> version); an entry that
    changed since, or one that was not listed, is not touched, and a stale one refuses all.
    """
    _ensure_open(plan)
    decisions = []
    with transaction.atomic():
        for entry in rule_candidates(plan, rule):
            if entry.pk in versions:
                entry.plan = plan
                decisions.append(accept(entry, actor=actor, version=versions[entry.pk]))
    if not decisions:
        raise ActionRefused(f"No proposed entry of {rule} is left to accept.")
    return decisions


def adjudication_problems(plan: Plan, entries: list[Entry]) -> list[str]:
    """Why the plan cannot be adjudicated yet (empty when it can)."""
    problems = counts_of_entries(entries).blockers
    previous = None
    for entry in entries:
        if entry.state == State.MERGED and (previous is None or previous.state == State.REJECTED):
            problems.append(
                f"“{entry.title}” is merged into an entry that is rejected (or into nothing)"
            )
        previous = entry
    if plan.status != Plan.Status.OPEN:
        problems.append("the plan is already adjudicated")
    return problems
