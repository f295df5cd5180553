"""Typography folded to plain characters (quotes, dashes, ellipses, runs of white space),
with a map back to the original offsets."""

from __future__ import annotations

import bisect
import re

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
