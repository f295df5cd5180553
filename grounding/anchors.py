"""W3C-style text-quote anchors: a quote with a little context on each side.

First cut: exact placement only. The bounded fuzzy search is being built next.
"""

from __future__ import annotations

from dataclasses import dataclass

CONTEXT_CHARS = 32

EXACT = "exact"
MOVED = "moved"
FUZZY = "fuzzy"
AMBIGUOUS = "ambiguous"
ORPHANED = "orphaned"
PLACED = frozenset({EXACT, MOVED})


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
        raise ValueError(f"span [{start}, {end}) does not lie within a text of {len(text)} characters")
    return Anchor(
        quote=text[start:end],
        prefix=text[max(0, start - CONTEXT_CHARS) : start],
        suffix=text[end : end + CONTEXT_CHARS],
    )


def locate(text: str, anchor: Anchor, hint: int | None = None) -> Location:
    start = text.find(anchor.quote)
    if start < 0 or text.find(anchor.quote, start + 1) >= 0:
        return Location(-1, -1, ORPHANED, 0.0)
    status = EXACT if start == hint else MOVED
    return Location(start, start + len(anchor.quote), status, 1.0)


def relocate(text: str, anchors, hints) -> list[Location]:
    return [locate(text, anchor, hint) for anchor, hint in zip(anchors, hints, strict=True)]
