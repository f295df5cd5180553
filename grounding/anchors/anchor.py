"""An anchor and where it was found: the values, the statuses and the thresholds."""

from __future__ import annotations

from dataclasses import dataclass

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


def _is_exact_at(text: str, anchor: Anchor, start: int) -> bool:
    """Whether context + quote + context stand verbatim in `text` with the quote at `start`."""
    at = start - len(anchor.prefix)
    return at >= 0 and text.startswith(anchor.prefix + anchor.quote + anchor.suffix, at)
