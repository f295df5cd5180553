"""What an editor may do to one entry of a segmentation plan, and the rules each action keeps:
accept, reject, merge into the previous entry, confirm a doubtful anchor, edit, and undo.

Validation that is about plans (path grammar, titles, spans, anchors) is asked of `grounding`;
what is checked here is what only the database knows: neighbours, path uniqueness, state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grounding.anchors import PLACED, make_anchor
from grounding.paragraphs import (
    Boundary,
    is_paragraph_end,
    is_paragraph_start,
    nearest_paragraph_ends,
    nearest_paragraph_starts,
)
from grounding.segmentation import PROPOSED_MARKER, PlanError, parse_segmentation_plan
from review.decisions import (
    ActionRefused,
    decide,
    decided_by,
    ensure_open,
    ensure_seen,
    last_undoable,
    record_decision,
    undo_latest,
)
from review.models import Decision, Entry

State = Entry.State
AnchorStatus = Entry.AnchorStatus

UNDO = "entry.undo"
# An entry's anchor: what finds its span again in another text, and how surely it was found.
ANCHOR_FIELDS = ("quote", "prefix", "suffix", "anchor_status", "anchor_score", "anchor_confirmed")
# Fields an undo may put back; anything else in a snapshot is ignored.
RESTORABLE = frozenset(
    {
        "state",
        "title",
        "path",
        "span_start",
        "span_end",
        *ANCHOR_FIELDS,
        "decided_by_id",
        "decided_at",
        "note",
    }
)


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


# --- what the actions ask ---------------------------------------------------------------------


def undo_target(entry: Entry) -> Decision | None:
    """The latest decision on `entry` that an undo would take back."""
    return last_undoable(entry, UNDO)


def neighbours(entry: Entry) -> tuple[Entry | None, Entry | None]:
    """The entries just before and just after this one in its plan."""
    return _previous(entry), _following(entry)


def _siblings(entry: Entry):
    return Entry.objects.filter(plan_id=entry.plan_id).defer("proposed")


# One query each: an action that needs only one side of an entry asks only for that side.
def _previous(entry: Entry) -> Entry | None:
    return _siblings(entry).filter(position__lt=entry.position).order_by("-position").first()


def _following(entry: Entry) -> Entry | None:
    return _siblings(entry).filter(position__gt=entry.position).order_by("position").first()


# --- keeping the plan open --------------------------------------------------------------------


def _decide_state(
    entry: Entry, state: str, action: str, actor, expected_version: int, note: str, batch=""
) -> Decision:
    """Move `entry` to `state`, logged as `action`: refused when its plan is closed, it moved on
    since `expected_version`, it is in that state already, or `state_refusal` says why not."""
    ensure_open(entry.plan)
    ensure_seen(entry, expected_version)
    if entry.state == state:
        raise ActionRefused(_already(entry))
    refusal = state_refusal(entry, state)
    if refusal:
        raise ActionRefused(refusal)
    return record_decision(
        entry,
        "state",
        state,
        action=action,
        actor=actor,
        expected_version=expected_version,
        note=note,
        batch=batch,
    )


def _already(entry: Entry) -> str:
    if entry.state == State.MERGED:
        return "This entry is already merged into the one before it."
    return f"This entry is already {entry.get_state_display().lower()}."


def state_refusal(entry: Entry, state: str) -> str | None:
    """`Entry.refusal_for`, reading only the neighbour that `state` is refused beside."""
    previous = _previous(entry) if state == State.MERGED else None
    following = _following(entry) if state == State.REJECTED else None
    return entry.refusal_for(state, previous, following)


# --- the actions ------------------------------------------------------------------------------


def accept_entry(
    entry: Entry, *, actor, expected_version: int, note: str = "", batch: str = ""
) -> Decision:
    """Accept `entry` as proposed (an edit when it differs from the proposal); `batch` names
    the accept-all it is one of."""
    # An entry whose values differ from the proposal is kept as an edit, never as an accept.
    state = State.EDITED if entry.differs_from_proposal() else State.ACCEPTED
    return _decide_state(entry, state, "entry.accept", actor, expected_version, note, batch)


def reject_entry(entry: Entry, *, actor, expected_version: int, note: str = "") -> Decision:
    return _decide_state(entry, State.REJECTED, "entry.reject", actor, expected_version, note)


def merge_entry(entry: Entry, *, actor, expected_version: int, note: str = "") -> Decision:
    """Merge the entry into the one before it."""
    return _decide_state(entry, State.MERGED, "entry.merge", actor, expected_version, note)


def confirm_anchor(entry: Entry, *, actor, expected_version: int, note: str = "") -> Decision:
    """The editor has looked at a fuzzy, ambiguous or orphaned anchor's span and says it is
    right; the anchor is re-made from the text at that span so the export replays exactly."""
    ensure_open(entry.plan)
    ensure_seen(entry, expected_version)
    if not entry.anchor_in_doubt:
        raise ActionRefused("This entry's anchor needs no confirming.")
    text = entry.plan.document_text
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
    return decide(
        entry,
        expected_version=expected_version,
        actor=actor,
        action="entry.confirm_anchor",
        changes=changes,
        note=note,
    )


def undo_entry(entry: Entry, *, actor, expected_version: int, note: str = "") -> Decision:
    ensure_open(entry.plan)
    ensure_seen(entry, expected_version)
    return undo_latest(
        entry,
        actor=actor,
        expected_version=expected_version,
        action=UNDO,
        note=note,
        fields=RESTORABLE,
        check=lambda restored: _check_restorable(entry, restored),
        nothing="There is nothing on this entry to undo.",
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
    if path != entry.path and _path_taken(entry, path):
        raise ActionRefused(
            f"Undoing would give this entry the path {path}, which another entry of this plan "
            "already has; edit it instead."
        )


def _path_taken(entry: Entry, path: str) -> bool:
    return Entry.objects.filter(plan_id=entry.plan_id, path=path).exclude(pk=entry.pk).exists()


# --- editing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class EditRequest:
    title: str
    path: str
    start: int
    end: int
    note: str = ""
    # The editor saw the nearest paragraph boundaries and kept their own offsets anyway.
    keep_boundaries: bool = False
    # What the form could not read, by field: refused after the version check, so that a
    # decision someone made meanwhile is a conflict first.
    unreadable: dict[str, list[str]] = field(default_factory=dict)


def edit_entry(
    entry: Entry,
    request: EditRequest,
    *,
    actor,
    expected_version: int,
    action: str = "entry.edit",
    state: str | None = None,
    note: str | None = None,
) -> Decision:
    """Edit the entry's title, path or boundaries, kept (edited, or accepted when that is what
    was proposed). A curator settling a double review edits with its own `action` and log
    `note`, and may give the entry another `state` (rejected or merged) beside its neighbours."""
    ensure_open(entry.plan)
    # Offers and field errors redraw the form at the entry's version now: one the editor
    # never saw is a conflict first, or the next submit would overwrite it unseen.
    ensure_seen(entry, expected_version)
    if request.unreadable:
        raise EditRefused(request.unreadable)
    text = entry.plan.document_text
    title, path, start, end = _checked_edit(entry, request, text)
    if not request.keep_boundaries:
        _offer_boundaries(entry, text, start, end)

    changes = _edit_changes(entry, text, title, path, (start, end))
    if not changes and entry.state in Entry.KEPT_STATES:
        raise EditRefused({"form": ["Nothing changed: change the title, the path or a boundary."]})
    state = _edited_state(entry, state, text, title, path, (start, end))
    note = request.note if note is None else note
    changes.update(state=state, **decided_by(actor, note))
    return decide(
        entry,
        expected_version=expected_version,
        actor=actor,
        action=action,
        changes=changes,
        note=note,
    )


def _edit_changes(entry: Entry, text: str, title: str, path: str, span: tuple[int, int]) -> dict:
    """What an edit changes of `entry`: its title, path and span as asked, and the anchor."""
    start, end = span
    changes: dict = {}
    if title != entry.title:
        changes["title"] = title
    if path != entry.path:
        changes["path"] = path
    if span != (entry.span_start, entry.span_end):
        changes["span_start"], changes["span_end"] = start, end
    # Whoever edits an entry has looked at its span, so the anchor is re-made from the text
    # there: that also settles a fuzzy, ambiguous or orphaned anchor.
    anchor = make_anchor(text, start, end).to_dict()
    changes.update({name: value for name, value in anchor.items() if getattr(entry, name) != value})
    if entry.anchor_status not in PLACED or entry.anchor_score != 1.0:
        changes.update(anchor_status=AnchorStatus.EXACT, anchor_score=1.0)
    return changes


def _edited_state(
    entry: Entry, state: str | None, text: str, title: str, path: str, span: tuple[int, int]
) -> str:
    """The state an edit leaves `entry` in: kept (edited, or accepted when that is what was
    proposed), or the rejected or merged state a curator gave, if its neighbours allow it."""
    if state in (State.REJECTED, State.MERGED):
        refusal = state_refusal(entry, state)
        if refusal:
            raise EditRefused({"state": [refusal]})
        return state
    if state is None or state in Entry.KEPT_STATES:
        edited = entry.differs_from_proposal(title=title, path=path, span=span, text=text)
        return State.EDITED if edited else State.ACCEPTED
    raise EditRefused({"state": [f"An edited entry is kept, rejected or merged, not {state}."]})


def _offer_boundaries(entry: Entry, text: str, start: int, end: int) -> None:
    """Refuse with the nearest paragraph boundaries when a moved boundary cuts a paragraph."""
    joined = entry.plan.pages_joined
    offers = {}
    if start != entry.span_start and not is_paragraph_start(text, start, pages_joined=joined):
        offers["start"] = nearest_paragraph_starts(text, start, 4, pages_joined=joined)
    if end != entry.span_end and not is_paragraph_end(text, end, pages_joined=joined):
        offers["end"] = nearest_paragraph_ends(text, end, 4, pages_joined=joined)
    offers = _acceptable_offers(entry, text, offers, start, end)
    if offers:
        raise BoundaryOffer(offers)


def nearby_boundaries(entry: Entry, text: str, count: int = 3) -> dict[str, list[Boundary]]:
    """Paragraph starts near the entry's start and ends near its end, for the edit form: only
    those an edit would accept."""
    joined = entry.plan.pages_joined
    offers = {
        "start": nearest_paragraph_starts(text, entry.span_start, count + 1, pages_joined=joined),
        "end": nearest_paragraph_ends(text, entry.span_end, count + 1, pages_joined=joined),
    }
    return _acceptable_offers(entry, text, offers, entry.span_start, entry.span_end, count)


def _acceptable_offers(entry, text, offers, start, end, count=2) -> dict[str, list[Boundary]]:
    """The one rule for offers: a boundary is offered only if the edit it makes would be
    accepted (within the text, inside the neighbours, more than white space)."""
    previous, following = neighbours(entry)
    kept = {
        "start": [
            boundary
            for boundary in offers.get("start", [])
            if not _span_problems(text, boundary.offset, end, previous, following)
        ][:count],
        "end": [
            boundary
            for boundary in offers.get("end", [])
            if not _span_problems(text, start, boundary.offset, previous, following)
        ][:count],
    }
    return {name: found for name, found in kept.items() if found and name in offers}


def _checked_edit(entry: Entry, request: EditRequest, text: str) -> tuple[str, str, int, int]:
    title = (request.title or "").strip()
    path = (request.path or "").strip()
    errors: dict[str, list[str]] = {}
    start = _offset(request.start, "start", errors)
    end = _offset(request.end, "end", errors)
    for name, value in (("title", title), ("path", path)):
        limit = Entry._meta.get_field(name).max_length
        if len(value) > limit:
            errors.setdefault(name, []).append(f"At most {limit} characters, not {len(value)}.")
    if errors:
        raise EditRefused(errors)
    previous, following = neighbours(entry)
    problems = _span_problems(text, start, end, previous, following)
    if "form" in problems:
        raise EditRefused(problems)
    if path and _path_taken(entry, path):
        problems["path"] = ["Another entry of this plan already has this path."]
    if problems:
        raise EditRefused(problems)
    _check_grammar(entry, title, path, start, end, text)
    if not text[start:end].strip():
        raise EditRefused({"form": ["The new span holds only whitespace."]})
    return title, path, start, end


def _span_problems(
    text: str, start: int, end: int, previous: Entry | None, following: Entry | None
) -> dict[str, list[str]]:
    """What is wrong with the span `start`–`end` for an entry between these neighbours, by
    form field: the rule an edit is held to, and every offered boundary with it."""
    if not 0 <= start < end <= len(text):
        return {"form": [f"A span lies within 0–{len(text)}, start before end: not {start}–{end}."]}
    problems: dict[str, list[str]] = {}
    if previous is not None and start < previous.span_end:
        problems["start"] = [
            f"Starts before the previous entry (“{previous.title}”) ends at {previous.span_end}."
        ]
    if following is not None and end > following.span_start:
        problems["end"] = [
            f"Ends after the next entry (“{following.title}”) starts at {following.span_start}."
        ]
    if not problems and not text[start:end].strip():
        problems["form"] = ["The new span holds only whitespace."]
    return problems


def _check_grammar(entry: Entry, title: str, path: str, start: int, end: int, text: str) -> None:
    """The plan grammar is grounding's: ask it about this entry as a one-entry plan."""
    plan = entry.plan
    payload = {
        "source_sha256": plan.source_sha256,
        "extractor_id": plan.extractor_id or "unknown",
        "extractor_version": plan.extractor_version or "unknown",
        "proposed_by": plan.proposed_by or "unknown",
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


def _offset(value, name: str, errors: dict) -> int:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        errors.setdefault(name, []).append("Enter a character offset (a whole number).")
        return 0


def _sentence(problem: str) -> str:
    problem = problem.strip()
    return problem[:1].upper() + problem[1:] + ("" if problem.endswith(".") else ".")


ENTRY_ACTIONS = {
    "accept": accept_entry,
    "reject": reject_entry,
    "merge": merge_entry,
    "undo": undo_entry,
    "confirm-anchor": confirm_anchor,
}
