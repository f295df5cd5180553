"""W3C-style text-quote anchors: a quote with a little context on each side, found again in a text.

A span's offsets go stale the moment its text is edited; its anchor does not. `locate` finds an
anchor's quote in a text and says how sure it is:

- exact: the quote and its context, character for character, at the old place (the hint);
- moved: the quote character for character, proven in its place (below), elsewhere or with its
  context changed;
- fuzzy: the quote was edited or retypeset, or nothing proves its place; a person must confirm;
- ambiguous: several places fit and nothing tells them apart;
- orphaned: nothing fits well enough.

The one outcome that must never happen is a span on the wrong text reported as exact or moved.
So those two need the quote verbatim and proof of place, one of:

- its context verbatim too (or changed only in white space and typography), and position (the
  text shifted exactly as the anchors around it did) or the certainty that no copy could be
  meant instead (the quote stands once, and the plan shows no other copy in the old text);
- continuity (in `relocate`): the quote, with whatever context stands unchanged beside it,
  overlaps or touches the verbatim text of a placed anchor, shifted by the same amount: one
  unbroken stretch of the old text. The start of the text counts as placed;
- order (in `relocate`): a quote of at least `DISTINCT_QUOTE_CHARS` that stands once in the
  new text and once in the old, between where its neighbours went.

Anything found by similarity is fuzzy, however high its score. A verbatim quote in rewritten
context is offered as fuzzy where position expects it (near the hint or the drift of its
neighbours, or between them), or where it stands as whole lines, then and now, the only copy:
flagging is the safe failure, orphaning text that survived the bad one.

How it is found: `str.find` of context + quote + context first, which is all a shifted text needs,
and of the quote alone. Then a bounded fuzzy search: k-gram seeds point at the few regions where
the anchor could be, Myers' bit-parallel edit distance (edlib, infix mode) aligns the quote's head
and tail windows there, and rapidfuzz's bit-parallel Levenshtein verifies the whole quote. The
fuzzy search runs on a folded copy of the text (curly quotes, dashes, ellipses and runs of white
space made plain) with an offset map back to the original. A minimum score, an ambiguity margin
and position (the hint, and in `relocate` the drift of the anchors around it) decide between
places.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import edlib
import numpy as np
from rapidfuzz.distance import Levenshtein

CONTEXT_CHARS = 32

EXACT = "exact"
MOVED = "moved"
FUZZY = "fuzzy"
AMBIGUOUS = "ambiguous"
ORPHANED = "orphaned"
PLACED = frozenset({EXACT, MOVED})

# Thresholds, set with benchmarks/bench_anchors.py.
# A place counts at all only if context + quote + context is this similar to the anchor. At 0.8
# quotes with 12 % of their characters edited are still found (0.85 orphans 14 % of them), and
# in the moved-and-deleted edit few lookalikes get offered as fuzzy (0.75 offers twice as many).
MIN_SCORE = 0.8
# ... and the quote alone this similar, so that intact context cannot carry a rewritten quote.
MIN_QUOTE_SIMILARITY = 0.7
# A quote this long and this similar counts without its context (a paragraph moved elsewhere).
LONE_QUOTE_CHARS = 64
LONE_QUOTE_SIMILARITY = 0.9
# A verbatim quote this long, standing once in the old and the new text, is distinct enough to
# be the anchor's own text wherever its context went, provided it lies between its neighbours.
DISTINCT_QUOTE_CHARS = 24
# Places scoring within this of the best one are rivals: ambiguous unless position decides.
AMBIGUITY_MARGIN = 0.05
# Position may single out a rival (as fuzzy) that lies within this many characters of where the
# anchor is expected, when every other lies more than twice as far off.
POSITION_TOLERANCE = 64


@dataclass(frozen=True)
class Anchor:
    quote: str
    prefix: str
    suffix: str

    def to_dict(self) -> dict:
        return {"quote": self.quote, "prefix": self.prefix, "suffix": self.suffix}

    @classmethod
    def from_dict(cls, data: dict) -> Anchor:
        return cls(quote=data["quote"], prefix=data["prefix"], suffix=data["suffix"])


@dataclass(frozen=True)
class Location:
    start: int
    end: int
    status: str
    score: float


def make_anchor(text: str, start: int, end: int) -> Anchor:
    if not 0 <= start <= end <= len(text):
        raise ValueError(
            f"span [{start}, {end}) does not lie within a text of {len(text)} characters"
        )
    return Anchor(
        quote=text[start:end],
        prefix=text[max(0, start - CONTEXT_CHARS) : start],
        suffix=text[end : end + CONTEXT_CHARS],
    )


def locate(text: str, anchor: Anchor, hint: int | None = None) -> Location:
    """Where `anchor` is in `text`; `hint` is the quote's old start offset, if known.

    `score` is the similarity of context + quote + context at the place found (1.0 for exact and
    moved). An ambiguous location spans the best-scoring place; an orphaned one is (-1, -1, 0.0).
    """
    return relocate(text, [anchor], [hint])[0]


def relocate(text: str, anchors: Sequence[Anchor], hints: Sequence[int | None]) -> list[Location]:
    """Locate a whole plan at once: one `Location` per anchor, in order, one hint per anchor.

    Anchors placed beyond doubt tell how far their stretch of the text has shifted; that drift is
    what lets the others choose between identical or similar places. And the plan's anchors
    together quote much of the old text, which shows where it repeated itself.
    """
    anchors, hints = list(anchors), list(hints)
    if len(anchors) != len(hints):
        raise ValueError(f"{len(anchors)} anchors but {len(hints)} hints; give one hint per anchor")
    return _Relocation(text, anchors, hints).run()


class _Relocation:
    """One plan located in one text, from the surest evidence to the weakest."""

    def __init__(self, text: str, anchors: list[Anchor], hints: list[int | None]) -> None:
        self.text, self.anchors, self.hints = text, anchors, hints
        self.document = _Document(text)
        self.old_text = _OldText(anchors, hints)
        self.hits = [self.document.exact_hits(anchor) for anchor in anchors]
        self.found: list[Location | None] = [None] * len(anchors)
        self._verbatim_hits: dict[int, list[_Verbatim]] = {}

    def run(self) -> list[Location]:
        self._same_place()
        self._shifted_with_neighbours()
        rivalled = self._searched()
        self._by_continuity()
        self._by_neighbours(rivalled)
        self._by_continuity()
        if self._by_order():
            self._by_continuity()
        return [location for location in self.found if location is not None]

    def _same_place(self) -> None:
        """Quote and context, untouched, where they were."""
        for i, hint in enumerate(self.hints):
            if hint is not None and self.document.is_exact_at(self.anchors[i], hint):
                self._place(i, hint, EXACT)

    def _shifted_with_neighbours(self) -> None:
        """An exact hit exactly where the anchors on both sides say the text went.

        The neighbours speaking here are those whose only exact hit cannot be a copy.
        """
        drift = _Drift(
            (hint, self.hits[i][0] - hint, i)
            for i, hint in enumerate(self.hints)
            if hint is not None and len(self.hits[i]) == 1 and self._vouched(i, self.hits[i][0])
        )
        for i, hint in enumerate(self.hints):
            if self.found[i] is None and hint is not None and self.hits[i]:
                starts = drift.expected_starts(hint, skip=i)
                if len(starts) == 1 and starts[0] in self.hits[i]:
                    self._place(i, starts[0], MOVED)

    def _searched(self) -> dict[int, list[_Candidate]]:
        """Search for the rest; a place without rivals decides itself. Returns the rivalled."""
        self.placed = _Drift(
            (hint, location.start - hint, i)
            for i, (hint, location) in enumerate(zip(self.hints, self.found, strict=True))
            if hint is not None and location is not None
        )
        self.settled = _Drift(self.placed.entries)
        rivalled = {}
        for i, anchor in enumerate(self.anchors):
            if self.found[i] is not None:
                continue
            places = self.document.candidates(
                anchor, self.hits[i], self._verbatim(i), self.hints[i]
            )
            # A verbatim quote in edited context counts only where position puts it, and exact
            # text that may be a copy waits for its neighbours too.
            if len(places) > 1 or (places and (places[0].weak or self._unvouched(i, places[0]))):
                rivalled[i] = places
                continue
            location = self.found[i] = _decide(places, None, self.hints[i], self._vouch(i))
            hint = self.hints[i]
            if hint is None or location.status == ORPHANED:
                continue
            if location.status in PLACED:
                self.placed.add(hint, location.start - hint, i)
            # A lone exact place left fuzzy may be a copy; it says nothing about drift.
            if location.status in PLACED or not places[0].exact:
                self.settled.add(hint, location.start - hint, i)
        return rivalled

    def _by_neighbours(self, rivalled: dict[int, list[_Candidate]]) -> None:
        """Rivals told apart by where the anchors around them went."""
        for i, places in rivalled.items():
            if self.found[i] is not None:
                continue  # placed by continuity
            hint, expected = self.hints[i], None
            if hint is not None:
                low, high = self.settled.between(hint, skip=i)
                expected = _Expected(
                    tuple(self.placed.expected_starts(hint, skip=i)) or (hint,),
                    tuple(self.settled.expected_starts(hint, skip=i)) or (hint,),
                    low,
                    high,
                    hint,
                    self.settled.room(hint, len(self.text), skip=i),
                )
            self.found[i] = _decide(places, expected, hint, self._vouch(i))

    def _unvouched(self, i: int, place: _Candidate) -> bool:
        return place.exact and not self._vouched(i, place.start)

    def _by_continuity(self) -> None:
        """Verbatim quotes that continue the verbatim text of a placed anchor.

        Where a placed anchor's verbatim stretch (quote and the context found unchanged) and
        this quote's overlap or touch in the old text, and both shifted by the same amount, the
        two are one unbroken stretch of the old text, character for character: proof of place
        however much the rest of the context was edited. Chains run both ways, a pass each.
        """
        stretches = _Stretches()
        stretches.add(0, 0, 0)  # the start of the text stayed where it was
        waiting = []
        for i, location in enumerate(self.found):
            hint = self.hints[i]
            if hint is None:
                continue
            if location is not None and location.status in PLACED:
                stretches.add(location.start - hint, *self._stretch(i, location.start))
            elif self.anchors[i].quote:
                waiting.append(i)
        for order in (waiting, waiting[::-1]):
            for i in order:
                if self.found[i] is not None and self.found[i].status in PLACED:
                    continue
                hint, anchor = self.hints[i], self.anchors[i]
                # Only a placed stretch beside this anchor's own old text can continue it, and
                # only at its shift: look there, not at every copy of the quote.
                reach = hint - len(anchor.prefix), hint + len(anchor.quote) + len(anchor.suffix)
                beside = stretches.touching(*reach)
                if not beside:
                    continue
                joined = []
                for start in sorted({hint + shift for _, _, shift in beside}):
                    if start < 0 or not self.text.startswith(anchor.quote, start):
                        continue
                    hit = self.document.verbatim_at(anchor, start)
                    own_low, own_high = self._stretch(i, start, hit)
                    if any(
                        high >= own_low and low <= own_high and hint + shift == start
                        for low, high, shift in beside
                    ):
                        joined.append(hit)
                if len(joined) == 1 and not self.document.split(anchor, joined[0]):
                    start = joined[0].start
                    self._place(i, start, MOVED)
                    stretches.add(start - hint, *self._stretch(i, start, joined[0]))
                    self.placed.add(hint, start - hint, i)
                    self.settled.add(hint, start - hint, i)

    def _by_order(self) -> bool:
        """Distinct verbatim quotes, the only copy then and now, between their neighbours.

        A quote of at least `DISTINCT_QUOTE_CHARS` that stands once in the new text, that the
        plan shows only once in the old text, and that lies between where its neighbours went
        is the anchor's own text, however its context was edited. Returns whether any was placed.
        """
        placed = False
        for i, location in enumerate(self.found):
            hint, quote = self.hints[i], self.anchors[i].quote
            if hint is None or location.status in PLACED or len(quote) < DISTINCT_QUOTE_CHARS:
                continue
            starts = self.document.occurrences.starts(quote, 2)
            if len(starts) != 1:
                continue  # not there, or not alone
            start = starts[0]
            if self.old_text.has_copy(i, quote_only=True):
                continue
            room = self.settled.room(hint, len(self.text), skip=i)
            if room is not None and room[0] <= start <= room[1]:
                self._place(i, start, MOVED)
                self.placed.add(hint, start - hint, i)
                placed = True
        return placed

    def _stretch(self, i: int, start: int, hit: _Verbatim | None = None) -> tuple[int, int]:
        """The old-text span of anchor `i` found verbatim at `start`: its quote, and each side
        of context that is unchanged there too."""
        anchor, hint = self.anchors[i], self.hints[i]
        hit = hit or self.document.verbatim_at(anchor, start)
        low = hint - len(anchor.prefix) if hit.prefix == _VERBATIM else hint
        high = hint + len(anchor.quote)
        return low, high + len(anchor.suffix) if hit.suffix == _VERBATIM else high

    def _verbatim(self, i: int) -> list[_Verbatim]:
        if i not in self._verbatim_hits:
            self._verbatim_hits[i] = self.document.verbatim_hits(self.anchors[i], self.hints[i])
        return self._verbatim_hits[i]

    def _place(self, i: int, start: int, status: str) -> None:
        self.found[i] = Location(start, start + len(self.anchors[i].quote), status, 1.0)

    def _vouch(self, i: int) -> Callable[[_Candidate], bool]:
        return lambda place: self._vouched(i, place.start)

    def _vouched(self, i: int, start: int) -> bool:
        """Whether exact text at `start`, not where position expects it, can only be the anchor's.

        It can if its quote occurs nowhere else in the text, the plan shows no other copy of
        context + quote + context in the old text, and that text is not pieced together from
        passages that recur (boilerplate, which may have stood elsewhere in the same order).
        Else it may be a copy of a deleted original.
        """
        anchor = self.anchors[i]
        quote, occurrences = anchor.quote, self.document.occurrences
        alone = self.text.startswith(quote, start) and occurrences.count(quote, 2) == 1
        if not alone or self.old_text.has_copy(i):
            return False
        needle = anchor.prefix + anchor.quote + anchor.suffix
        if len(needle) < 3 * _PIECE:
            return True
        middle = len(needle) // 2 - _PIECE // 2
        pieces = (needle[:_PIECE], needle[middle : middle + _PIECE], needle[-_PIECE:])
        return not all(self._recurs(piece) for piece in pieces)

    def _recurs(self, piece: str) -> bool:
        """Whether `piece` occurs in the text twice."""
        return self.document.occurrences.count(piece, 2) == 2


# --- deciding between places ---------------------------------------------------------------


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    score: float
    exact: bool  # quote and context identical, character for character (or `retypeset`)
    retypeset: bool = False  # the quote identical, its context only after folding typography
    weak: bool = False  # the quote identical, its context edited past the minimum score
    whole_lines: bool = False  # weak, but whole lines then and now, and the only such place


_ORPHAN = Location(-1, -1, ORPHANED, 0.0)


@dataclass(frozen=True)
class _Expected:
    """Where an anchor should be, as the anchors around it say."""

    exactly: tuple[int, ...]  # by the drift of placed (exact or moved) neighbours
    near: tuple[int, ...]  # by the drift of any settled neighbour, fuzzy ones included
    low: int | None  # between the settled neighbours' new starts, when their order held
    high: int | None
    hint: int | None = None  # the quote's old start
    room: tuple[int, int] | None = None  # between the settled neighbours, or a neighbour and an end


def _decide(
    places: list[_Candidate],
    expected: _Expected | None,
    hint: int | None,
    vouched: Callable[[_Candidate], bool],
) -> Location:
    # A weak place (the quote verbatim, its context rewritten) counts only where position
    # expects the anchor: elsewhere the same words may stand in another passage.
    places = [place for place in places if not place.weak or _expects(expected, place)]
    if not places:
        return _ORPHAN
    chosen, strong = (None, False) if expected is None else _by_position(places, expected)
    if not strong and len(places) == 1:
        chosen = places[0]
        strong = chosen.exact and vouched(chosen)
    if chosen is not None:
        if chosen.exact and strong:
            status = EXACT if chosen.start == hint and not chosen.retypeset else MOVED
            return Location(chosen.start, chosen.end, status, 1.0)
        return Location(chosen.start, chosen.end, FUZZY, chosen.score)
    best = max(places, key=lambda place: (place.score, -place.start))
    rivals = [place for place in places if place.score >= best.score - AMBIGUITY_MARGIN]
    # An exact place with a plausible rival is still only fuzzy: the rival may be the quote,
    # edited where it was, and this place a copy of it.
    status = FUZZY if len(rivals) == 1 else AMBIGUOUS
    return Location(best.start, best.end, status, best.score)


def _expects(expected: _Expected | None, place: _Candidate) -> bool:
    """Whether position puts the anchor here: near where drift or the hint says, or between its
    neighbours (or a neighbour and the end of the text, where it has only one)."""
    if place.whole_lines:
        return True
    if expected is None:
        return False
    near = (*expected.near, *(() if expected.hint is None else (expected.hint,)))
    if any(abs(place.start - at) <= POSITION_TOLERANCE for at in near):
        return True
    return expected.room is not None and expected.room[0] <= place.start <= expected.room[1]


def _by_position(places: list[_Candidate], expected: _Expected) -> tuple[_Candidate | None, bool]:
    """The place position singles out, and whether that is strong enough for exact or moved.

    Strong: it lies exactly where the drift of the placed anchors on both sides says; text that
    shifted with its neighbours, character for character. Weak: it lies near where the drift of
    any settled neighbour says, every rival much further off, or it is the only place between
    the settled neighbours; likely, but an edit there may have removed the anchor's own text.
    """
    # Strong only when the neighbours agree: where they disagree, an edit between them may have
    # taken the anchor's own text, and a copy can sit exactly where one of them points.
    if len(expected.exactly) == 1:
        for place in places:
            if place.start == expected.exactly[0]:
                return place, True

    def off(place: _Candidate) -> int:
        return min(abs(place.start - at) for at in expected.near)

    ranked = sorted(places, key=lambda place: (off(place), place.start))
    runner_up = off(ranked[1]) if len(ranked) > 1 else None
    if off(ranked[0]) <= POSITION_TOLERANCE and (
        runner_up is None or runner_up > 2 * POSITION_TOLERANCE
    ):
        return ranked[0], False
    if expected.low is not None and expected.high is not None:
        between = [place for place in places if expected.low <= place.start <= expected.high]
        if len(between) == 1:
            return between[0], False
    return None, False


class _Drift:
    """How far the text shifted at each settled anchor: (old start, shift, anchor index)."""

    def __init__(self, entries: Iterable[tuple[int, int, int]] = ()) -> None:
        self.entries = sorted(entries)

    def add(self, hint: int, delta: int, index: int) -> None:
        bisect.insort(self.entries, (hint, delta, index))

    def neighbours(self, hint: int, *, skip: int) -> list[tuple[int, int, int]]:
        """The nearest settled anchors before and after `hint` (as many as there are)."""
        at = bisect.bisect_left(self.entries, (hint,))
        found = []
        for step, index in ((-1, at - 1), (1, at)):
            while 0 <= index < len(self.entries) and self.entries[index][2] == skip:
                index += step
            if 0 <= index < len(self.entries):
                found.append(self.entries[index])
        return found

    def expected_starts(self, hint: int, *, skip: int) -> list[int]:
        """Where the neighbours' drift puts an anchor whose old start was `hint`."""
        return sorted({hint + delta for _, delta, _ in self.neighbours(hint, skip=skip)})

    def room(self, hint: int, length: int, *, skip: int) -> tuple[int, int] | None:
        """The new text between the neighbours' new starts, or a neighbour's and the text's end."""
        neighbours = self.neighbours(hint, skip=skip)
        before = [old + delta for old, delta, _ in neighbours if old <= hint]
        after = [old + delta for old, delta, _ in neighbours if old > hint]
        if not neighbours:
            return None
        low, high = (before or [0])[0], (after or [length])[0]
        return (low, high) if low <= high else None

    def between(self, hint: int, *, skip: int) -> tuple[int | None, int | None]:
        """The new starts of the neighbours before and after, if the text kept them in order."""
        neighbours = self.neighbours(hint, skip=skip)
        if len(neighbours) == 2:
            (before, before_delta, _), (after, after_delta, _) = neighbours
            low, high = before + before_delta, after + after_delta
            if before <= hint <= after and low <= high:
                return low, high
        return None, None


class _Stretches:
    """Old-text spans found verbatim in the new text, with how far each shifted."""

    _LOOK_BACK = 64  # spans looked at before a point; a plan's spans overlap only so deep

    def __init__(self) -> None:
        self._spans: list[tuple[int, int, int]] = []  # (old low, old high, shift)

    def add(self, shift: int, low: int, high: int) -> None:
        bisect.insort(self._spans, (low, high, shift))

    def touching(self, low: int, high: int) -> list[tuple[int, int, int]]:
        """The spans that overlap or touch [low, high] in the old text."""
        at = bisect.bisect_left(self._spans, (high + 1,))  # the spans that start by `high`
        return [span for span in self._spans[max(0, at - self._LOOK_BACK) : at] if span[1] >= low]


class _OldText:
    """As much of the old text as the anchors quote, pieced together by their hints."""

    def __init__(self, anchors: list[Anchor], hints: list[int | None]) -> None:
        self._anchors, self._hints = anchors, hints

    @cached_property
    def _pieces(self) -> tuple[_Occurrences, list[int], list[int]]:
        fragments = sorted(
            (hint - len(anchor.prefix), anchor.prefix + anchor.quote + anchor.suffix)
            for anchor, hint in zip(self._anchors, self._hints, strict=True)
            if hint is not None and hint >= len(anchor.prefix)
        )
        # Each piece as (old start, old end, its parts): joined once, not grown a fragment at a
        # time, which would copy the piece for every anchor it takes in.
        pieces: list[tuple[int, int, list[str]]] = []
        for start, fragment in fragments:
            if pieces and start <= pieces[-1][1]:
                piece_start, piece_end, parts = pieces[-1]
                tail = fragment[piece_end - start :]
                if tail:
                    parts.append(tail)
                pieces[-1] = (piece_start, piece_end + len(tail), parts)
            else:
                pieces.append((start, start + len(fragment), [fragment]))
        # One string, a NUL between pieces, so that one look-up searches them all.
        joined, offsets, starts = [], [], []
        length = 0
        for start, end, parts in pieces:
            offsets.append(length)
            starts.append(start)
            joined.append("".join(parts))
            length += end - start + 1
        return _Occurrences("\x00".join(joined)), offsets, starts

    def has_copy(self, i: int, *, quote_only: bool = False) -> bool:
        """Whether anchor `i`'s context + quote + context (or its quote alone) shows in the old
        text but at its place."""
        anchor, hint = self._anchors[i], self._hints[i]
        needle = anchor.prefix + anchor.quote + anchor.suffix
        own = None if hint is None else hint - len(anchor.prefix)
        if quote_only:
            needle, own = anchor.quote, hint
        joined, offsets, starts = self._pieces
        # Pieces do not overlap in the old text, so two hits cannot both be at its place.
        for at in joined.starts(needle, 2):
            piece = bisect.bisect_right(offsets, at) - 1
            if starts[piece] + at - offsets[piece] != own:
                return True
        return False


# --- folding typography --------------------------------------------------------------------

_SPACES = "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000"
_CHAR_FOLDS = str.maketrans(
    {
        **{space: " " for space in _SPACES + "".join(map(chr, range(0x2000, 0x200B)))},
        **{quote: "'" for quote in "\u2018\u2019\u201a\u201b\u2032\u2039\u203a"},
        **{quote: '"' for quote in "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"},
        **{dash: "-" for dash in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"},
        "\u2026": ".",
    }
)
# Typed forms of one thing: "--" for a dash, "..." for an ellipsis, and any run of spaces.
_RUNS = re.compile(r"([ .\-])\1+")
# The same, one kind at a time: a literal replacement is quicker than a back-reference.
_SPACE_RUNS, _DOT_RUNS, _DASH_RUNS = re.compile(" {2,}"), re.compile(r"\.{2,}"), re.compile("-{2,}")


def _fold(text: str) -> str:
    """The folded text alone, without the offset map `_Folded` keeps (the same as its text)."""
    plain = text.translate(_CHAR_FOLDS)
    return _DASH_RUNS.sub("-", _DOT_RUNS.sub(".", _SPACE_RUNS.sub(" ", plain)))


class _Folded:
    """A text with its typography folded to plain characters, and the map back to the original."""

    def __init__(self, original: str) -> None:
        plain = original.translate(_CHAR_FOLDS)
        self.folded_starts: list[int] = []
        self.original_starts: list[int] = []
        self.removed_before: list[int] = [0]  # characters dropped by the first k runs
        kept, removed, last = [], 0, 0
        for run in _RUNS.finditer(plain):
            start, end = run.span()
            kept.append(plain[last : start + 1])
            last = end
            self.folded_starts.append(start - removed)
            self.original_starts.append(start)
            removed += end - start - 1
            self.removed_before.append(removed)
        kept.append(plain[last:])
        self.text = "".join(kept)

    def to_original(self, position: int) -> int:
        # An end offset just after a folded run lands after the whole run it stands for.
        return position + self.removed_before[bisect.bisect_left(self.folded_starts, position)]

    def to_folded(self, position: int) -> int:
        k = bisect.bisect_right(self.original_starts, position)
        if k:
            run_start = self.original_starts[k - 1]
            run_length = self.removed_before[k] - self.removed_before[k - 1] + 1
            if position < run_start + run_length:
                return self.folded_starts[k - 1] + (position > run_start)
        return position - self.removed_before[k]


# --- finding exact text --------------------------------------------------------------------

_INDEXED_CHARS = 24  # every window this long is indexed (`_PIECE`, the shortest asked for)
_WINDOWS_TRIED = 8  # windows of a needle looked up, for the rarest
_NAIVE_LOOKUPS = 16  # look-ups answered by scanning before the index is built
_MAX_CANDIDATES = 16_384  # index candidates checked per look-up; past this a scan is quicker
_HASH_BASE = 0x100000001B3  # odd, so the rolling hash mixes every character in
_HASH_MASK = (1 << 64) - 1  # numpy's uint64 arithmetic wraps at 2**64; so does this


class _Occurrences:
    """Where strings stand in one text, for many look-ups: what repeated `str.find` answers.

    A plan asks for thousands of needles in one text, and each `str.find` that proves a quote
    stands only once reads the whole text: quadratic in the plan. After the first few look-ups
    every window of `_INDEXED_CHARS` characters is hashed once (a rolling hash, in numpy) and
    the offsets sorted by hash. A needle at least that long can only start where each of its
    windows stands, so the offsets of its rarest window are every candidate, in order, and each
    is checked in the text: the same answers as the scan, without reading the text again.
    """

    def __init__(self, text: str, naive_lookups: int | None = None) -> None:
        self.text = text
        self._scans_left = _NAIVE_LOOKUPS if naive_lookups is None else naive_lookups
        self._hashes: np.ndarray | None = None
        self._offsets: np.ndarray | None = None

    def starts(self, needle: str, limit: int) -> list[int]:
        """The first `limit` starts of `needle` in the text, in order, overlapping ones too."""
        candidates = self._candidates(needle)
        if candidates is None:
            return self.scanned(needle, limit)
        text, found = self.text, []
        for at in candidates:
            if text.startswith(needle, at):
                found.append(at)
                if len(found) == limit:
                    break
        return found

    def count(self, needle: str, most: int) -> int:
        """How many times `needle` stands in the text, counted up to `most`."""
        return len(self.starts(needle, most))

    def scanned(self, needle: str, limit: int) -> list[int]:
        """`starts` by `str.find` alone."""
        starts, at = [], self.text.find(needle)
        while at >= 0 and len(starts) < limit:
            starts.append(at)
            at = self.text.find(needle, at + 1)
        return starts

    def _candidates(self, needle: str) -> list[int] | None:
        """Every place `needle` may start, in order (a superset of where it does), or None when
        the index does not answer: the needle is too short, too few look-ups were made yet to
        pay for the index, or even its rarest window is too common to be worth checking."""
        if len(needle) < _INDEXED_CHARS or len(self.text) < _INDEXED_CHARS:
            return None
        if self._hashes is None:
            if self._scans_left > 0:
                self._scans_left -= 1
                return None
            self._build()
        last = len(needle) - _INDEXED_CHARS
        best = None
        for j in sorted({last * k // (_WINDOWS_TRIED - 1) for k in range(_WINDOWS_TRIED)}):
            key = np.uint64(_window_hash(needle[j : j + _INDEXED_CHARS]))
            low = int(self._hashes.searchsorted(key, "left"))
            high = int(self._hashes.searchsorted(key, "right"))
            if best is None or high - low < best[1] - best[0]:
                best = (low, high, j)
                if high - low <= 1:
                    break
        low, high, j = best
        if high - low > _MAX_CANDIDATES:
            return None
        starts = self._offsets[low:high]
        starts = starts[starts >= j] - j
        starts.sort()
        return starts.tolist()

    def _build(self) -> None:
        # One code point per character; added into uint64 as it goes, not copied to it first.
        codes = np.frombuffer(self.text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        windows = len(codes) - _INDEXED_CHARS + 1
        hashes = np.zeros(windows, dtype=np.uint64)
        base = np.uint64(_HASH_BASE)
        for offset in range(_INDEXED_CHARS):
            hashes *= base
            hashes += codes[offset : offset + windows]
        del codes
        order = np.argsort(hashes)
        self._hashes = hashes[order]
        del hashes
        self._offsets = order.astype(np.int32 if windows < 2**31 else np.int64)


def _window_hash(window: str) -> int:
    """The rolling hash `_Occurrences` keeps for a window of the text."""
    value = 0
    for char in window:
        value = (value * _HASH_BASE + ord(char)) & _HASH_MASK
    return value


# --- searching -----------------------------------------------------------------------------

_WINDOW = 96  # quote characters in the head and in the tail window of a long quote
_WINDOW_ERRORS = 0.4  # edits a window may carry, as a share of its length
_LONGEST_WINDOW = 4 * _WINDOW  # the longest stretch aligned when a window alone fails
_SEED = 10  # characters in a seed k-gram
_SEED_STEP = 4  # the text is indexed at every 4th offset, patterns at every offset
_MAX_POSTINGS = 64  # a k-gram found more often than this says nothing about where a quote is
_MAX_REGIONS = 24  # seed regions aligned per window, most votes first
_MAX_HITS = 256  # exact hits collected per anchor
_PIECE = 24  # characters in a piece tested for recurring
_EDGE_CHARS = 16  # at most this much of a quote's opening (or ending) is looked for past an edge
_EDGE_GAP = 48  # ... across at least this much inserted text (a quarter of the quote if more)
_CIGAR = re.compile(r"(\d+)([=XID])")
_MAX_WEAK = 16  # weak places offered per anchor, the nearest to its hint
_MAX_VERBATIM = 64  # verbatim places of a quote looked at closely, the nearest to its hint


class _Document:
    """One text prepared for many anchors; the costly parts are built on first use."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.occurrences = _Occurrences(text)

    def exact_hits(self, anchor: Anchor) -> list[int]:
        """Quote starts where context + quote + context appear verbatim (at most `_MAX_HITS`)."""
        needle = anchor.prefix + anchor.quote + anchor.suffix
        return [at + len(anchor.prefix) for at in self.occurrences.starts(needle, _MAX_HITS)]

    def is_exact_at(self, anchor: Anchor, start: int) -> bool:
        at = start - len(anchor.prefix)
        return at >= 0 and self.text.startswith(anchor.prefix + anchor.quote + anchor.suffix, at)

    def verbatim_hits(self, anchor: Anchor, hint: int | None) -> list[_Verbatim]:
        """Where the quote stands character for character, and how much of its context stands
        with it there: the `_MAX_VERBATIM` places nearest the hint. An empty quote stands
        everywhere, so nowhere here."""
        quote = anchor.quote
        starts = self.occurrences.starts(quote, _MAX_HITS) if quote else []
        if len(starts) > _MAX_VERBATIM:
            near = 0 if hint is None else hint
            starts = sorted(sorted(starts, key=lambda start: abs(start - near))[:_MAX_VERBATIM])
        folded = _fold(anchor.prefix), _fold(anchor.suffix)
        return [self.verbatim_at(anchor, start, folded) for start in starts]

    def split(self, anchor: Anchor, hit: _Verbatim) -> bool:
        """Whether another copy of the quote kept the side of the context that `hit` lost.

        Then the old surroundings went half with one copy and half with the other, and which
        of the two is the anchor's, no text can say.
        """
        sides = (
            (anchor.prefix, hit.prefix, anchor.prefix + anchor.quote, len(anchor.prefix)),
            (anchor.suffix, hit.suffix, anchor.quote + anchor.suffix, 0),
        )
        for context, kept_here, kept, offset in sides:
            if not context or kept_here == _VERBATIM:
                continue
            if any(at + offset != hit.start for at in self.occurrences.starts(kept, _MAX_HITS)):
                return True
        return False

    def verbatim_at(
        self, anchor: Anchor, start: int, folded: tuple[str, str] | None = None
    ) -> _Verbatim:
        """How the quote at `start` keeps its context; `folded`: the context already folded."""
        text, prefix, suffix = self.text, anchor.prefix, anchor.suffix
        folded_prefix, folded_suffix = folded or (_fold(prefix), _fold(suffix))
        end = start + len(anchor.quote)
        if start >= len(prefix) and text.startswith(prefix, start - len(prefix)):
            before = _VERBATIM
        else:
            window = _fold(text[max(0, start - 2 * len(prefix) - 16) : start])
            before = _FOLDED if window.endswith(folded_prefix) else _EDITED
        if text.startswith(suffix, end):
            after = _VERBATIM
        else:
            window = _fold(text[end : end + 2 * len(suffix) + 16])
            after = _FOLDED if window.startswith(folded_suffix) else _EDITED
        return _Verbatim(start, before, after)

    def candidates(
        self, anchor: Anchor, hits: list[int], verbatim: list[_Verbatim], hint: int | None
    ) -> list[_Candidate]:
        """Every place that could be the anchor's, with its score: the exact hits and the rest.

        The quote found verbatim with its context changed only in typography or white space
        counts as exact text (though never as exact status); with its context edited it is a
        weak place, to be taken only where position expects it.
        """
        end = len(anchor.quote)
        places = [_Candidate(start, start + end, 1.0, True) for start in hits]
        if len(hits) >= _MAX_HITS:
            return places  # more rivals already than position could ever tell apart
        exact = set(hits)
        retypeset = [hit for hit in verbatim if hit.start not in exact and _EDITED not in hit.sides]
        places += [_Candidate(hit.start, hit.start + end, 1.0, True, True) for hit in retypeset]
        weak = [hit.start for hit in verbatim if _EDITED in hit.sides]
        if hint is not None:
            weak.sort(key=lambda start: (abs(start - hint), start))
        alone = len(verbatim) == 1
        target = _Target(anchor)
        scored = [self._score(target, span) for span in self._fuzzy_spans(target, seeded=True)]
        if not any(scored):
            # No seed led anywhere: scan the whole text before calling the anchor orphaned.
            scored = [self._score(target, span) for span in self._fuzzy_spans(target, False)]
        ranked = sorted(filter(None, scored), key=lambda place: (-place.score, place.start))
        for place in ranked:
            if not any(_same_place(place, other) for other in places):
                places.append(place)
        # Weak places stand where the quote does verbatim, apart from the exact ones; only the
        # few found by the search can be the same place.
        for start in weak[:_MAX_WEAK]:
            place = self._weak(anchor, start, alone)
            if not any(_same_place(place, other) for other in ranked):
                places.append(place)
        return places

    def _weak(self, anchor: Anchor, start: int, alone: bool) -> _Candidate:
        """A verbatim quote in edited context, scored by how much of its context is left.

        Whole lines of text (a heading, a paragraph, a link definition) that were whole lines
        and are whole lines again, the only place the quote stands, are that text moved; a
        phrase found inside other lines may be the same words in another passage.
        """
        end = start + len(anchor.quote)
        before = self.text[max(0, start - len(anchor.prefix)) : start]
        after = self.text[end : end + len(anchor.suffix)]
        edits = Levenshtein.distance(anchor.prefix, before) + Levenshtein.distance(
            anchor.suffix, after
        )
        total = len(anchor.prefix) + len(anchor.quote) + len(anchor.suffix)
        reach = 4 * CONTEXT_CHARS
        whole_lines = (
            alone
            and _opens_line(anchor.prefix, len(anchor.prefix) < CONTEXT_CHARS)
            and _closes_line(anchor.suffix, len(anchor.suffix) < CONTEXT_CHARS)
            and _opens_line(self.text[max(0, start - reach) : start], start <= reach)
            and _closes_line(self.text[end : end + reach], end + reach >= len(self.text))
        )
        return _Candidate(
            start, end, 1.0 - edits / total, False, weak=True, whole_lines=whole_lines
        )

    # the folded text, its codes for edlib and its seed index

    @cached_property
    def folded(self) -> _Folded:
        return _Folded(self.text)

    @cached_property
    def _alphabet(self) -> _Alphabet:
        """A code below 256 for each character of the folded text (edlib takes 256 symbols).

        Beyond 255 distinct characters the rarest share code 0, as do characters the text lacks.
        That only lets the search see too much, never too little: every place it finds is
        scored on the real characters.
        """
        text = self.folded.text
        if not text or max(text) < "\u0100":
            return _Alphabet((code, code) for code in range(256))  # Latin-1 is its own code
        counts = Counter(text)
        kept = sorted(counts, key=lambda char: (-counts[char], char))[:255]
        return _Alphabet((ord(char), code) for code, char in enumerate(sorted(kept), start=1))

    def _encode(self, text: str) -> bytes:
        return text.translate(self._alphabet).encode("latin-1")

    @cached_property
    def _codes(self) -> bytes:
        return self._encode(self.folded.text)

    @cached_property
    def _seeds(self) -> dict[str, list[int]]:
        text, index = self.folded.text, {}
        for offset in range(0, len(text) - _SEED + 1, _SEED_STEP):
            index.setdefault(text[offset : offset + _SEED], []).append(offset)
        return index

    # folded-text spans of the quote, found by aligning its windows

    def _fuzzy_spans(self, target: _Target, seeded: bool) -> set[tuple[int, int]]:
        pattern = target.pattern
        if not pattern:
            return set()
        quote_start, quote_end = len(target.prefix), len(target.prefix) + len(target.quote)
        if len(target.quote) <= 2 * _WINDOW:
            return {
                (start, end)
                for start, end in self._align(pattern, quote_start, quote_end, seeded)
                if start <= end
            }
        # A long quote: its head and tail windows are found apart, each one finding the other
        # near where the quote's length says it should be.
        head = pattern[: quote_start + _WINDOW]
        tail = pattern[quote_end - _WINDOW :]
        length = len(target.quote)
        slack = max(_WINDOW, int(length * (1 - MIN_QUOTE_SIMILARITY)))
        spans = set()
        for start, _ in self._align(head, quote_start, None, seeded):
            lo, hi = start + length - _WINDOW - slack, start + length + len(target.suffix) + slack
            ends = [end for _, end in self._align(tail, None, _WINDOW, None, region=(lo, hi))]
            ends = ends or self._far_ends(target, start, slack)
            spans.update((start, end) for end in _closest(ends, start + length))
        for _, end in self._align(tail, None, _WINDOW, seeded):
            if any(span_end == end for _, span_end in spans):
                continue
            lo, hi = end - length - quote_start - slack, end - length + _WINDOW + slack
            starts = [start for start, _ in self._align(head, quote_start, None, None, (lo, hi))]
            starts = starts or self._far_starts(target, end, slack)
            spans.update((start, end) for start in _closest(starts, end - length))
        return {(start, end) for start, end in spans if start <= end}

    # When one window is too edited to align (its side of the quote rewritten, or moved away),
    # longer stretches of the quote on that side are aligned instead, up to `_LONGEST_WINDOW`,
    # and the boundary moves inwards past whatever replaced that side.

    def _far_ends(self, target: _Target, start: int, slack: int) -> list[int]:
        quote, size = target.quote, 2 * _WINDOW
        while size <= min(len(quote) - 1, _LONGEST_WINDOW):
            lo, hi = start + len(quote) - size - slack, start + len(quote) + slack
            ends = [end for _, end in self._align(quote[-size:], None, size, None, (lo, hi))]
            if ends:
                return ends
            size *= 2
        return []

    def _far_starts(self, target: _Target, end: int, slack: int) -> list[int]:
        quote, size = target.quote, 2 * _WINDOW
        while size <= min(len(quote) - 1, _LONGEST_WINDOW):
            lo, hi = end - len(quote) - slack, end - len(quote) + size + slack
            starts = [start for start, _ in self._align(quote[:size], 0, None, None, (lo, hi))]
            if starts:
                return starts
            size *= 2
        return []

    def _align(
        self,
        pattern: str,
        start_mark: int | None,
        end_mark: int | None,
        seeded: bool | None,
        region: tuple[int, int] | None = None,
    ) -> list[tuple[int, int]]:
        """Where `pattern` aligns: the folded-text offsets of its quote start and end marks.

        `seeded` True searches the seed regions, False the whole text, None only `region`.
        A mark whose side of the quote did not align (text replaced there) moves inwards to
        where the alignment holds again, so a span does not take in text that replaced its edge.
        """
        codes = self._codes
        if region is not None:
            regions = [(max(0, region[0]), min(len(codes), region[1]))]
        elif seeded:
            regions = self._seed_regions(pattern)
        else:
            regions = [(0, len(codes))]
        encoded, limit = self._encode(pattern), int(len(pattern) * _WINDOW_ERRORS)
        per_region = 8 if seeded else 64
        aligned = []
        for lo, hi in regions:
            if hi <= lo:
                continue
            found = edlib.align(encoded, codes[lo:hi], mode="HW", task="locations", k=limit)
            if found["editDistance"] < 0:
                continue
            for start, end in _distinct(found["locations"])[:per_region]:
                at = lo + start
                cigar = edlib.align(encoded, codes[at : lo + end + 1], mode="HW", task="path")
                path = _Path(cigar["cigar"])
                first = 0 if start_mark is None else start_mark
                last = len(pattern) if end_mark is None else end_mark
                if start_mark is not None:
                    first = path.trim_start(start_mark, last)
                if end_mark is not None:
                    last = path.trim_end(end_mark, first)
                aligned.append((at + path.target(first), at + path.target(last)))
        return aligned

    def _seed_regions(self, pattern: str) -> list[tuple[int, int]]:
        """Regions of the folded text where k-grams of `pattern` line up, most votes first."""
        if len(pattern) < _SEED:
            return [(0, len(self.folded.text))]
        index, diagonals = self._seeds, []
        for offset in range(len(pattern) - _SEED + 1):
            postings = index.get(pattern[offset : offset + _SEED])
            if postings and len(postings) <= _MAX_POSTINGS:
                diagonals.extend(position - offset for position in postings)
        diagonals.sort()
        clusters: list[list[int]] = []  # first diagonal, last diagonal, votes
        for diagonal in diagonals:
            if clusters and diagonal - clusters[-1][1] <= 16:
                clusters[-1][1] = diagonal
                clusters[-1][2] += 1
            else:
                clusters.append([diagonal, diagonal, 1])
        voted = sorted(
            (cluster for cluster in clusters if cluster[2] >= 2),
            key=lambda cluster: (-cluster[2], cluster[0]),
        )
        pad = int(len(pattern) * _WINDOW_ERRORS) + 8
        merged: list[list[int]] = []
        for lo, hi in sorted(
            (first - pad, last + len(pattern) + pad) for first, last, _ in voted[:_MAX_REGIONS]
        ):
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        return [(lo, hi) for lo, hi in merged]

    def _middle_holds(self, target: _Target, start: int, end: int) -> bool:
        """Whether most sample pieces of a long quote align about where the span puts them.

        A cheap test that spares the full comparison of a long quote with a span whose ends
        matched but whose middle is other text (ends in repeated boilerplate, say).
        """
        quote, codes = target.quote, self._codes
        span, pieces, size = end - start, 16, 24
        reach = 48 + span // 32
        held = 0
        for number in range(1, pieces + 1):
            offset = number * (len(quote) - size) // (pieces + 1)
            expected = start + offset * span // len(quote)
            region = codes[max(0, expected - reach) : expected + size + reach]
            piece = self._encode(quote[offset : offset + size])
            held += (
                edlib.align(piece, region, mode="HW", task="distance", k=size // 4)["editDistance"]
                >= 0
            )
        return held * 2 >= pieces

    def _widened(self, target: _Target, start: int, end: int) -> tuple[int, int]:
        """The span, its ends moved out over text inserted just inside the quote's edges.

        Alignment takes the cheapest path, and text inserted right after the quote's first few
        characters (a heading's "## " before a new `<a name>` tag) costs more to cross than
        those few characters cost to drop; the span then starts after the insertion. Where the
        dropped opening stands just before, with the old prefix right before it, the span
        starts there; the same at the end.
        """
        text, quote = self.folded.text, target.quote
        reach = max(_EDGE_GAP, len(quote) // 4)
        for size in range(min(_EDGE_CHARS, len(quote) - 1), 2, -1):
            if text.startswith(quote[:size], start):
                break
            at = text.rfind(quote[:size], max(0, start - reach - size), start)
            if at >= 0 and self._context_fits(target.prefix, at, start, before=True):
                start = at
                break
        for size in range(min(_EDGE_CHARS, len(quote) - 1), 2, -1):
            if text.endswith(quote[-size:], 0, end):
                break
            at = text.find(quote[-size:], end, end + reach + size)
            if at >= 0 and self._context_fits(target.suffix, at + size, end, before=False):
                end = at + size
                break
        return start, end

    def _context_fits(self, context: str, wider: int, narrower: int, *, before: bool) -> bool:
        """Whether the old context matches beside the wider edge better than beside the other."""
        if not context:
            return False
        text, size = self.folded.text, len(context)

        def edits(at: int) -> int:
            beside = text[max(0, at - size) : at] if before else text[at : at + size]
            return Levenshtein.distance(context, beside)

        return edits(wider) < edits(narrower)

    def _score(self, target: _Target, span: tuple[int, int]) -> _Candidate | None:
        """The place, scored on folded text, if it is good enough to count at all; widened over
        text inserted inside its edges where that still counts."""
        widened = self._widened(target, *span)
        found = self._score_span(target, widened) if widened != span else None
        return found or self._score_span(target, span)

    def _score_span(self, target: _Target, span: tuple[int, int]) -> _Candidate | None:
        text = self.folded.text
        start, end = span
        if len(target.quote) > _LONGEST_WINDOW and not self._middle_holds(target, start, end):
            return None
        found = text[start:end]
        longest = max(len(target.quote), len(found))
        allowed = int(longest * (1 - MIN_QUOTE_SIMILARITY))
        quote_edits = Levenshtein.distance(
            target.quote, found, score_cutoff=allowed, score_hint=max(8, longest // 32)
        )
        if quote_edits > allowed:
            return None
        before = text[max(0, start - len(target.prefix)) : start]
        after = text[end : end + len(target.suffix)]
        edits = (
            quote_edits
            + Levenshtein.distance(target.prefix, before)
            + Levenshtein.distance(target.suffix, after)
        )
        total = len(target.prefix) + longest + len(target.suffix)
        score = 1.0 - edits / total if total else 1.0
        stands_alone = len(target.quote) >= LONE_QUOTE_CHARS and quote_edits <= longest * (
            1 - LONE_QUOTE_SIMILARITY
        )
        if score < MIN_SCORE and not stands_alone:
            return None
        original_start = self.folded.to_original(start)
        original_end = max(original_start, self.folded.to_original(end))
        exact = self.text[original_start:original_end] == target.anchor.quote and (
            self.is_exact_at(target.anchor, original_start)
        )
        return _Candidate(original_start, original_end, 1.0 if exact else score, exact)


_EDITED, _FOLDED, _VERBATIM = "edited", "folded", "verbatim"


@dataclass(frozen=True)
class _Verbatim:
    """A place where the quote stands verbatim, and how each side of its context stands there."""

    start: int
    prefix: str  # _VERBATIM, _FOLDED (equal after folding typography) or _EDITED
    suffix: str

    @property
    def sides(self) -> tuple[str, str]:
        return self.prefix, self.suffix


def _opens_line(before: str, at_text_start: bool) -> bool:
    """Whether only indentation stands between a line break (or the text's start) and here."""
    head, newline, indent = before.rpartition("\n")
    return not indent.strip() and bool(newline or at_text_start)


def _closes_line(after: str, at_text_end: bool) -> bool:
    """Whether only trailing white space stands between here and a line break (or the end)."""
    rest, newline, _ = after.partition("\n")
    return not rest.strip() and bool(newline or at_text_end)


class _Alphabet(dict):
    """Character ordinal to code, for `str.translate`; a character without a code gets 0."""

    def __missing__(self, key: int) -> int:
        return 0


@dataclass(frozen=True)
class _Target:
    """An anchor folded like the text it is searched in, split back into its three parts."""

    anchor: Anchor

    @cached_property
    def _parts(self) -> tuple[str, str, str]:
        anchor = self.anchor
        joined = _Folded(anchor.prefix + anchor.quote + anchor.suffix)
        quote_start = joined.to_folded(len(anchor.prefix))
        quote_end = max(quote_start, joined.to_folded(len(anchor.prefix) + len(anchor.quote)))
        text = joined.text
        return text[:quote_start], text[quote_start:quote_end], text[quote_end:]

    @property
    def prefix(self) -> str:
        return self._parts[0]

    @property
    def quote(self) -> str:
        return self._parts[1]

    @property
    def suffix(self) -> str:
        return self._parts[2]

    @property
    def pattern(self) -> str:
        return "".join(self._parts)


class _Path:
    """An edlib alignment path (extended CIGAR), read from the pattern's side."""

    _PROBE = 16  # pattern characters looked at beside a quote boundary
    _RUN = 4  # matching characters in a row that count as aligned again

    def __init__(self, cigar: str | None) -> None:
        self.ops = [(int(count), op) for count, op in _CIGAR.findall(cigar or "")]
        self.matched: list[bool] = []
        for count, op in self.ops:
            if op != "D":
                self.matched.extend([op == "="] * count)

    def target(self, query_index: int) -> int:
        """The target offset aligned with `query_index`; text inserted right there comes after."""
        query = target = 0
        for count, op in self.ops:
            if op in "=X":
                if query + count > query_index:
                    return target + query_index - query
                query += count
                target += count
            elif op == "I":  # in the pattern only
                if query + count > query_index:
                    return target
                query += count
            else:  # "D": in the text only
                if query == query_index:
                    return target
                target += count
        return target

    def trim_start(self, mark: int, limit: int) -> int:
        """`mark`, or the first solid match after it when the text right after it was replaced."""
        probe = self.matched[mark : mark + self._PROBE]
        if not probe or sum(probe) * 2 >= len(probe):
            return mark
        for index in range(mark, limit - self._RUN + 1):
            if all(self.matched[index : index + self._RUN]):
                return index
        return mark

    def trim_end(self, mark: int, limit: int) -> int:
        """`mark`, or the last solid match before it when the text right before it was replaced."""
        probe = self.matched[max(0, mark - self._PROBE) : mark]
        if not probe or sum(probe) * 2 >= len(probe):
            return mark
        for index in range(mark, limit + self._RUN - 1, -1):
            if all(self.matched[index - self._RUN : index]):
                return index
        return mark


def _closest(offsets: list[int], expected: int, count: int = 2) -> list[int]:
    """The `count` offsets nearest to where the quote's length puts the other end."""
    return sorted(set(offsets), key=lambda offset: (abs(offset - expected), offset))[:count]


def _distinct(locations: list[tuple[int | None, int]]) -> list[tuple[int, int]]:
    """Best alignments, one per place: overlapping ones are the same place."""
    kept: list[tuple[int, int]] = []
    for start, end in sorted((start or 0, end) for start, end in locations):
        if kept and start <= kept[-1][1]:
            continue
        kept.append((start, end))
    return kept


def _same_place(one: _Candidate, other: _Candidate) -> bool:
    """Two places are one when they overlap by more than half of the shorter."""
    overlap = min(one.end, other.end) - max(one.start, other.start)
    shorter = min(one.end - one.start, other.end - other.start)
    if shorter == 0:
        return one.start == other.start
    return overlap * 2 > shorter
