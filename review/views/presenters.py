"""What the plan page draws, as ready strings: the page draws hundreds of rows and spans,
and each template variable spared is time spared. A presenter wraps a row; the row itself
stays as the database gave it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from grounding.revisions import candidate_places, word_diff
from review.models import Entry, Plan

# How much of a long quote the entry row shows at each end.
QUOTE_END_CHARS = 60
CONTEXT_CHARS = 24
STATE_MARKS = {
    Entry.State.PROPOSED: "○",
    Entry.State.ACCEPTED: "✓",
    Entry.State.EDITED: "✎",
    Entry.State.MERGED: "↑",
    Entry.State.REJECTED: "✕",
}


class TemplateItems:
    """A presenter a template reads fast. A template looks a name up as an item first, and
    only after that fails (raising and catching an exception) as an attribute: answering the
    first try spares the plan page tens of thousands of exceptions (bench_plan_page)."""

    __slots__ = ()

    def __getitem__(self, name: str):
        return getattr(self, name)


# Stands for a pk in a route reversed once (EntryRoute); no row's pk is this large.
PK_PLACEHOLDER = 2**63 - 1


class EntryRoute:
    """A route reversed once with a placeholder pk, then filled in for each row: reverse()
    takes about 30 µs, and reversing each whole row's six addresses would be a seventh of
    drawing a large plan page (bench_plan_views, bench_plan_page). This is the one place an
    address is put together from pieces."""

    __slots__ = ("head", "tail")

    def __init__(self, name: str, **kwargs):
        placeholder = f"/{PK_PLACEHOLDER}/"
        kwargs = {key: PK_PLACEHOLDER if value is None else value for key, value in kwargs.items()}
        self.head, found, self.tail = reverse(name, kwargs=kwargs).partition(placeholder)
        if not found:
            raise ValueError(f"The route {name!r} does not hold its pk as a path segment.")

    def __call__(self, pk: int | str) -> str:
        return f"{self.head}/{pk}/{self.tail}"


class _PlanAddress:
    """One of a plan's addresses, reversed the first time a PlanUrls is asked for it; with
    `per` (the route's other pk), an EntryRoute to fill in for each row."""

    def __init__(self, name: str, per: str | None = None):
        self.name, self.per = name, per

    def __set_name__(self, owner, attr: str) -> None:
        self.attr = attr

    def __get__(self, urls: PlanUrls | None, owner=None):
        if urls is None:
            return self
        if self.per is None:
            address = reverse(self.name, args=[urls.project, urls.plan_pk])
        else:
            address = EntryRoute(
                self.name, project=urls.project, pk=urls.plan_pk, **{self.per: None}
            )
        urls.__dict__[self.attr] = address  # read from the instance from now on
        return address


class PlanUrls(TemplateItems):
    """The plan page's addresses, each reversed once per page (and only if drawn), handed to
    its templates; the script reads them from the attributes the templates draw."""

    page = _PlanAddress("plan")
    history = _PlanAddress("plan-history")
    accept_rule = _PlanAddress("plan-accept-rule")
    adjudicate = _PlanAddress("plan-adjudicate")
    export = _PlanAddress("plan-export")
    annotations = _PlanAddress("plan-annotations")
    label_studio = _PlanAddress("plan-label-studio")
    entry_list = _PlanAddress("plan-entry-list", per="number")
    entry = _PlanAddress("entry", per="entry_pk")
    edit = _PlanAddress("entry-edit", per="entry_pk")

    def __init__(self, project: str, plan_pk: int):
        """`project`: the slug of the plan's project, the first part of every address."""
        self.project, self.plan_pk = project, plan_pk
        self._decide: dict[str, EntryRoute] = {}

    def decide(self, action: str) -> EntryRoute:
        """The route of one of ENTRY_ACTIONS."""
        if action not in self._decide:
            route = EntryRoute(
                "entry-decide",
                project=self.project,
                pk=self.plan_pk,
                entry_pk=None,
                action=action,
            )
            self._decide[action] = route
        return self._decide[action]

    @cached_property
    def comments(self) -> EntryRoute:
        """An entry's discussion page (its route names the entry alone, not the plan)."""
        return EntryRoute("comments", project=self.project, kind="entry", pk=None)

    def at_entry(self, entry_pk: int | str) -> str:
        """The plan's page opened at the entry."""
        return f"{self.page}?entry={entry_pk}#entry-{entry_pk}"


def _row_address(route: Callable[[PlanUrls], EntryRoute]) -> property:
    """A row's address: its entry's pk in one of the plan's routes."""
    return property(lambda row: route(row.urls)(row.key))


class EntryRow(TemplateItems):
    """One entry as its row and its span mark show it: every name a template reads is
    here, the entry's own fields among them."""

    __slots__ = (
        "entry",
        "urls",
        "pk",
        "key",
        "title",
        "path",
        "state",
        "state_label",
        "anchor_status",
        "span_start",
        "span_end",
        "version",
        "number_label",
        "version_label",
        "state_text",
        "seg_label",
        "span_label",
        "rules_label",
        "quote_head",
        "quote_tail",
        "prefix_tail",
        "suffix_head",
        "unsettled",
        "anchor_label",
        "decided_label",
        "can_accept",
        "can_reject",
        "can_merge",
        "undoable",
        "needs_you",
        "doubt",
        "carried_label",
        "suggestion",
    )

    def __init__(
        self,
        entry: Entry,
        urls: PlanUrls,
        *,
        number: int | None = None,
        decider: str = "",
        undoable: bool = False,
        text: str | None = None,
        merged_end: int | None = None,
    ):
        self.entry, self.urls = entry, urls
        self.pk, self.key = entry.pk, str(entry.pk)
        self.title, self.path, self.state = entry.title, entry.path, entry.state
        self.anchor_status, self.version = entry.anchor_status, entry.version
        self.span_start, self.span_end = entry.span_start, entry.span_end
        self.number_label = str(entry.number if number is None else number)
        self.version_label = str(entry.version)
        self.state_label = entry.get_state_display()
        self._labels(entry, merged_end)
        self._anchor(entry)
        self.decided_label = ""
        if entry.decided_by_id and entry.decided_at:
            when = timezone.localtime(entry.decided_at).strftime("%Y-%m-%d %H:%M")
            self.decided_label = f"{self.state_label} by {decider or 'someone'} · {when}"
            if entry.note:
                self.decided_label += f" · “{entry.note}”"
        self.can_accept = self.state not in Entry.KEPT_STATES
        self.can_reject = self.state != Entry.State.REJECTED
        # The first entry has nothing to merge into.
        self.can_merge = self.state != Entry.State.MERGED and entry.position > 0
        self.undoable = undoable
        self.needs_you = entry.needs_a_person
        self.doubt = anchor_doubt(entry, text) if text is not None else None
        self.carried_label = carried_label(entry)
        self.suggestion = entry.suggestion

    def _labels(self, entry: Entry, merged_end: int | None) -> None:
        state, label, number_label = self.state, self.state_label, self.number_label
        mark = STATE_MARKS[state]
        self.state_text = format_html('<span aria-hidden="true">{}</span> {}', mark, label)
        if state == Entry.State.PROPOSED:
            self.seg_label = number_label
        elif state == Entry.State.MERGED:
            self.seg_label = f"{number_label} ↑ merged"
        else:
            self.seg_label = f"{number_label} {mark} {label.lower()}"
        self.span_label = f"{entry.span_start}–{entry.span_end}"
        if merged_end is not None:
            # The entries merged into it are part of its text now (Entry.objects.merged_end).
            self.span_label = f"{entry.span_start}–{merged_end}, with what is merged into it"
        self.rules_label = ", ".join(entry.rules or []) or "no rule"

    def _anchor(self, entry: Entry) -> None:
        quote = entry.quote
        if len(quote) > 2 * QUOTE_END_CHARS + 10:
            self.quote_head, self.quote_tail = quote[:QUOTE_END_CHARS], quote[-QUOTE_END_CHARS:]
        else:
            self.quote_head, self.quote_tail = quote, ""
        self.prefix_tail = entry.prefix[-CONTEXT_CHARS:]
        self.suffix_head = entry.suffix[:CONTEXT_CHARS]
        self.unsettled = entry.anchor_unsettled
        anchor = f"Anchor: {entry.get_anchor_status_display().lower()}"
        if entry.anchor_confirmed:
            anchor += ", confirmed by an editor"
        elif self.unsettled:
            anchor += ", confirm it or edit the entry"
        self.anchor_label = anchor

    # Each row's addresses, put together only for the rows drawn whole.
    row_url = _row_address(lambda urls: urls.entry)
    edit_url = _row_address(lambda urls: urls.edit)
    accept_url = _row_address(lambda urls: urls.decide("accept"))
    reject_url = _row_address(lambda urls: urls.decide("reject"))
    merge_url = _row_address(lambda urls: urls.decide("merge"))
    confirm_url = _row_address(lambda urls: urls.decide("confirm-anchor"))
    undo_url = _row_address(lambda urls: urls.decide("undo"))
    comments_url = _row_address(lambda urls: urls.comments)

    @property
    def page_url(self) -> str:
        return self.urls.at_entry(self.key)


@dataclass(frozen=True)
class AnchorDoubt:
    """What a doubtful anchor quoted against the text found at its span, word by word, and
    for an ambiguous one every place its quote stands (offset and a little text)."""

    words: tuple
    same_quote: bool
    places: tuple[tuple[int, str], ...] = ()


def anchor_doubt(entry: Entry, text: str) -> AnchorDoubt | None:
    """Only for an anchor in doubt: confirming it is never blind."""
    if not entry.anchor_in_doubt:
        return None
    found = ""
    if 0 <= entry.span_start < entry.span_end <= len(text):
        found = text[entry.span_start : entry.span_end]
    places = ()
    if entry.anchor_status == Entry.AnchorStatus.AMBIGUOUS:
        places = tuple(
            (start, " ".join(text[start : start + 2 * QUOTE_END_CHARS].split()) + "…")
            for start in candidate_places(text, entry.quote)
        )
    return AnchorDoubt(word_diff(entry.quote, found), entry.quote == found, places)


def carried_label(entry: Entry) -> str:
    """Where a carried entry came from, in a line; empty on a plan that was not carried."""
    carried = entry.carried or {}
    fate, revision = carried.get("fate"), carried.get("revision")
    state = str(carried.get("state", "")).lower()
    by = f" by {carried['by']}" if carried.get("by") else ""
    if fate == "new":
        return "New text in this revision: proposed by the proposer."
    if fate == "kept" and entry.state != Entry.State.PROPOSED:
        return f"Carried from revision {revision}, where it was {state}{by}."
    if fate == "doubtful" and state != Entry.State.PROPOSED:
        return f"Suggestion from revision {revision}: it was {state}{by} (decide it again here)."
    if fate:
        return f"From revision {revision}, where it was still undecided."
    return ""


@dataclass
class Region(TemplateItems):
    """A stretch of the document: one entry's span and the uncovered text after it (or, with
    no entry, the uncovered text before the first entry)."""

    entry: Entry | None
    text: str = ""
    gap: str = ""
    found: bool = True

    @property
    def body(self) -> str:
        """The span's text up to its trailing blank lines, where its end mark is drawn."""
        return self.text.rstrip()

    @property
    def trailing(self) -> str:
        return self.text[len(self.text.rstrip()) :]


def region(entry: Entry | None, text: str, start: int, end: int, gap_end: int) -> Region:
    if entry is not None and not 0 <= entry.span_start < entry.span_end <= len(text):
        return Region(entry, found=False)
    return Region(entry, text[start:end], text[end:gap_end] if gap_end > end else "")


def document_regions(text: str, entries: list[Entry]) -> tuple[Region, list[Region]]:
    """The lead (text before the first entry) and one region per entry, in order, so that
    every character of the text appears once. Overlaps, which a valid plan never has, are
    clipped rather than drawn twice."""
    placed = [0 <= e.span_start < e.span_end <= len(text) for e in entries]
    next_starts, upcoming = [0] * len(entries), len(text)
    for index in range(len(entries) - 1, -1, -1):
        next_starts[index] = upcoming
        if placed[index]:
            upcoming = entries[index].span_start
    lead, cursor, regions = Region(None, gap=text[:upcoming]), upcoming, []
    for entry, found, next_start in zip(entries, placed, next_starts, strict=True):
        if not found:
            regions.append(Region(entry, found=False))
            continue
        start = max(entry.span_start, cursor)
        cursor = max(entry.span_end, start)
        regions.append(region(entry, text, start, cursor, next_start))
    return lead, regions


# The document pane is drawn in blocks of about this many lines, each laid out and painted only
# when it comes into view (content-visibility in app.css, which assumes this height until then).
CHUNK_LINES = 100
# Characters in a line of the pane, roughly (46rem of serif text), to guess where text wraps.
LINE_CHARS = 90


def estimated_lines(text: str) -> int:
    return sum(len(line) // LINE_CHARS + 1 for line in text.split("\n")) - 1


def document_chunks(rows: list) -> list[list]:
    """The pane's (row, region) pairs in order, cut into runs of about CHUNK_LINES lines, so
    that a browser lays out only the runs in view, and a decision redraws inside one run."""
    chunks, chunk, lines = [], [], 0
    for row, region in rows:
        chunk.append((row, region))
        lines += estimated_lines(region.text) + estimated_lines(region.gap)
        if lines >= CHUNK_LINES:
            chunks.append(chunk)
            chunk, lines = [], 0
    if chunk:
        chunks.append(chunk)
    return chunks


# The entry list is drawn in lists of this many entries, each laid out only when in view. One
# block per entry would have the browser watch thousands of them on every frame.
ENTRY_CHUNK = 25


# Lists this many away from the current entry's are drawn whole with the page; the others are
# drawn light (each entry's number, title and state) and drawn whole as they come into view
# (plan-lists.js asks for them): at 600 entries, whole lists everywhere were 60% of the page.
WHOLE_AROUND = 1


@dataclass(frozen=True)
class EntryChunk:
    rows: list
    label: str  # "Entries 26–50", for a screen reader meeting one of the lists
    number: int  # 1 for the first list
    whole: bool = True

    @property
    def light_url(self) -> str:
        """Where plan-lists.js asks for the list drawn whole."""
        return self.rows[0][0].urls.entry_list(self.number)


def entry_chunks(
    rows: list, *, current: int | None = None, first_number: int = 1
) -> list[EntryChunk]:
    """The (row, region) pairs in lists of ENTRY_CHUNK; with the index of the `current` row,
    only the lists near it are whole. `first_number` is the first list's number (a list drawn
    on its own is not the first)."""
    near = None if current is None else current // ENTRY_CHUNK
    chunks = []
    for index, start in enumerate(range(0, len(rows), ENTRY_CHUNK)):
        part = rows[start : start + ENTRY_CHUNK]
        first, last = part[0][0].number_label, part[-1][0].number_label
        label = f"Entries {first}–{last}" if first != last else f"Entry {first}"
        whole = near is None or abs(index - near) <= WHOLE_AROUND
        chunks.append(EntryChunk(part, label, first_number + index, whole))
    return chunks


@dataclass(frozen=True)
class PanelAction:
    name: str
    label: str
    url: str
    note_required: bool = False


@dataclass(frozen=True)
class DecisionPanel:
    """The decision panel the case and answer pages share (`_decision_panel.html`)."""

    id: str  # the panel's element id, and the prefix of its inner ids
    css_class: str
    heading: str
    thing: str  # what is decided on, as the alerts name it
    obj: object
    state: str
    state_label: str
    actions: tuple[PanelAction, ...]
    form_url: str
    undo_url: str
    note_hint: str
    note_rows: int
    advice: str
    # The page's badge of the state (a partial), redrawn out of band with the panel.
    badge: str
    # The case page's keys (u, o, w, z) read these data attributes.
    keys: bool = False
    # What each button means here, said beside them.
    explain: str = ""


def superseded_notice(plan: Plan) -> dict:
    """What a superseded plan's page says above it: the revision and plan that stand for it
    now (nothing, and no query, for any other plan)."""
    if not plan.is_superseded:
        return {}
    latest, current = plan.current_plan()
    return {"superseded": {"revision": latest, "plan": current}}
