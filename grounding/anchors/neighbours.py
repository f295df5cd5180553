"""What the anchors placed so far say about the rest: drift, verbatim stretches, and the old
text they quote."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from functools import cached_property

from grounding.anchors.anchor import Anchor
from grounding.anchors.index import _Occurrences


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
