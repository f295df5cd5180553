"""Relocating the anchors of real plans across real revisions of documentation files.

    .venv/bin/python benchmarks/bench_anchor_revisions.py

The corpus (benchmarks/corpus/revisions, origins in its MANIFEST.md) holds twenty often-edited
Markdown, reStructuredText and AsciiDoc files, each at a base revision and 1, 10 and 50
revisions later: 60 pairs of old and new text, edited the way people edit documentation.

The anchors are made as the app makes them, on the old text: the entries of the plan that
grounding.propose proposes for it (Markdown by its headings; the others, which it reads as plain
text, cut at paragraph boundaries into parts of at most 2,500 characters), and one anchor per
paragraph (a run of non-blank lines), as an editor's entries would be. Each pair's anchors are
relocated with one `relocate` call, hinted with their old offsets.

The truth is an independent alignment of old to new text with difflib, which knows nothing of
the anchors: lines first, compared by their words (SequenceMatcher, no junk heuristic), so that
a re-indented line is still the same line, and each insertion or deletion slid down as diff
tools do; then the characters of each pair of aligned lines and of each replaced block (a line
of which less than half aligns counts as deleted); then passages that left their place (the
deleted lines aligned with the inserted ones in the same way; a run of at least 16 characters
is taken as moved), and last paragraphs moved and edited on the way (a run of deleted lines at
least 70 % like a run of inserted lines, difflib's ratio, and liked best, is that paragraph).
What became of each quote follows as in bench_anchors: its surviving characters, by their new
offsets, clustered; "present" when one cluster holds at least 90 % of the quote with at most
10 % of other text inside, "gone" when less than half survives, "broken" in between.

What counts, per anchor:

  - correct: present and placed (exact, moved or fuzzy) with both ends within 8 characters plus
    1 % of the quote's length of the true ends; broken and fuzzy on what is left, or orphaned;
    gone and orphaned.
  - flagged: fuzzy or ambiguous; a person looks at it.
  - orphaned while surviving: orphaned although the quote is present.
  - SILENT WRONG: exact or moved, and not correct. The unforgivable outcome.
  - verbatim and unique, orphaned: the quote stands character for character, once, in the new
    text, and was orphaned anyway.
  - retypeset only: the quote stands verbatim at its true place and its context differs from
    the old one only in white space and typography (compared after a fold of this script's own);
    such an anchor should flag nothing. Where the quote's own text was retypeset (reflowed,
    curly quotes), the span's text changed, and the anchor is at best fuzzy by design: those
    are counted apart, below the tables.

Last, a stress line: a plan of 3,000 anchors that all quote the same two characters, to show
the cost stays bounded where a quote stands thousands of times.

The baseline, as in bench_anchors, is diff-match-patch's match_main on the quote's first and
last 32 characters, with no statuses: every span it returns counts as placed.

Goals (issue "Part 9", anchors on real edits): silently wrong 0; correct >= 98.5 %; flagged
<= 10 %; orphaned while surviving <= 0.5 %; no verbatim, unique quote orphaned; no retypeset
anchor flagged; <= 2 ms per anchor.
"""

from __future__ import annotations

import difflib
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench_anchors import GONE, PRESENT, TOLERANCE_CHARS, dmp_relocate, true_span

from grounding.anchors import AMBIGUOUS, FUZZY, ORPHANED, PLACED, Location, make_anchor, relocate
from grounding.extract import extract_text
from grounding.propose import NothingToPropose, propose_plan

CORPUS = Path(__file__).resolve().parent / "corpus" / "revisions"
DISTANCES = (1, 10, 50)
FORMATS = {".md": "markdown", ".rst": "reStructuredText", ".adoc": "AsciiDoc"}
PART_CHARS = 2_500
# Character-level alignment inside a replaced block only up to this size on each side; a larger
# block (rare: a rewritten chapter) is taken as deleted and inserted, which only makes quotes in
# it look gone, never present.
CHAR_DIFF_LIMIT = 30_000
MOVED_LINE_CHARS = 16
MOVED_PARAGRAPH_SIMILARITY = 0.7


# --- the anchors -------------------------------------------------------------------------------


def plan_spans(name: str, text: str) -> list[tuple[int, int]]:
    """The spans of the plan grounding.propose makes for the old text."""
    kind = ".md" if name.endswith(".md") else ".txt"
    try:
        plan = propose_plan(f"revision{kind}", text.encode(), max_segment_chars=PART_CHARS)
    except NothingToPropose:
        return []
    return [tuple(entry["span"]) for entry in plan["entries"]]


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    return [match.span() for match in re.finditer(r"\S[^\n]*(?:\n[ \t]*\S[^\n]*)*", text)]


def anchor_spans(name: str, text: str) -> list[tuple[int, int]]:
    spans = set(plan_spans(name, text)) | set(paragraph_spans(text))
    return sorted(span for span in spans if span[1] > span[0])


# --- the truth ---------------------------------------------------------------------------------


def new_positions(old: str, new: str) -> list[int]:
    """For each old character, its offset in the new text by difflib, or -1 if it is gone."""
    position, taken = [-1] * len(old), bytearray(len(new))
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    old_starts, new_starts = _line_starts(old_lines), _line_starts(new_lines)

    def map_chars(old_at: int, a: str, new_at: int, b: str) -> None:
        if a == b:
            blocks = [(0, 0, len(a))]
        elif len(a) <= CHAR_DIFF_LIMIT and len(b) <= CHAR_DIFF_LIMIT:
            blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
        else:
            return
        for ai, bj, size in blocks:
            for k in range(size):
                position[old_at + ai + k] = new_at + bj + k
                taken[new_at + bj + k] = 1

    def map_line(i: int, j: int) -> None:
        map_chars(old_starts[i], old_lines[i], new_starts[j], new_lines[j])

    def kept(i: int) -> bool:  # at least half of the old line is aligned
        aligned = sum(position[at] >= 0 for at in range(old_starts[i], old_starts[i + 1]))
        return 2 * aligned >= len(old_lines[i])

    def used(j: int) -> bool:  # at least half of the new line is aligned
        return 2 * sum(taken[new_starts[j] : new_starts[j + 1]]) >= len(new_lines[j])

    # Lines are compared by their words, so that re-indenting or re-spacing a line keeps it the
    # same line; its characters are then aligned one by one.
    old_words, new_words = (
        [_words(line) for line in old_lines],
        [_words(line) for line in new_lines],
    )
    lines = difflib.SequenceMatcher(None, old_words, new_words, False)
    deleted, inserted = [], []
    for tag, i1, i2, j1, j2 in _slid_down(lines.get_opcodes(), old_words, new_words):
        if tag == "equal":
            for k in range(i2 - i1):
                map_line(i1 + k, j1 + k)
            continue
        if tag == "replace":
            a, b = old[old_starts[i1] : old_starts[i2]], new[new_starts[j1] : new_starts[j2]]
            map_chars(old_starts[i1], a, new_starts[j1], b)
        # A line of which a replaced block kept less than half lost its place: scattered
        # characters aligned with other text say nothing.
        for i in range(i1, i2):
            if not kept(i):
                for at in range(old_starts[i], old_starts[i + 1]):
                    if position[at] >= 0:
                        taken[position[at]] = 0
                        position[at] = -1
                deleted.append(i)
        inserted.extend(j for j in range(j1, j2) if not used(j))
    # Lines that left their place: difflib aligns in order, so a moved passage shows as deleted
    # here and inserted there. The deleted lines are aligned with the inserted ones, twice (a
    # second time for passages that crossed); a run of at least 16 characters is moved text.
    for _ in range(2):
        moved = difflib.SequenceMatcher(
            None, [old_words[i] for i in deleted], [new_words[j] for j in inserted], False
        )
        for a, b, size in moved.get_matching_blocks():
            if sum(len(old_words[i]) for i in deleted[a : a + size]) >= MOVED_LINE_CHARS:
                for k in range(size):
                    map_line(deleted[a + k], inserted[b + k])
        deleted = [i for i in deleted if not kept(i) and old_lines[i].strip()]
        inserted = [j for j in inserted if not used(j) and new_lines[j].strip()]
    # Paragraphs that moved and were edited or re-wrapped on the way match no line; a run of
    # deleted lines at least MOVED_PARAGRAPH_SIMILARITY like a run of inserted ones, and more
    # like it than like any other, is that paragraph.
    olds = [(old_starts[run[0]], old_starts[run[-1] + 1]) for run in _runs(deleted)]
    news = [(new_starts[run[0]], new_starts[run[-1] + 1]) for run in _runs(inserted)]
    pairs = []
    for a_start, a_end in olds:
        a = old[a_start:a_end]
        if len(a.strip()) < MOVED_LINE_CHARS:
            continue
        for b_start, b_end in news:
            matcher = difflib.SequenceMatcher(None, a, new[b_start:b_end], autojunk=False)
            if matcher.real_quick_ratio() >= MOVED_PARAGRAPH_SIMILARITY and (
                matcher.quick_ratio() >= MOVED_PARAGRAPH_SIMILARITY
            ):
                ratio = matcher.ratio()
                if ratio >= MOVED_PARAGRAPH_SIMILARITY:
                    pairs.append((ratio, a_start, a_end, b_start, b_end))
    done_old, done_new = set(), set()
    for _, a_start, a_end, b_start, b_end in sorted(pairs, reverse=True):
        if a_start not in done_old and b_start not in done_new:
            done_old.add(a_start)
            done_new.add(b_start)
            map_chars(a_start, old[a_start:a_end], b_start, new[b_start:b_end])
    return position


def _runs(indexes: list[int]) -> list[list[int]]:
    """Consecutive line numbers grouped: the lines of one paragraph."""
    runs: list[list[int]] = []
    for index in indexes:
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs


def _slid_down(opcodes: list[tuple], a: list[str], b: list[str]) -> list[tuple]:
    """Each insertion or deletion between two equal runs, slid down as far as the lines allow.

    Where lines repeat (a blank line, an indented ":members:"), where an insertion begins is a
    matter of choice; diff tools slide it down, so that a repeated line stays with the lines it
    followed, and so does this.
    """
    ops = [list(op) for op in opcodes]
    for k in range(1, len(ops) - 1):
        before, op, after = ops[k - 1], ops[k], ops[k + 1]
        if before[0] != "equal" or after[0] != "equal" or op[0] not in ("insert", "delete"):
            continue
        lines, first = (b, 3) if op[0] == "insert" else (a, 1)
        while after[1] < after[2] and lines[op[first]] == lines[after[first]]:
            before[2] += 1
            before[4] += 1
            for index in range(1, 5):
                op[index] += 1
            after[1] += 1
            after[3] += 1
    return [tuple(op) for op in ops if op[1] < op[2] or op[3] < op[4]]


def _words(line: str) -> str:
    return " ".join(line.split())


def _line_starts(lines: list[str]) -> list[int]:
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return starts


_TYPOGRAPHY = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u00a0": " ",
    }
)


def plain(text: str) -> str:
    """Text with its white space and typography made plain, to tell a retypesetting."""
    return " ".join(text.translate(_TYPOGRAPHY).replace("--", "-").split())


def retypeset_only(old: str, new: str, start: int, end: int, truth: tuple) -> bool:
    """Whether the quote stands verbatim at its true place and only its context was retypeset."""
    kind, (new_start, new_end) = truth
    if kind != PRESENT or new[new_start:new_end] != old[start:end]:
        return False
    anchor = make_anchor(old, start, end)
    if make_anchor(new, new_start, new_end) == anchor:
        return False  # nothing changed at all
    reach = 4 * len(anchor.prefix) + 16, 4 * len(anchor.suffix) + 16
    before, after = new[max(0, new_start - reach[0]) : new_start], new[new_end : new_end + reach[1]]
    return plain(before).endswith(plain(anchor.prefix)) and plain(after).startswith(
        plain(anchor.suffix)
    )


# --- the tally ---------------------------------------------------------------------------------


@dataclass
class Tally:
    count: int = 0
    correct: int = 0
    flagged: int = 0
    orphaned_surviving: int = 0
    silently_wrong: int = 0
    unique_orphaned: int = 0
    retypeset: int = 0
    retypeset_flagged: int = 0
    quote_retypeset: int = 0
    quote_retypeset_flagged: int = 0
    seconds: float = 0.0

    def add(self, judged: Judged, found: Location) -> None:
        kind, (start, end) = judged.truth
        tolerance = TOLERANCE_CHARS + judged.length // 100
        on_span = (
            kind != GONE
            and found.status not in (ORPHANED, AMBIGUOUS)
            and abs(found.start - start) <= tolerance
            and abs(found.end - end) <= tolerance
        )
        correct = (on_span and (kind == PRESENT or found.status == FUZZY)) or (
            found.status == ORPHANED and kind != PRESENT
        )
        flagged = found.status in (FUZZY, AMBIGUOUS)
        self.count += 1
        self.correct += correct
        self.flagged += flagged
        self.orphaned_surviving += found.status == ORPHANED and kind == PRESENT
        self.silently_wrong += found.status in PLACED and not correct
        self.unique_orphaned += found.status == ORPHANED and judged.verbatim_unique
        self.retypeset += judged.retypeset
        self.retypeset_flagged += judged.retypeset and flagged
        self.quote_retypeset += judged.quote_retypeset
        self.quote_retypeset_flagged += judged.quote_retypeset and flagged

    def merge(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def cells(self) -> str:
        def share(count: int) -> str:
            return f"{100 * count / self.count:8.2f}" if self.count else f"{'-':>8}"

        return (
            f"{self.count:7,} {share(self.correct)} {share(self.flagged)} "
            f"{share(self.orphaned_surviving)} {self.silently_wrong:7,} "
            f"{self.unique_orphaned:7,} {self.retypeset_flagged:4,}/{self.retypeset:<5,} "
            f"{1000 * self.seconds / max(1, self.count):7.3f}"
        )


@dataclass(frozen=True)
class Judged:
    truth: tuple
    length: int
    verbatim_unique: bool
    retypeset: bool
    quote_retypeset: bool  # the quote's own text changed in white space or typography only


@dataclass
class Pair:
    folder: str
    markup: str
    distance: int
    ours: Tally = field(default_factory=Tally)
    baseline: Tally = field(default_factory=Tally)
    statuses: Counter = field(default_factory=Counter)


def revision(folder: Path, distance: int, suffix: str) -> str:
    """The text of one revision, read as the app reads it (reStructuredText, AsciiDoc as text)."""
    kind = suffix if suffix == ".md" else ".txt"
    return extract_text(f"revision{kind}", (folder / f"r{distance}{suffix}").read_bytes())


def run_pair(folder: Path, suffix: str, distance: int) -> Pair:
    old, new = revision(folder, 0, suffix), revision(folder, distance, suffix)
    spans = anchor_spans(suffix, old)
    anchors = [make_anchor(old, start, end) for start, end in spans]
    hints = [start for start, _ in spans]
    position = new_positions(old, new)
    judged = []
    for start, end in spans:
        truth = true_span(position, start, end)
        quote = old[start:end]
        at = new.find(quote)
        unique = truth[0] == PRESENT and at >= 0 and new.find(quote, at + 1) < 0
        judged.append(
            Judged(
                truth,
                end - start,
                unique,
                retypeset_only(old, new, start, end, truth),
                truth[0] == PRESENT
                and new[truth[1][0] : truth[1][1]] != quote
                and plain(new[truth[1][0] : truth[1][1]]) == plain(quote),
            )
        )

    pair = Pair(folder.name, FORMATS[suffix], distance)
    began = time.perf_counter()
    found = relocate(new, anchors, hints)
    pair.ours.seconds = time.perf_counter() - began
    began = time.perf_counter()
    theirs = dmp_relocate(new, [anchor.quote for anchor in anchors], hints)
    pair.baseline.seconds = time.perf_counter() - began
    for one, mine, its in zip(judged, found, theirs, strict=True):
        pair.ours.add(one, mine)
        pair.baseline.add(one, its)
    pair.statuses.update(location.status for location in found)
    return pair


def corpus_pairs() -> list[Pair]:
    pairs = []
    for folder in sorted(path for path in CORPUS.iterdir() if path.is_dir()):
        suffix = next(path.suffix for path in folder.iterdir() if path.stem == "r0")
        pairs.extend(run_pair(folder, suffix, distance) for distance in DISTANCES)
    return pairs


def repeated_quote() -> str:
    """A plan whose every anchor quotes the same two characters: the cost stays bounded."""
    items = [f"Call number {i} like this::\n\n    >>> call({i})\n" for i in range(3_000)]
    old = "\n".join(items)
    spans = [(match.start(), match.end()) for match in re.finditer("::", old)]
    anchors = [make_anchor(old, start, end) for start, end in spans]
    hints = [start for start, _ in spans]
    new = old.replace("::\n\n    >>>", "::\n    >>>")  # a blank line dropped after each
    began = time.perf_counter()
    found = relocate(new, anchors, hints)
    ours = time.perf_counter() - began
    began = time.perf_counter()
    dmp_relocate(new, [anchor.quote for anchor in anchors], hints)
    theirs = time.perf_counter() - began
    said = Counter(location.status for location in found)
    return (
        f"A plan of {len(anchors):,} anchors all quoting '::' (each once per item), a blank line "
        f"dropped after each:\n  {1000 * ours / len(anchors):.3f} ms per anchor, "
        f"{ours / theirs:.2f} times dmp's {1000 * theirs / len(anchors):.3f} ms; "
        + ", ".join(f"{status} {count:,}" for status, count in sorted(said.items()))
        + " (sparse anchors on a repeated quote: nothing proves which copy)"
    )


# --- the tables ----------------------------------------------------------------------------------


HEADINGS = (
    ("anchors", ""),
    ("correct", "%"),
    ("flagged", "%"),
    ("orphaned", "surviv %"),
    ("SILENT", "WRONG"),
    ("unique", "orphaned"),
    ("retypeset", "flagged/all"),
    ("ms per", "anchor"),
)
WIDTHS = (7, 8, 8, 8, 7, 7, 10, 7)


def print_table(title: str, groups: dict[str, list[Pair]]) -> None:
    print(title)
    for line in range(2):
        cells = " ".join(
            f"{heading[line]:>{width}}" for heading, width in zip(HEADINGS, WIDTHS, strict=True)
        )
        print(f"  {('', '')[line]:28} {('method', '')[line]:8} {cells}")
    for name, pairs in groups.items():
        ours, baseline = Tally(), Tally()
        for pair in pairs:
            ours.merge(pair.ours)
            baseline.merge(pair.baseline)
        print(f"  {name:28} {'anchors':8} {ours.cells()}")
        print(f"  {'':28} {'dmp':8} {baseline.cells()}")
    print()


def goals(total: Tally) -> list[str]:
    def share(count: int) -> float:
        return 100 * count / total.count

    ms = 1000 * total.seconds / total.count
    checks = (
        ("never silently wrong", total.silently_wrong == 0, f"{total.silently_wrong} anchors"),
        ("correct >= 98.5 %", share(total.correct) >= 98.5, f"{share(total.correct):.2f} %"),
        ("flagged <= 10 %", share(total.flagged) <= 10, f"{share(total.flagged):.2f} %"),
        (
            "orphaned while surviving <= 0.5 %",
            share(total.orphaned_surviving) <= 0.5,
            f"{share(total.orphaned_surviving):.2f} %",
        ),
        (
            "no verbatim, unique quote orphaned",
            total.unique_orphaned == 0,
            f"{total.unique_orphaned} anchors",
        ),
        (
            "no retypeset-only anchor flagged",
            total.retypeset_flagged == 0,
            f"{total.retypeset_flagged} of {total.retypeset}",
        ),
        ("<= 2 ms per anchor", ms <= 2, f"{ms:.3f} ms"),
    )
    return [f"  {label:38} {'met' if met else 'MISSED'} ({value})" for label, met, value in checks]


def main() -> None:
    pairs = corpus_pairs()
    files = len({pair.folder for pair in pairs})
    total = Tally()
    for pair in pairs:
        total.merge(pair.ours)
    print(f"{len(pairs)} revision pairs of {files} files, {total.count:,} anchors")
    print(
        "  (shares in % of the group's anchors; SILENT WRONG and unique orphaned in anchors;\n"
        "   dmp has no statuses, so it never flags)\n"
    )
    print_table(
        "By distance:",
        {f"{d} revision(s)": [p for p in pairs if p.distance == d] for d in DISTANCES},
    )
    print_table(
        "By format:",
        {markup: [p for p in pairs if p.markup == markup] for markup in FORMATS.values()},
    )
    print_table("All:", {"all pairs": pairs})
    baseline = Tally()
    for pair in pairs:
        baseline.merge(pair.baseline)
    print(
        f"Time: relocate takes {total.seconds / baseline.seconds:.2f} times as long as dmp's "
        f"match_main for the same anchors ({1000 * total.seconds / total.count:.3f} against "
        f"{1000 * baseline.seconds / baseline.count:.3f} ms per anchor)."
    )
    print(
        f"Quotes whose own text was only retypeset: {total.quote_retypeset:,}, of which "
        f"{total.quote_retypeset_flagged:,} flagged (by design: the span's text changed).\n"
    )
    print(repeated_quote())
    print()
    print("Worst pairs by flagged share (anchors):")
    worst = sorted(pairs, key=lambda pair: -pair.ours.flagged / max(1, pair.ours.count))[:5]
    for pair in worst:
        said = " ".join(f"{status} {pair.statuses[status]}" for status in sorted(pair.statuses))
        print(f"  {pair.folder:46} r{pair.distance:<3} {said}")
    print()
    print("Goals:")
    for row in goals(total):
        print(row)


if __name__ == "__main__":
    main()
