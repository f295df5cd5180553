"""Locating a whole plan at once, from the surest evidence to the weakest."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from grounding.anchors.anchor import (
    DISTINCT_QUOTE_CHARS,
    EXACT,
    MOVED,
    ORPHANED,
    PLACED,
    Anchor,
    Location,
)
from grounding.anchors.decide import _Candidate, _decide, _Expected
from grounding.anchors.neighbours import _Drift, _OldText, _Stretches
from grounding.anchors.places import _VERBATIM, _Document, _Verbatim

_PIECE = 24  # characters in a piece tested for recurring


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
