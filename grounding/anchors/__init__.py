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

The modules, surest evidence first: `anchor` (the values, statuses and thresholds), `relocation`
(a whole plan, and the proofs of place), `neighbours` (what the placed anchors say), `decide`
(choosing between places), `places` (one anchor's places in a text), `index` (many `str.find`
look-ups in one text), `search` (the fuzzy search) and `folding` (typography made plain).
"""

from grounding.anchors.anchor import (
    AMBIGUITY_MARGIN,
    AMBIGUOUS,
    CONTEXT_CHARS,
    DISTINCT_QUOTE_CHARS,
    EXACT,
    FUZZY,
    LONE_QUOTE_CHARS,
    LONE_QUOTE_SIMILARITY,
    MIN_QUOTE_SIMILARITY,
    MIN_SCORE,
    MOVED,
    ORPHANED,
    PLACED,
    POSITION_TOLERANCE,
    Anchor,
    Location,
    make_anchor,
)
from grounding.anchors.index import _INDEXED_CHARS, _Occurrences
from grounding.anchors.relocation import locate, relocate

# The index is named here for its tests, which hold it to what `str.find` answers.
__all__ = [
    "AMBIGUITY_MARGIN",
    "AMBIGUOUS",
    "CONTEXT_CHARS",
    "DISTINCT_QUOTE_CHARS",
    "EXACT",
    "FUZZY",
    "LONE_QUOTE_CHARS",
    "LONE_QUOTE_SIMILARITY",
    "MIN_QUOTE_SIMILARITY",
    "MIN_SCORE",
    "MOVED",
    "ORPHANED",
    "PLACED",
    "POSITION_TOLERANCE",
    "Anchor",
    "Location",
    "locate",
    "make_anchor",
    "relocate",
    "_INDEXED_CHARS",
    "_Occurrences",
]
