"""What the proposer proposes on real documents: the corpus in benchmarks/corpus/proposer
(papers and manuals as PDF, PEPs, man pages, licences, Markdown books and blog posts).

Per document: the entries, the share of the text in the largest entry, the share of the
text that some entry covers, and how many proposed headings an independent check calls
page furniture, contents lines or reference-list items. The check uses none of the
proposer's gates: it counts on how many pages a heading's line (less its page number) recurs
among the first or last three lines, when an earlier line already said it; it matches
contents lines with patterns of its own (leaders, a trailing page number); and it calls a
heading a reference when it starts like a list item below a "References" line and above any
appendix or index. Figures only; nothing here passes or fails.
"""

from __future__ import annotations

import logging
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from grounding.extract import PAGE_BREAK, extract_pages
from grounding.propose import NothingToPropose, propose_plan

CORPUS = Path(__file__).resolve().parent / "corpus" / "proposer"
KINDS = {".pdf": "pdf", ".txt": "text", ".md": "markdown"}
# A document with at least this many entries proposed from headings "has real headings".
HEADED = 3
QUARTER = 0.25
# Lines this close to a page's top or bottom are where running headers and footers live.
EDGE_LINES = 3
MIN_FURNITURE_PAGES = 3

_LINE = re.compile(r"^.*$", re.MULTILINE)
_NUMBERED_SHAPE = re.compile(r"\s*\d{1,3}(?:\.\d{1,3})*\.?\s+\S")
MAX_TRAP_CHARS = 100
_LEADING_NUMBER = re.compile(r"^\d+ ")
_TRAILING_NUMBER = re.compile(r" \d+$")
# How a reference-list item begins: "[12]", "3.", "Afek, Y.".
_REFERENCE_ITEM = re.compile(r"\s*(?:\[\w+\]|\d+\.?\s|[A-Z][\w'’-]+,\s+[A-Z]\.)")
_SPACE = re.compile(r"\s+")
_LEADERS = re.compile(r"(?:\.\s*){4,}|…|_{4,}")
# A line ending in a page number after words: "3. Overview of proof of main theorem 11".
# Words that a number naturally follows in a real heading are excepted.
_TRAILING_PAGE = re.compile(
    r"[A-Za-z][A-Za-z)\]:,'’]*\s+(?<!chapter )(?<!part )(?<!appendix )(?<!section )"
    r"(?<!version )(?<!step )(?<!level )(?<!phase )(?<!python )(?<!pep )\d{1,4}\s*$",
    re.IGNORECASE,
)
_REFERENCES = re.compile(
    r"\s*(?:\d+\.?\s+|[A-Z]\.?\s+)?(?:references|bibliography|works cited|literature|"
    r"literatur|referanser|further reading)\s*",
    re.IGNORECASE,
)
# What may follow a reference list and is a real heading again.
_BACK_MATTER = re.compile(
    r"\s*(?:\d+\.?\s+)?(?:appendix|appendices|index|acknowledge?ments?|[A-H](?:\.\d+)*\.?\s+[A-Z][a-z])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Verdict:
    """What the independent check says about one document's plan."""

    entries: int
    largest: float  # share of the text in the largest entry
    covered: float  # share of the text in some entry
    headed: bool  # proposed at least HEADED entries from headings
    furniture: tuple[str, ...]
    contents: tuple[str, ...]
    references: tuple[str, ...]
    traps: int  # numbered-looking lines in the text that would be such headings

    @property
    def wrong(self) -> int:
        return len(self.furniture) + len(self.contents) + len(self.references)


def documents() -> list[Path]:
    return sorted(path for path in CORPUS.glob("*/*") if path.suffix in KINDS)


def _normal(line: str) -> str:
    """The line without its page number: a leading number if it has one, else a trailing
    one ("10 JEAN BOURGAIN" and "12 JEAN BOURGAIN" are one header, "3 Usage" is not "6 3
    Usage")."""
    line = _SPACE.sub(" ", line).strip().casefold()
    without = _LEADING_NUMBER.sub("", line, count=1)
    return without if without != line else _TRAILING_NUMBER.sub("", line, count=1)


def page_edges(pages: list[str]) -> Counter:
    """How many pages carry each line (without its page number) among their first or last
    lines."""
    seen: Counter = Counter()
    for page in pages:
        lines = [line for line in page.splitlines() if line.strip()]
        edges = lines[:EDGE_LINES] + lines[-EDGE_LINES:]
        seen.update({_normal(line) for line in edges if _normal(line)})
    return seen


def first_line(text: str, start: int) -> str:
    end = text.find("\n", start)
    return text[start : end if end >= 0 else len(text)]


def references_start(text: str) -> int:
    """Where the last "References" line ends, or -1: what follows is a reference list."""
    found = -1
    for match in _LINE.finditer(text):
        if _REFERENCES.fullmatch(match.group()):
            found = match.end()
    return found


def propose_and_judge(path: Path) -> Verdict:
    data = path.read_bytes()
    pages = extract_pages(path.name, data)
    try:
        entries = propose_plan(path.name, data)["entries"]
    except NothingToPropose:
        entries = []
    return judge(pages, entries)


class _Check:
    """What the independent check knows about one document's text."""

    def __init__(self, pages: list[str]) -> None:
        self.text = text = PAGE_BREAK.join(pages)
        self.edges = page_edges(pages) if len(pages) > 1 else Counter()
        self.first_seen: dict[str, int] = {}
        for match in _LINE.finditer(text):
            self.first_seen.setdefault(_normal(match.group()), match.start())
        self.references = references_start(text)
        self.back_matter = len(text)
        if self.references >= 0:
            later = (
                match.start()
                for match in _LINE.finditer(text[self.references :])
                if _BACK_MATTER.match(match.group()) and len(match.group()) < 60
            )
            self.back_matter = self.references + next(later, len(text) - self.references)

    def fault(self, line: str, start: int, title: str) -> str:
        """ "furniture", "contents" or "references" for a heading that is one, else ""."""
        # A header repeats something said before it; the first line is what it repeats.
        key = _normal(line)
        if self.edges[key] >= MIN_FURNITURE_PAGES and self.first_seen[key] < start:
            return "furniture"
        if _LEADERS.search(line) or _TRAILING_PAGE.search(title):
            return "contents"
        if 0 <= self.references <= start < self.back_matter and _REFERENCE_ITEM.match(line):
            return "references"
        return ""

    def traps(self) -> int:
        """Lines shaped like numbered headings that the check would fault: what a proposer
        that took every numbered line would have got wrong."""
        return sum(
            bool(self.fault(match.group(), match.start(), match.group().strip()))
            for match in _LINE.finditer(self.text)
            if len(match.group()) <= MAX_TRAP_CHARS and _NUMBERED_SHAPE.match(match.group())
        )


def judge(pages: list[str], entries: list[dict]) -> Verdict:
    """The check of one plan's entries against the text they were proposed on, page by page."""
    check = _Check(pages)
    faults: dict[str, list[str]] = {"furniture": [], "contents": [], "references": []}
    headed = 0
    for entry in entries:
        start, _ = entry["span"]
        rules = entry["derived"][1:]
        if rules == ["rule:preamble"] or "rule:size-split" in rules and start == 0:
            continue
        headed += 1
        fault = check.fault(first_line(check.text, start), start, entry["title"])
        if fault:
            faults[fault].append(entry["title"])
    spans = [entry["span"][1] - entry["span"][0] for entry in entries] or [0]
    length = max(len(check.text), 1)
    return Verdict(
        len(entries),
        max(spans) / length,
        sum(spans) / length,
        headed >= HEADED,
        tuple(faults["furniture"]),
        tuple(faults["contents"]),
        tuple(faults["references"]),
        check.traps(),
    )


def main(argv: list[str]) -> None:
    # pypdf warns on every odd font dictionary; the figures are what matter here.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    verbose = "-v" in argv
    paths = documents()
    print(f"propose_plan over {len(paths)} real documents in {CORPUS.name}/ (no cap)")
    print("traps: lines shaped like numbered headings that the check calls furniture,")
    print("contents or references, i.e. what taking every numbered line would get wrong")
    print(
        f"{'document':<42} {'kind':<8} {'entries':>7} {'largest':>8} {'covered':>8} "
        f"{'furniture':>9} {'contents':>8} {'refs':>5} {'traps':>6}"
    )
    verdicts: dict[str, list[Verdict]] = {}
    for path in paths:
        kind = KINDS[path.suffix]
        verdict = propose_and_judge(path)
        verdicts.setdefault(kind, []).append(verdict)
        largest = f"{verdict.largest:.0%}" if verdict.entries else "-"
        print(
            f"{path.name[:42]:<42} {kind:<8} {verdict.entries:>7} {largest:>8} "
            f"{verdict.covered:>8.0%} {len(verdict.furniture):>9} {len(verdict.contents):>8} "
            f"{len(verdict.references):>5} {verdict.traps:>6}"
        )
        if verbose:
            for label in ("furniture", "contents", "references"):
                for title in getattr(verdict, label):
                    print(f"    {label}: {title[:90]!r}")
    print()
    print(
        f"{'kind':<8} {'documents':>9} {'nothing':>7} {'entries':>7} {'wrong headings':>14} "
        f"{'of traps':>8} {'headed docs with an entry > 25 %':>33} {'mean covered':>12}"
    )
    for kind, found in verdicts.items():
        proposed = [verdict for verdict in found if verdict.entries]
        oversized = sum(verdict.headed and verdict.largest > QUARTER for verdict in found)
        headed = sum(verdict.headed for verdict in found)
        covered = sum(verdict.covered for verdict in proposed) / max(len(proposed), 1)
        print(
            f"{kind:<8} {len(found):>9} {len(found) - len(proposed):>7} "
            f"{sum(verdict.entries for verdict in found):>7} "
            f"{sum(verdict.wrong for verdict in found):>14} "
            f"{sum(verdict.traps for verdict in found):>8} "
            f"{f'{oversized} of {headed}':>33} {covered:>12.0%}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
