"""A project's guidelines cut into sections, so that an item's page can show the sections
about its kind of item first.

The guidelines are Markdown; each `## ` heading opens a section, and a heading whose title
names a kind of item ("Plans", "Segmentation", "Cases", "Moderation", "Answers") makes its
section that kind's. What comes before the first such heading is a section without a title.
A `## ` line inside a fenced code block is code, not a heading.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The words in a heading that make its section one kind's; matched as whole words, in any case.
KIND_WORDS = {
    "plans": frozenset({"plan", "plans", "segmentation", "segment", "segments"}),
    "cases": frozenset({"case", "cases", "moderation"}),
    "answers": frozenset({"answer", "answers"}),
}

_HEADING = re.compile(r"^ {0,3}## +(?P<title>.*?)(?: +#+)? *$")
_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})")
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Section:
    title: str  # "" for what comes before the first heading
    markdown: str  # the section's text, its heading line included
    kinds: frozenset[str]


def kinds_named(title: str) -> frozenset[str]:
    """The kinds of item a heading's title names."""
    words = set(_WORD.findall(title.lower()))
    return frozenset(kind for kind, names in KIND_WORDS.items() if words & names)


def split_sections(text: str) -> tuple[Section, ...]:
    """The sections of `text`, in order; blank ones left out."""
    pieces: list[tuple[str, list[str]]] = [("", [])]
    fence = ""
    for line in (text or "").splitlines():
        opened = _FENCE.match(line)
        if opened and (not fence or opened.group("fence").startswith(fence)):
            fence = "" if fence else opened.group("fence")[:3]
        heading = None if fence else _HEADING.match(line)
        if heading:
            pieces.append((heading.group("title").strip(), []))
        pieces[-1][1].append(line)
    return tuple(
        Section(title, "\n".join(lines).strip("\n"), kinds_named(title))
        for title, lines in pieces
        if "\n".join(lines).strip()
    )


def sections_for(kind: str, sections: tuple[Section, ...]) -> tuple[Section, ...]:
    """`sections` with those about `kind` first, each group in its own order."""
    if kind not in KIND_WORDS:
        raise ValueError(f"Unknown kind of item {kind!r}: one of {', '.join(KIND_WORDS)}.")
    first = tuple(section for section in sections if kind in section.kinds)
    return first + tuple(section for section in sections if kind not in section.kinds)
