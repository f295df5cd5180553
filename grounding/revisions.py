"""A document changes: where a plan's entries stand in the new text, and what changed.

`carry_plan` relocates every entry of a plan on a revision's text with one
`grounding.anchors.relocate` call (so neighbours can tell identical passages apart) and says
each entry's fate:

- kept: the anchor was placed exact or moved, so the text is the very text decided on and a
  decision on it may stand;
- doubtful: placed fuzzy or ambiguous, or orphaned where the paragraph diff shows its text was
  rewritten, or grown over new text of its own section (below); a person must decide it again;
- gone: orphaned, and every paragraph it covered was removed.

New text that no carried entry covers is offered with the proposer's entries for it, clipped
to that text, except where it is more of a carried entry's section: a stretch beside a carried
entry that the proposer's entry for that text also covers (a section whose heading stands and
whose body was rewritten) is claimed by the carried entry, which grows over it, so one section
comes back as one entry.

`paragraph_diff` is the readable change by paragraph; `word_diff` shows what an anchor quoted
against the text found at its span (and `word_sides` two reviews' texts side
by side). Both are difflib on short units, bounded.
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from grounding.anchors import FUZZY, ORPHANED, PLACED, Anchor, make_anchor, relocate
from grounding.paragraphs import paragraph_boundaries
from grounding.segmentation import PROPOSED_MARKER, PlanEntry

KEPT = "kept"
DOUBTFUL = "doubtful"
NEW = "new"
GONE = "gone"

# difflib's matcher is quadratic at worst: beyond these sizes a diff is not drawn word by word
# (a quote of 5,000 words is a whole chapter; its diff would not be read anyway).
MAX_DIFF_WORDS = 5_000
MAX_DIFF_PARAGRAPHS = 20_000
# Candidate places shown for an ambiguous anchor.
MAX_CANDIDATES = 8

_WORDS = re.compile(r"\s+|\w+|[^\w\s]")


class RevisionError(ValueError):
    """Texts that cannot be compared as asked; the message says which and why."""


# --- diffs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class WordChange:
    """A run of the word diff: "same", "removed" (only in the first text) or "added"; of
    `word_sides`: "same" or "differs"."""

    kind: str
    text: str


def word_diff(before: str, after: str) -> tuple[WordChange, ...]:
    """`before` turned into `after`, word by word (white space and punctuation are words too)."""
    old, new = _WORDS.findall(before), _WORDS.findall(after)
    if len(old) > MAX_DIFF_WORDS or len(new) > MAX_DIFF_WORDS:
        return _runs([("removed", before), ("added", after)])
    # White space never starts a match (it still joins two): else a lone space matched early
    # keeps the words either side of it from matching ("doors and exits" / "exits only").
    matcher = difflib.SequenceMatcher(str.isspace, old, new, autojunk=False)
    pieces = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            pieces.append(("same", "".join(old[i1:i2])))
            continue
        pieces.append(("removed", "".join(old[i1:i2])))
        pieces.append(("added", "".join(new[j1:j2])))
    return _runs(pieces)


def word_sides(first: str, second: str) -> tuple[tuple[WordChange, ...], tuple[WordChange, ...]]:
    """Two texts set side by side: each as runs that are "same" in both or that "differs"
    (only in this one), from `word_diff`, so each side reads back as its own text."""
    changes = word_diff(first, second)
    own = {"removed": 0, "added": 1}
    sides: tuple[list, list] = ([], [])
    for change in changes:
        for index, side in enumerate(sides):
            if change.kind == "same":
                side.append(("same", change.text))
            elif own[change.kind] == index:
                side.append(("differs", change.text))
    return _runs(sides[0]), _runs(sides[1])


def _runs(pieces: list[tuple[str, str]]) -> tuple[WordChange, ...]:
    runs: list[WordChange] = []
    for kind, text in pieces:
        if not text:
            continue
        if runs and runs[-1].kind == kind:
            runs[-1] = WordChange(kind, runs[-1].text + text)
        else:
            runs.append(WordChange(kind, text))
    return tuple(runs)


@dataclass(frozen=True)
class ParagraphChange:
    """One paragraph of the diff. `kind`: "same", "changed" (with its word diff), "removed",
    "added", "moved away" (where a paragraph stood) or "moved" (where it stands now, word for
    word). Spans are offsets into the old and the new text; None where there is none."""

    kind: str
    old_span: tuple[int, int] | None
    new_span: tuple[int, int] | None
    old_text: str = ""
    new_text: str = ""
    words: tuple[WordChange, ...] = ()


def paragraphs(text: str) -> list[tuple[int, int]]:
    """Each paragraph's span, blank lines left out (as `grounding.paragraphs` sees them)."""
    starts, ends = paragraph_boundaries(text)
    return [(start, end) for start, end in zip(starts, ends, strict=True) if end > start]


def paragraph_diff(old: str, new: str) -> tuple[ParagraphChange, ...]:
    """The change from `old` to `new`, paragraph by paragraph, in the new text's order, with
    removed paragraphs where they stood. A paragraph that moved appears twice: "moved away"
    where it stood and "moved" where it stands now, each with both spans."""
    old_spans, new_spans = paragraphs(old), paragraphs(new)
    if max(len(old_spans), len(new_spans)) > MAX_DIFF_PARAGRAPHS:
        raise RevisionError(
            f"the texts have {len(old_spans)} and {len(new_spans)} paragraphs; at most "
            f"{MAX_DIFF_PARAGRAPHS} are compared"
        )
    old_texts = [old[start:end] for start, end in old_spans]
    new_texts = [new[start:end] for start, end in new_spans]
    matcher = difflib.SequenceMatcher(None, old_texts, new_texts, autojunk=False)
    opcodes = matcher.get_opcodes()
    moves, rewrites = _paired(old_texts, new_texts, opcodes)
    moved_from = {j: i for i, j in moves.items()}
    rewrote = {j: i for i, j in rewrites.items()}
    changes: list[ParagraphChange] = []
    for op, i1, i2, j1, j2 in opcodes:
        if op == "equal":
            changes += [
                ParagraphChange("same", old_spans[i], new_spans[j], old_texts[i], new_texts[j])
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            ]
            continue
        for i in range(i1, i2):
            if i in moves:
                span = new_spans[moves[i]]
                changes.append(ParagraphChange("moved away", old_spans[i], span, old_texts[i]))
            elif i not in rewrites:
                changes.append(ParagraphChange("removed", old_spans[i], None, old_texts[i]))
        for j in range(j1, j2):
            if j in moved_from:
                span = old_spans[moved_from[j]]
                changes.append(ParagraphChange("moved", span, new_spans[j], new_text=new_texts[j]))
            elif j in rewrote:
                i = rewrote[j]
                words = word_diff(old_texts[i], new_texts[j])
                changes.append(
                    ParagraphChange(
                        "changed", old_spans[i], new_spans[j], old_texts[i], new_texts[j], words
                    )
                )
            else:
                changes.append(ParagraphChange("added", None, new_spans[j], new_text=new_texts[j]))
    return tuple(changes)


def _paired(old_texts, new_texts, opcodes) -> tuple[dict[int, int], dict[int, int]]:
    """The paragraphs the matcher left unmatched, paired old to new: those moved word for
    word, and those rewritten."""
    unmatched_old = [i for op, i1, i2, _, _ in opcodes if op != "equal" for i in range(i1, i2)]
    unmatched_new = [j for op, _, _, j1, j2 in opcodes if op != "equal" for j in range(j1, j2)]
    moves = _moves(old_texts, new_texts, unmatched_old, unmatched_new)
    moved_to = set(moves.values())
    # A paragraph rewritten may also have moved: pairs are sought among all the unmatched.
    rewrites = _rewrites(
        old_texts,
        new_texts,
        [i for i in unmatched_old if i not in moves],
        [j for j in unmatched_new if j not in moved_to],
    )
    return moves, rewrites


def _moves(old_texts, new_texts, olds: list[int], news: list[int]) -> dict[int, int]:
    """Unmatched old paragraphs found word for word among the unmatched new ones (each new
    paragraph taken once, in order)."""
    waiting: dict[str, list[int]] = {}
    for j in news:
        waiting.setdefault(new_texts[j], []).append(j)
    moves = {}
    for i in olds:
        found = waiting.get(old_texts[i])
        if found:
            moves[i] = found.pop(0)
    return moves


# Paragraphs at least this alike, word by word, are shown as one paragraph rewritten; a
# removed paragraph is compared with the next this many added ones.
REWRITE_SIMILARITY = 0.6
REWRITE_LOOKAHEAD = 64


def _rewrites(old_texts, new_texts, olds: list[int], news: list[int]) -> dict[int, int]:
    """Old paragraph -> the new one that rewrote it: paired in order, where their words (white
    space and punctuation aside) are alike."""
    words = {j: re.findall(r"\w+", new_texts[j])[:MAX_DIFF_WORDS] for j in news}
    pairs, cursor = {}, 0
    for i in olds:
        mine = re.findall(r"\w+", old_texts[i])[:MAX_DIFF_WORDS]
        for position in range(cursor, min(len(news), cursor + REWRITE_LOOKAHEAD)):
            j = news[position]
            matcher = difflib.SequenceMatcher(None, mine, words[j], autojunk=False)
            if matcher.real_quick_ratio() >= REWRITE_SIMILARITY and (
                matcher.ratio() >= REWRITE_SIMILARITY
            ):
                pairs[i], cursor = j, position + 1
                break
    return pairs


def candidate_places(text: str, quote: str, limit: int = MAX_CANDIDATES) -> tuple[int, ...]:
    """Where `quote` stands word for word in `text` (at most `limit` starts): the places an
    ambiguous anchor could mean."""
    if not quote:
        return ()
    found, start = [], text.find(quote)
    while start >= 0 and len(found) < limit:
        found.append(start)
        start = text.find(quote, start + 1)
    return tuple(found)


# --- carrying a plan -----------------------------------------------------------------------


@dataclass(frozen=True)
class CarriedEntry:
    """One entry of the carried plan, in the new text's order.

    `source` is the old entry's index, or None for an entry the proposer offered for new
    text. `follows_its_neighbour`: the entry before it here is the one before it in the old
    plan (so a merge into it still means the same)."""

    fate: str
    span: tuple[int, int]
    status: str
    score: float
    source: int | None = None
    entry: PlanEntry | None = None
    follows_its_neighbour: bool = False


@dataclass(frozen=True)
class Carrying:
    entries: tuple[CarriedEntry, ...]
    # Old entries whose text is gone, by index.
    gone: tuple[int, ...]
    # Stretches of the new text that no entry covers (offered nothing, or only white space).
    uncovered: tuple[tuple[int, int], ...]


def carry_plan(
    old_text: str,
    new_text: str,
    anchors: Sequence[Anchor],
    spans: Sequence[tuple[int, int]],
    proposals: Sequence[PlanEntry] = (),
    paths: Sequence[str] = (),
) -> Carrying:
    """Where each old entry (its anchor and old span) stands in `new_text`, plus the
    proposer's `proposals` (entries over `new_text`) for what no old entry covers. `paths`,
    the old entries' paths (optional), tell an orphaned entry which of the places its
    paragraphs went is its own section's."""
    if len(anchors) != len(spans):
        raise RevisionError(f"{len(anchors)} anchors but {len(spans)} spans; give one span each")
    if paths and len(paths) != len(spans):
        raise RevisionError(f"{len(paths)} paths but {len(spans)} spans; give one path each")
    locations = relocate(new_text, anchors, [start for start, _ in spans])
    changes = paragraph_diff(old_text, new_text)
    # Where the proposer puts each old entry's own section: the proposal of the same path.
    by_path = {proposal.path: proposal.span for proposal in proposals}
    sections = [by_path.get(path) for path in paths] if paths else [None] * len(spans)
    placed, gone = [], []
    for index, location in enumerate(locations):
        if location.status in PLACED:
            placed.append(_Placed(index, (location.start, location.end), location.status, 1.0))
            continue
        span = (location.start, location.end)
        if location.status == ORPHANED:
            span = _rewritten_span(changes, spans[index], new_text, sections[index])
            if span is None:
                gone.append(index)
                continue
        placed.append(_Placed(index, span, location.status, location.score))

    def rewritten(index: int) -> tuple[int, int] | None:
        return _rewritten_span(changes, spans[index], new_text, sections[index])

    carried = _without_overlaps(new_text, placed, gone, rewritten)
    carried, offered = _claimed_and_offered(new_text, carried, proposals)
    entries = sorted(carried + offered, key=lambda entry: entry.span)
    return Carrying(
        entries=tuple(entries),
        gone=tuple(sorted(gone)),
        uncovered=tuple(_gaps(new_text, [entry.span for entry in entries])),
    )


@dataclass(frozen=True)
class _Placed:
    source: int
    span: tuple[int, int]
    status: str
    score: float


def _rewritten_span(
    changes: Sequence[ParagraphChange],
    old_span: tuple[int, int],
    new_text: str,
    section: tuple[int, int] | None = None,
) -> tuple[int, int] | None:
    """Where the paragraphs an orphaned entry covered now stand, if any still do (rewritten or
    moved rather than removed): the run of them that stands together in the new text and lies
    most in `section` (where the proposer puts the entry's own section), else the longest, so
    that new text added between them is left for the proposer to offer or for the entry to
    claim (`_claimed_and_offered`)."""
    start, end = old_span
    found = sorted(
        change.new_span
        for change in changes
        if change.kind in ("same", "changed", "moved")
        and change.old_span[0] < end
        and change.old_span[1] > start
    )
    if not found:
        return None
    runs = [[found[0]]]
    for span in found[1:]:
        if new_text[runs[-1][-1][1] : span[0]].strip():
            runs.append([span])
        else:
            runs[-1].append(span)

    def inside(run) -> int:
        if section is None:
            return 0
        return max(0, min(run[-1][1], section[1]) - max(run[0][0], section[0]))

    best = max(runs, key=lambda run: (inside(run), run[-1][1] - run[0][0]))
    return best[0][0], best[-1][1]


def _without_overlaps(
    text: str,
    placed: list[_Placed],
    gone: list[int],
    rewritten: Callable[[int], tuple[int, int] | None],
) -> list[CarriedEntry]:
    """In the new text's order and without overlaps. An entry placed beyond doubt keeps its
    place; a doubtful one that overlaps it keeps the largest stretch left free, or else goes
    where the paragraph diff says its text went (`rewritten`); an entry that had to be moved
    or cut is no longer placed beyond doubt, and one left with no text has no place."""
    sure = sorted((item for item in placed if item.status in PLACED), key=lambda i: i.span)
    unsure = sorted((item for item in placed if item.status not in PLACED), key=lambda i: i.span)
    fixed: list[_Placed] = []
    for item in sure:
        if fixed and item.span[0] < fixed[-1].span[1]:
            unsure.append(_Placed(item.source, item.span, FUZZY, 0.99))
        else:
            fixed.append(item)
    taken = [item.span for item in fixed]
    for item in sorted(unsure, key=lambda i: i.span):
        free = _largest_free(text, item.span, taken)
        if free is None and (elsewhere := rewritten(item.source)) is not None:
            free = _largest_free(text, elsewhere, taken)
        if free is None:
            gone.append(item.source)
            continue
        status = item.status if free == item.span else FUZZY
        fixed.append(_Placed(item.source, free, status, item.score if free == item.span else 0.99))
        taken.append(free)
    carried, previous = [], None
    for item in sorted(fixed, key=lambda i: i.span):
        carried.append(
            CarriedEntry(
                fate=KEPT if item.status in PLACED else DOUBTFUL,
                span=item.span,
                status=item.status,
                score=min(item.score, 0.99) if item.status not in PLACED else 1.0,
                source=item.source,
                follows_its_neighbour=previous is not None and previous == item.source - 1,
            )
        )
        previous = item.source
    return carried


def _largest_free(
    text: str, span: tuple[int, int], taken: list[tuple[int, int]]
) -> tuple[int, int] | None:
    """The longest part of `span` that no taken span covers and that holds more than white
    space; the whole span when nothing covers it. A sliver (less than half the span) is no
    place for the entry: it would hold someone else's text."""
    pieces, cursor = [], span[0]
    for start, end in sorted(taken):
        if end <= cursor or start >= span[1]:
            continue
        if start > cursor:
            pieces.append((cursor, start))
        cursor = max(cursor, end)
    if cursor < span[1]:
        pieces.append((cursor, span[1]))
    least = (span[1] - span[0]) / 2
    pieces = [
        piece
        for piece in pieces
        if text[piece[0] : piece[1]].strip() and piece[1] - piece[0] >= least
    ]
    return max(pieces, key=lambda piece: piece[1] - piece[0]) if pieces else None


def _claimed_and_offered(
    text: str, carried: list[CarriedEntry], proposals: Sequence[PlanEntry]
) -> tuple[list[CarriedEntry], list[CarriedEntry]]:
    """The proposer's entries clipped to the stretches no carried entry covers, less what a
    carried entry claims: a piece beside a carried entry whose text the same proposed entry
    also covers is more of that entry's section (its body rewritten, a paragraph added to
    it), so the carried entry grows over it instead of a second entry of the same section
    being offered. An entry that grew is no longer the text decided on: it is doubtful."""
    ordered = sorted(carried, key=lambda entry: entry.span)
    starts = [entry.span[0] for entry in ordered]
    gaps = _gaps(text, [entry.span for entry in ordered])
    # Claims are judged against the spans as carried, so that an entry grows only over what
    # touches its own text, never over a piece that touches only what it claimed.
    grown = [list(entry.span) for entry in ordered]
    offered = []
    for proposal in proposals:
        for gap_start, gap_end in gaps:
            start, end = max(proposal.span[0], gap_start), min(proposal.span[1], gap_end)
            if end <= start or not text[start:end].strip():
                continue
            owner = _owner(text, ordered, starts, proposal.span, (start, end))
            if owner is not None:
                grown[owner] = [min(grown[owner][0], start), max(grown[owner][1], end)]
                continue
            entry = PlanEntry(
                path=proposal.path,
                title=proposal.title,
                span=(start, end),
                anchor=make_anchor(text, start, end),
                derived=(PROPOSED_MARKER, *proposal.rules),
            )
            offered.append(CarriedEntry(NEW, (start, end), "exact", 1.0, entry=entry))
    return [_grown(entry, tuple(span)) for entry, span in zip(ordered, grown, strict=True)], offered


def _owner(
    text: str,
    ordered: list[CarriedEntry],
    starts: list[int],
    proposed: tuple[int, int],
    piece: tuple[int, int],
) -> int | None:
    """The carried entry (its index in `ordered`) that claims `piece`: the one right before
    it, else the one right after it, with nothing but white space between, whose text the
    `proposed` span also covers. None when no carried entry claims it."""
    after = bisect.bisect_left(starts, piece[1])
    for index in (after - 1, after):
        if not 0 <= index < len(ordered):
            continue
        span = ordered[index].span
        between = text[span[1] : piece[0]] if index < after else text[piece[1] : span[0]]
        shared = text[max(span[0], proposed[0]) : min(span[1], proposed[1])]
        if not between.strip() and shared.strip():
            return index
    return None


def _grown(entry: CarriedEntry, span: tuple[int, int]) -> CarriedEntry:
    """`entry` over `span`; doubtful, and no longer placed beyond doubt, if that is more text."""
    if span == entry.span:
        return entry
    status = FUZZY if entry.status in PLACED else entry.status
    return replace(entry, fate=DOUBTFUL, span=span, status=status, score=min(entry.score, 0.99))


def _gaps(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Stretches between `spans` (in order) that hold more than white space."""
    gaps, cursor = [], 0
    for start, end in [*sorted(spans), (len(text), len(text))]:
        if start > cursor and text[cursor:start].strip():
            gaps.append((cursor, start))
        cursor = max(cursor, end)
    return gaps
