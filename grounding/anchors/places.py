"""The places of one anchor in a text: where it stands exactly, where its quote stands
verbatim (and how its context stands there), and what the fuzzy search finds."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from rapidfuzz.distance import Levenshtein

from grounding.anchors.anchor import CONTEXT_CHARS, Anchor, _is_exact_at
from grounding.anchors.decide import _Candidate, _same_place
from grounding.anchors.folding import _fold
from grounding.anchors.index import _Occurrences
from grounding.anchors.search import _FuzzySearch

_MAX_HITS = 256  # exact hits collected per anchor
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
        return _is_exact_at(self.text, anchor, start)

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
        ranked = self._fuzzy.places(anchor)
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

    @cached_property
    def _fuzzy(self) -> _FuzzySearch:
        return _FuzzySearch(self.text)


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
