"""Paragraph boundaries: where a person may start or end a span without cutting a paragraph.

An entry proposed by `grounding.propose` ends where the next paragraph starts, so that the
entries tile the text; a span a person types is offered the nearest of these boundaries.

A PDF's text (`pages_joined`) has no blank lines of its own: `grounding.extract` joins its
pages with one, so a blank line inside a sentence is a page break, not a paragraph break, and
its paragraphs end at a line that ends a sentence or before a numbered section heading.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

# A blank line, possibly holding spaces: where one paragraph ends and the next starts.
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# In a PDF's text, also a line break after a sentence or before a numbered heading (2.1 ...).
_PDF_PARAGRAPH_BREAK = re.compile(
    r"\n[ \t]*\n\s*|(?<=[.!?:])[ \t]*\n(?=\S)|\n(?=\d+(?:\.\d+)*\.?[ \t]+\w)"
)
# Characters of text shown beside an offered boundary.
CONTEXT_CHARS = 48


@dataclass(frozen=True)
class Boundary:
    """A paragraph boundary near an offset, with a little of the text beside it."""

    offset: int
    context: str


def paragraph_boundaries(text: str, *, pages_joined: bool = False) -> tuple[list[int], list[int]]:
    """Offsets where paragraphs start and where they end (the end excludes the blank line)."""
    starts, ends = [0], []
    breaks = _PDF_PARAGRAPH_BREAK if pages_joined else _PARAGRAPH_BREAK
    for match in breaks.finditer(text):
        if pages_joined and _inside_a_sentence(text, match.start(), match.end()):
            continue
        ends.append(match.start())
        starts.append(match.end())
    ends.append(len(text.rstrip()))
    return starts, ends


def _inside_a_sentence(text: str, end: int, start: int) -> bool:
    """A page break between a word and the lower-case word that goes on from it."""
    before = text[end - 1] if end else ""
    after = text[start] if start < len(text) else ""
    return (before.isalnum() or before in ",-") and after.islower()


def is_paragraph_start(text: str, offset: int, *, pages_joined: bool = False) -> bool:
    return offset in paragraph_boundaries(text, pages_joined=pages_joined)[0]


def is_paragraph_end(text: str, offset: int, *, pages_joined: bool = False) -> bool:
    """At the end of a paragraph's text, or where the next paragraph starts (the proposer's
    entries end there), or at the end of the text."""
    starts, ends = paragraph_boundaries(text, pages_joined=pages_joined)
    return offset in ends or offset in starts[1:] or offset == len(text)


def nearest_paragraph_starts(
    text: str, offset: int, count: int = 2, *, pages_joined: bool = False
) -> list[Boundary]:
    starts, _ = paragraph_boundaries(text, pages_joined=pages_joined)
    return [
        Boundary(found, _one_line(text[found : found + CONTEXT_CHARS]) + "…")
        for found in _nearest(starts, offset, count)
    ]


def nearest_paragraph_ends(
    text: str, offset: int, count: int = 2, *, pages_joined: bool = False
) -> list[Boundary]:
    """Ends offered where the next paragraph starts, as the proposer ends its entries."""
    starts, _ = paragraph_boundaries(text, pages_joined=pages_joined)
    ends = sorted({*starts[1:], len(text)})
    return [
        Boundary(found, "…" + _one_line(text[max(0, found - CONTEXT_CHARS) : found]))
        for found in _nearest(ends, offset, count)
    ]


def _nearest(offsets: list[int], offset: int, count: int) -> list[int]:
    index = bisect.bisect_left(offsets, offset)
    around = offsets[max(0, index - count) : index + count]
    return sorted(sorted(around, key=lambda found: abs(found - offset))[:count])


def _one_line(snippet: str) -> str:
    return " ".join(snippet.split())
