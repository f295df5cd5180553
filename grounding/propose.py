"""The mechanical proposer: headings become PROPOSED entries of a segmentation plan.

It proposes; a person adjudicates. Every entry it writes is marked PROPOSED and names the
rule that made it, and nothing here can mark an entry decided.

Rules (every entry names the ones that made it, so acceptance can be counted per rule):
- rule:heading: a Markdown heading (ATX "## Title" or setext "Title" over "===" / "---"),
  outside fenced code and front matter;
- rule:underlined-heading, rule:capitals-heading, rule:numbered-heading: in plain text, a
  title over a line of "=", "-", "~" ... (reStructuredText, PEPs); else man-page section
  names in capitals (and rule:man-subsection, their indented subsections); else short
  lines that start with a section number ("3.1 Brannkonsept"), their depth given by the
  number (grounding.headings has their gates);
- rule:pdf-outline: in a PDF, its bookmarks where they match the text, else its numbered
  lines; rule:references: a "References" or "Bibliography" line, whose list is one entry;
- rule:preamble: the text before the first entry, when it holds words;
- rule:clean-title: the title was cleaned of markup, control characters, ligatures or a
  trailing page number (it is named beside the rule that found the heading);
- rule:size-split (with --max-segment-chars): a span longer than the cap is cut at the last
  paragraph boundary at or before the cap, else hard at the cap; parts tile the span and
  keep their origin's rule. A document in which no heading proposes anything counts as one
  span, so a long unstructured document is split by size alone.

Gates: a heading made only of stop words (Norwegian or English) or of no words at all opens
no segment; a heading with no body (only blank lines or gated headings before the next
heading) proposes nothing, though it still names the level its sub-headings live under.

An entry runs from its heading line to the next entry's start (the last one to the end of
the text), so entries and the preamble tile the whole text. Body-less headings directly
above an entry that are its ancestors open that entry (a chapter heading belongs to its
first section, not to the previous one's end); gated headings stay in the entry they stand
in. Paths are hierarchical lower-case slugs; æ, ø and å are written ae, oe and aa (the
Norwegian convention for plain ASCII, the one "Roemning" and "Baereevne" use).
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import os
import re
import sys
import tempfile
import traceback
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from grounding import __version__
from grounding.anchors import make_anchor
from grounding.extract import (
    EXTRACTOR_ID,
    PAGE_BREAK,
    ExtractError,
    PageProgress,
    document_type,
    extract_pages,
    extractor_version,
)
from grounding.headings import (
    RULE_CAPITALS_HEADING,
    RULE_MAN_SUBSECTION,
    RULE_NUMBERED_HEADING,
    RULE_PDF_OUTLINE,
    RULE_REFERENCES,
    RULE_UNDERLINED_HEADING,
    Heading,
    capitals_headings,
    numbered_headings,
    outline_headings,
    page_furniture,
    underlined_headings,
)
from grounding.headings import (
    lines as _text_lines,
)
from grounding.pdf_outline import read_outline
from grounding.segmentation import PROPOSED_MARKER, PlanError, parse_segmentation_plan

PROGRAM = "propose-segments"
PROPOSED_BY = f"{PROGRAM} {__version__}"

RULE_HEADING = "rule:heading"
RULE_SIZE_SPLIT = "rule:size-split"
RULE_PREAMBLE = "rule:preamble"
RULE_CLEAN_TITLE = "rule:clean-title"
# What each rule proposes, for the people who choose rules (a review policy's conditions).
RULE_DESCRIPTIONS = {
    RULE_HEADING: "a Markdown heading (ATX or setext), outside code and front matter",
    RULE_UNDERLINED_HEADING: "in plain text, a title over a line of one punctuation character",
    RULE_CAPITALS_HEADING: "in plain text, a section name in capitals over indented text",
    RULE_MAN_SUBSECTION: "under those, a short line indented less than the text below it",
    RULE_NUMBERED_HEADING: "a short line that starts with a section number",
    RULE_PDF_OUTLINE: "a PDF bookmark placed on its line of the text",
    RULE_REFERENCES: "a References or Bibliography list, as one entry",
    RULE_PREAMBLE: "the text before the first heading",
    RULE_CLEAN_TITLE: "named beside the finder when the title lost markup or a page number",
    RULE_SIZE_SPLIT: "a part of a span longer than the cap (--max-segment-chars)",
}
RULE_NAMES = frozenset(RULE_DESCRIPTIONS)

__all__ = [
    "PROPOSED_MARKER",
    "RULE_CAPITALS_HEADING",
    "RULE_CLEAN_TITLE",
    "RULE_DESCRIPTIONS",
    "RULE_HEADING",
    "RULE_MAN_SUBSECTION",
    "RULE_NAMES",
    "RULE_NUMBERED_HEADING",
    "RULE_PDF_OUTLINE",
    "RULE_PREAMBLE",
    "RULE_REFERENCES",
    "RULE_SIZE_SPLIT",
    "RULE_UNDERLINED_HEADING",
    "NothingToPropose",
    "ProposalError",
    "console_main",
    "main",
    "propose_plan",
    "clean_title",
    "slugify",
]

MAX_SLUG_CHARS = 60

_ENGLISH_STOP_WORDS = """
a an and are as at be been being both but by can could did do does doing each for from had
has have having he her hers herself him himself his how i if in into is it its itself just
me my myself no nor not of on or our ours ourselves she should so some such than that the
their theirs them themselves then there these they this those through to too until was we
were what when where which while who whom why will with would you your yours yourself
yourselves
"""
# Bokmål and nynorsk function words, written with æ, ø and å; the ASCII spellings
# ("ogsaa", "paa") are added below because documents use both.
_NORWEGIAN_STOP_WORDS = """
og i jeg det at en et den til er som på de med han av ikke der så var meg seg men ett har
om vi min mitt ha hadde hun nå over da ved fra du ut sin dem oss opp man kan hans hvor eller
hva skal selv sjøl her alle vil bli ble blitt kunne inn når være kom noen noe ville dere
deres kun ja etter ned skulle denne for deg si sine sitt mot å hvorfor dette disse uten
hvordan ingen din ditt blir samme hvilken hvilke sånn inni mellom vår hver hvem hvis både
bare enn fordi før også slik vært begge siden dykk dykkar dei deira deim di då eg ein eit
eitt elles ho henne hennar hennes ikkje ingi inkje korleis kva kvar kven kvifor me medan mi
mine mykje no nokon noka noko nokre sia sidan so um upp vere vore verte vart
"""

_TRANSLITERATION = str.maketrans(
    {"æ": "ae", "ø": "oe", "å": "aa", "ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"}
)


def _with_ascii_spellings(words: str) -> frozenset[str]:
    listed = set(words.split())
    return frozenset(listed | {word.translate(_TRANSLITERATION) for word in listed})


STOP_WORDS = _with_ascii_spellings(_ENGLISH_STOP_WORDS + _NORWEGIAN_STOP_WORDS)

_WORD = re.compile(r"[^\W\d_]+")
# Markup that says nothing about what a section is: badges, link targets, HTML tags.
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_HTML_TAG = re.compile(r"<[^>]*>")
_ATX = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)(.*)")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r" {0,3}(=+|-+)[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
# A list item, block quote or table row is not a paragraph a setext line can underline.
_NOT_A_PARAGRAPH = re.compile(r" {0,3}(?:[-+*>|]|\d+[.)])(?:[ \t]|$)")
_CODE_OR_EMPHASIS = re.compile(r"(`+|\*\*|__|\*)(?=\S)(.+?)(?<=\S)\1")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Dot leaders or an ellipsis and the page number after them, at the end of a title.
_LEADERS_AND_PAGE = re.compile(r"\s*(?:(?:\.\s?){3,}|…)\s*\d*\s*$")
_FRONT_MATTER_ENDS = {"---": ("---", "..."), "+++": ("+++",)}
# A preamble is proposed only when the text before the first heading holds this many words.
MIN_PREAMBLE_WORDS = 3
PREAMBLE_TITLE = "Preamble"


class ProposalError(ValueError):
    """The proposer was asked for something it cannot do (a bad cap, a bad prefix)."""


class NothingToPropose(Exception):
    """Not a failure: the document has no structure these rules propose a split for.

    Kept out of ValueError on purpose, so that no handler for failures swallows it.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class _Span:
    path: str
    title: str
    start: int
    end: int
    rules: tuple[str, ...]


def propose_plan(
    name: str,
    data: bytes,
    *,
    max_segment_chars: int = 0,
    path_prefix: str = "",
    on_page: PageProgress | None = None,
) -> dict:
    """The proposed plan payload for one document, or NothingToPropose.

    Pure: reads nothing but its arguments, so the review app and the command line get
    the same plan for the same bytes. `on_page` hears each page extracted.
    """
    _check_segment_cap(max_segment_chars)
    prefix = _prefix_components(path_prefix)
    kind = document_type(name)
    pages = extract_pages(name, data, on_page)
    text = PAGE_BREAK.join(pages)

    headings = _headings(kind, text, pages, data)
    spans = _heading_spans(text, headings, prefix)
    spans = _with_preamble(text, spans, prefix, kind)
    if max_segment_chars:
        if not spans and len(text) > max_segment_chars and text.strip():
            spans = [_Span("/".join(prefix), name, 0, len(text), ())]
        spans = _split_by_size(text, spans, max_segment_chars, prefix, name)
    if not spans:
        raise NothingToPropose(_why_nothing(text, headings, max_segment_chars))

    payload = {
        "source_sha256": hashlib.sha256(data).hexdigest(),
        "extractor_id": EXTRACTOR_ID,
        "extractor_version": extractor_version(name),
        "proposed_by": PROPOSED_BY,
        "adjudicated": False,
        "entries": [
            {
                "path": span.path,
                "title": span.title,
                "span": [span.start, span.end],
                "anchor": make_anchor(text, span.start, span.end).to_dict(),
                "derived": [PROPOSED_MARKER, *span.rules],
            }
            for span in spans
        ],
    }
    # What we write must pass the same gate as any plan read back.
    parse_segmentation_plan(payload, text)
    return payload


def _check_segment_cap(max_segment_chars: object) -> None:
    if isinstance(max_segment_chars, bool) or not isinstance(max_segment_chars, int):
        raise ProposalError(f"max-segment-chars must be an integer, not {max_segment_chars!r}")
    if max_segment_chars < 0:
        raise ProposalError(
            f"max-segment-chars must be 0 (off) or a positive number of characters, "
            f"not {max_segment_chars}"
        )


def _headings(kind: str, text: str, pages: Sequence[str], data: bytes) -> list[Heading]:
    """The headings the rules for this kind of document find, in text order."""
    if kind == "markdown":
        return list(_markdown_headings(text))
    if kind == "text":
        # A text that underlines its headings (or sets them in capitals) has chosen its
        # style; its numbered lines are then lists, not sections.
        return underlined_headings(text) or capitals_headings(text) or numbered_headings(text)
    furniture = page_furniture(pages)
    outline = outline_headings(text, pages, read_outline(data), furniture)
    return outline or numbered_headings(text, furniture)


def clean_title(title: str, *, markup: bool = False) -> str:
    """A heading's words as a reader sees them: no control characters, no Markdown or HTML
    markup (when `markup`), compatibility forms folded ("ﬁ" is "fi"), no dot leaders and
    page number at the end. Falls back to the raw title when nothing would be left."""
    clean = title
    if markup:
        clean = html.unescape(_CODE_OR_EMPHASIS.sub(r"\2", _plain(clean)))
    clean = unicodedata.normalize("NFKC", _CONTROL.sub(" ", clean))
    clean = " ".join(_LEADERS_AND_PAGE.sub("", clean).split())
    return clean or " ".join(title.split())


def slugify(title: str) -> str:
    """Lower-case ASCII letters and digits joined by single dashes; may be empty."""
    text = _plain(title).casefold().translate(_TRANSLITERATION)
    text = unicodedata.normalize("NFKD", text)
    text = "".join(char for char in text if not unicodedata.combining(char))
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    if len(slug) > MAX_SLUG_CHARS:
        cut = slug[: MAX_SLUG_CHARS + 1]
        slug = cut.rsplit("-", 1)[0] if "-" in cut else cut[:MAX_SLUG_CHARS]
    return slug.strip("-")


def is_stop_heading(title: str) -> bool:
    """True when a heading has no word that is not a stop word (numbers are no words)."""
    words = _WORD.findall(_plain(title).casefold())
    return all(word in STOP_WORDS for word in words)


def _plain(title: str) -> str:
    """The words of a heading without Markdown images, link targets or HTML tags."""
    title = _HTML_TAG.sub(" ", _IMAGE.sub(" ", title))
    while True:
        # Repeated, because a link's text may itself have held an image or a link.
        plain = _LINK.sub(r"\1", _IMAGE.sub(" ", title))
        if plain == title:
            return plain
        title = plain


# --- headings -------------------------------------------------------------------------


def _markdown_headings(text: str) -> Iterator[Heading]:
    lines = list(_text_lines(text))
    index = _after_front_matter(lines)
    fence: str | None = None
    while index < len(lines):
        start, end, line = lines[index]
        index += 1
        opening = _FENCE.match(line)
        if fence is not None:
            if (
                opening
                and opening.group(1)[0] == fence[0]
                and len(opening.group(1)) >= len(fence)
                and not line[opening.end() :].strip()
            ):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        atx = _ATX.fullmatch(line)
        if atx:
            title = _ATX_CLOSING.sub("", atx.group(2)).strip()
            yield Heading(start, end, len(atx.group(1)), title, (RULE_HEADING,))
            continue
        if index < len(lines) and _is_setext_title(lines, index - 1):
            underline = lines[index][2]
            level = 1 if underline.strip()[0] == "=" else 2
            yield Heading(start, lines[index][1], level, line.strip(), (RULE_HEADING,))
            index += 1


def _is_setext_title(lines: Sequence[tuple[int, int, str]], index: int) -> bool:
    line = lines[index][2]
    if not line.strip() or line.startswith(("    ", "\t")) or _NOT_A_PARAGRAPH.match(line):
        return False
    # Only a one-line paragraph: a longer one followed by "---" is too easily a rule.
    if index > 0 and lines[index - 1][2].strip():
        return False
    return _SETEXT_UNDERLINE.fullmatch(lines[index + 1][2]) is not None


def _after_front_matter(lines: Sequence[tuple[int, int, str]]) -> int:
    """The index of the first line after YAML ("---") or TOML ("+++") front matter."""
    if not lines or lines[0][2] not in _FRONT_MATTER_ENDS:
        return 0
    ends = _FRONT_MATTER_ENDS[lines[0][2]]
    for index in range(1, len(lines)):
        if lines[index][2] in ends:
            return index + 1
    return 0


# --- spans and paths -------------------------------------------------------------------


def _heading_spans(text: str, headings: Sequence[Heading], prefix: list[str]) -> list[_Span]:
    candidates = [heading for heading in headings if not is_stop_heading(heading.title)]
    gated = [heading for heading in headings if is_stop_heading(heading.title)]
    used: set[str] = set()
    stack: list[tuple[int, str]] = []
    proposed: list[tuple[Heading, str, int]] = []
    bodiless: list[Heading] = []  # body-less headings since the last proposed entry
    gated_position = 0
    for position, heading in enumerate(candidates):
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        parents = [slug for _, slug in stack]
        slug = _unique_slug(prefix + parents, slugify(heading.title) or "section", used)
        stack.append((heading.level, slug))
        next_start = candidates[position + 1].start if position + 1 < len(candidates) else len(text)
        while gated_position < len(gated) and gated[gated_position].start < heading.body_start:
            gated_position += 1
        if _has_body(text, heading.body_start, next_start, gated, gated_position):
            start = _opening_ancestors(bodiless, heading)
            proposed.append((heading, "/".join([*prefix, *parents, slug]), start))
            bodiless = []
        else:
            bodiless.append(heading)
    spans = []
    for position, (heading, path, start) in enumerate(proposed):
        end = proposed[position + 1][2] if position + 1 < len(proposed) else len(text)
        title, rules = _titled(heading)
        spans.append(_Span(path, title, start, end, rules))
    return spans


def _titled(heading: Heading) -> tuple[str, tuple[str, ...]]:
    """The entry's title and rules: the clean title, and the rule that cleaned it if it did."""
    markup = RULE_HEADING in heading.rules
    title = clean_title(heading.title, markup=markup)
    if title == " ".join(heading.title.split()):
        return title, heading.rules
    return title, (*heading.rules, RULE_CLEAN_TITLE)


def _with_preamble(text: str, spans: list[_Span], prefix: list[str], kind: str) -> list[_Span]:
    """The text before the first entry becomes an entry of its own when it holds words
    (front matter and markup are no words: they describe the document, they are not in it)."""
    if not spans or spans[0].start == 0:
        return spans
    before = text[: spans[0].start]
    if kind == "markdown":
        rows = list(_text_lines(before))
        skipped = _after_front_matter(rows)
        before = _plain(before[rows[skipped][0] :] if skipped < len(rows) else "")
    if len(_WORD.findall(before)) < MIN_PREAMBLE_WORDS:
        return spans
    used = {span.path for span in spans}
    slug = _unique_slug(prefix, "preamble", used)
    preamble = _Span("/".join([*prefix, slug]), PREAMBLE_TITLE, 0, spans[0].start, (RULE_PREAMBLE,))
    return [preamble, *spans]


def _opening_ancestors(bodiless: Sequence[Heading], heading: Heading) -> int:
    """Where an entry starts: at its heading, or earlier at the body-less headings right
    before it that are its ancestors ("## 2 Risikoklasser" over "### 2.1 ..."), which open
    its section rather than close the previous one."""
    start, level = heading.start, heading.level
    for parent in reversed(bodiless):
        if parent.level >= level:
            break
        start, level = parent.start, parent.level
    return start


def _unique_slug(parents: list[str], slug: str, used: set[str]) -> str:
    candidate, number = slug, 2
    while "/".join([*parents, candidate]) in used:
        candidate, number = f"{slug}-{number}", number + 1
    used.add("/".join([*parents, candidate]))
    return candidate


def _has_body(text: str, start: int, end: int, gated: Sequence[Heading], position: int) -> bool:
    """Is there anything but blank lines and gated headings between start and end?"""
    cursor = start
    while position < len(gated) and gated[position].start < end:
        if text[cursor : gated[position].start].strip():
            return True
        cursor = max(cursor, gated[position].body_start)
        position += 1
    return bool(text[cursor:end].strip())


def _split_by_size(
    text: str, spans: list[_Span], cap: int, prefix: list[str], name: str
) -> list[_Span]:
    used = {span.path for span in spans}
    result: list[_Span] = []
    for span in spans:
        if span.end - span.start <= cap:
            result.append(span)
            continue
        cuts = _cuts(text, span.start, span.end, cap)
        bounds = list(zip([span.start, *cuts], [*cuts, span.end], strict=True))
        parent = span.path.split("/") if span.path else []
        for number, (start, end) in enumerate(bounds, 1):
            slug = _unique_slug(parent, f"part-{number}", used)
            result.append(
                _Span(
                    "/".join([*parent, slug]),
                    f"{span.title} (part {number} of {len(bounds)})",
                    start,
                    end,
                    (*span.rules, RULE_SIZE_SPLIT),
                )
            )
    return result


def _cuts(text: str, start: int, end: int, cap: int) -> list[int]:
    """Cut positions so that no part is longer than cap, each at a paragraph boundary if any."""
    cuts = []
    while end - start > cap:
        boundary = text.rfind("\n\n", start, start + cap)
        # A boundary at the very start would make an empty part; cut hard instead.
        cut = boundary + 2 if boundary >= 0 and boundary + 2 > start else start + cap
        cuts.append(cut)
        start = cut
    return cuts


def _prefix_components(path_prefix: str) -> list[str]:
    if not path_prefix:
        return []
    components = [slugify(part) for part in path_prefix.split("/")]
    if not all(components):
        raise ProposalError(
            f"path prefix {path_prefix!r} reduces to an empty path component; "
            "give it letters or digits"
        )
    return components


def _why_nothing(text: str, headings: Sequence[Heading], cap: int) -> str:
    if not text.strip():
        return "the document has no text"
    under_cap = f", and at {len(text)} characters it is within the cap of {cap}" if cap else ""
    if not headings:
        return f"no headings found{under_cap}"
    return f"no heading has both a body and a word that is not a stop word{under_cap}"


# --- command line ------------------------------------------------------------------------


class _ArgumentError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # main() returns its status instead of exiting from inside argparse.
        raise _ArgumentError(message)


def _cap(value: str) -> int:
    try:
        cap = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if cap < 0:
        raise argparse.ArgumentTypeError(
            f"{cap} is negative; use 0 for no cap or a positive number of characters"
        )
    return cap


def _arguments() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROGRAM,
        description="Propose a segmentation plan for one document. Every entry is PROPOSED; "
        "a person adjudicates it.",
    )
    parser.add_argument("source", help="the document: .md, .markdown, .txt or .pdf")
    parser.add_argument("--out", help="where to write the plan (JSON); standard output if absent")
    parser.add_argument(
        "--max-segment-chars",
        type=_cap,
        default=0,
        help="split spans longer than this many characters (0, the default, is off)",
    )
    parser.add_argument(
        "--path-prefix",
        default="",
        help="put every path under this prefix, e.g. the document's place in a corpus",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """0: a plan was written; 1: nothing to propose, nothing written; 2: failure."""
    try:
        options = _arguments().parse_args(argv)
        source = Path(options.source)
        payload = propose_plan(
            source.name,
            source.read_bytes(),
            max_segment_chars=options.max_segment_chars,
            path_prefix=options.path_prefix,
        )
        document = json.dumps(payload, ensure_ascii=False, indent=2) + "\n"
        if options.out:
            _write_atomically(Path(options.out), document)
        else:
            sys.stdout.write(document)
    except NothingToPropose as nothing:
        print(
            f"{PROGRAM}: nothing to propose for {source}: {nothing.reason}; no plan written",
            file=sys.stderr,
        )
        return 1
    except (_ArgumentError, OSError, ExtractError, ProposalError, PlanError) as error:
        print(f"{PROGRAM}: FAILED: {error}", file=sys.stderr)
        return 2
    except SystemExit as done:  # --help
        return done.code if isinstance(done.code, int) else 0
    except Exception as error:
        # An uncaught exception would exit 1, which means "nothing to propose".
        traceback.print_exc()
        print(f"{PROGRAM}: FAILED: unexpected {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    if options.out:
        print(
            f"{PROGRAM}: wrote {len(payload['entries'])} proposed entries to {options.out}",
            file=sys.stderr,
        )
    return 0


def console_main() -> None:
    sys.exit(main(sys.argv[1:]))


def _write_atomically(path: Path, document: str) -> None:
    """Readers see the old file or the whole new one, never half of it."""
    descriptor, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(document)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp makes the file private; a plan gets the mode any new file would get.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
