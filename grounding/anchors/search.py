"""The bounded fuzzy search for an anchor in one text, on its folded copy.

k-gram seeds point at the few regions where the anchor could be, edlib aligns the quote's head
and tail windows there, and rapidfuzz's Levenshtein verifies the whole quote.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

import edlib
from rapidfuzz.distance import Levenshtein

from grounding.anchors.anchor import (
    LONE_QUOTE_CHARS,
    LONE_QUOTE_SIMILARITY,
    MIN_QUOTE_SIMILARITY,
    MIN_SCORE,
    Anchor,
    _is_exact_at,
)
from grounding.anchors.decide import _Candidate
from grounding.anchors.folding import _Folded

_WINDOW = 96  # quote characters in the head and in the tail window of a long quote
_WINDOW_ERRORS = 0.4  # edits a window may carry, as a share of its length
_LONGEST_WINDOW = 4 * _WINDOW  # the longest stretch aligned when a window alone fails
_SEED = 10  # characters in a seed k-gram
_SEED_STEP = 4  # the text is indexed at every 4th offset, patterns at every offset
_MAX_POSTINGS = 64  # a k-gram found more often than this says nothing about where a quote is
_MAX_REGIONS = 24  # seed regions aligned per window, most votes first
_EDGE_CHARS = 16  # at most this much of a quote's opening (or ending) is looked for past an edge
_EDGE_GAP = 48  # ... across at least this much inserted text (a quarter of the quote if more)
_CIGAR = re.compile(r"(\d+)([=XID])")


class _FuzzySearch:
    """One text searched for many anchors; its folded copy, codes and seeds built on first use."""

    def __init__(self, text: str) -> None:
        self.text = text

    def places(self, anchor: Anchor) -> list[_Candidate]:
        """The places similar enough to the anchor to count at all, best first."""
        target = _Target(anchor)
        scored = [self._score(target, span) for span in self._fuzzy_spans(target, seeded=True)]
        if not any(scored):
            # No seed led anywhere: scan the whole text before calling the anchor orphaned.
            scored = [self._score(target, span) for span in self._fuzzy_spans(target, False)]
        return sorted(filter(None, scored), key=lambda place: (-place.score, place.start))

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
            _is_exact_at(self.text, target.anchor, original_start)
        )
        return _Candidate(original_start, original_end, 1.0 if exact else score, exact)


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
