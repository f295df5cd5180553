"""Where headings are in plain text and in the text of a PDF, and which lines only look like one.

Finders (each heading names the rule that found it):
- rule:underlined-heading: a title over a line of one repeated punctuation character, with
  an optional overline of the same (reStructuredText, AsciiDoc, plain-text READMEs);
- rule:capitals-heading: a line in capitals at the margin over indented text (man pages);
- rule:man-subsection: under those, a short line indented less than the text below it
  (a man page's .SS subsection, "   Matching Control");
- rule:numbered-heading: a short line that starts with a section number ("3.1 Brannkonsept");
- rule:pdf-outline: a PDF bookmark whose title is a line of the text, on the page it points at;
- rule:references: a "References" or "Bibliography" line; the reference list under it is one
  entry, and its numbered items are not headings.

Gates, which keep a line from being a heading at all:
- page furniture: a line that recurs at the top or bottom of several pages (running headers,
  footers), whatever numbers it carries;
- contents lines: dot leaders, or a trailing page number, spaced or glued to the last word;
- sentences: a numbered line that reads as prose (ends in punctuation or a preposition,
  holds a full stop, an author's initials, a web address, code or an affiliation, runs on
  in lower case, or is long and comma-split);
- out of sequence: numbered headings keep only the longest run whose numbers follow one
  another ("161 Million Links" after "2.3" is a sentence that starts with a number);
- too few letters: "0 B + 0 B +" is an equation.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from grounding.pdf_outline import OutlineItem

RULE_UNDERLINED_HEADING = "rule:underlined-heading"
RULE_CAPITALS_HEADING = "rule:capitals-heading"
RULE_MAN_SUBSECTION = "rule:man-subsection"
RULE_NUMBERED_HEADING = "rule:numbered-heading"
RULE_PDF_OUTLINE = "rule:pdf-outline"
RULE_REFERENCES = "rule:references"

MAX_NUMBERED_HEADING_CHARS = 100
MAX_NUMBERED_HEADING_WORDS = 12
MAX_UNDERLINED_TITLE_CHARS = 120
MAX_CAPITALS_HEADING_CHARS = 60
MAX_MAN_SUBSECTION_WORDS = 8
# man indents a subsection by three columns and its text by seven; a deeper line is an item.
MAX_MAN_SUBSECTION_INDENT = 4
# A section number seen this often is a table column or a list, not an outline.
MAX_NUMBER_REPEATS = 2
# How far back a numbered heading looks for the one it follows; bounds the work per line.
SEQUENCE_LOOKBACK = 200
# Running headers and footers live in a page's first and last lines.
FURNITURE_EDGE_LINES = 2
MIN_FURNITURE_PAGES = 3
# An outline is trusted when at least this share of its bookmarks are lines of the text.
MIN_OUTLINE_MATCH = 0.5


@dataclass(frozen=True)
class Heading:
    start: int  # where the heading's first line starts
    body_start: int  # just after its last line (the underline of an underlined heading)
    level: int
    title: str
    rules: tuple[str, ...]


def lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end including the newline, content without line ending) for every line."""
    position = 0
    length = len(text)
    while position < length:
        newline = text.find("\n", position)
        end = length if newline < 0 else newline + 1
        yield position, end, text[position:end].rstrip("\r\n")
        position = end


# --- underlined and capitals headings (plain text) -------------------------------------

_UNDERLINE = re.compile(r"([=\-~^*+#\"'`:._])\1{2,}[ \t]*")
_CAPITALS = re.compile(r"[A-Z][A-Z0-9 ,/&()'-]*[A-Z0-9)]")


def underlined_headings(text: str) -> list[Heading]:
    """Title lines over a line of one punctuation character at least about as long.

    Levels follow reStructuredText: each new style (character, overlined or not) is one
    level deeper than the styles seen before it.
    """
    found: list[Heading] = []
    styles: list[tuple[str, bool]] = []
    rows = list(lines(text))
    index = 1
    while index < len(rows):
        title_row, under_row = rows[index - 1], rows[index]
        underline = _UNDERLINE.fullmatch(under_row[2])
        if not underline or not _is_underlined_title(title_row[2], under_row[2]):
            index += 1
            continue
        before = rows[index - 2][2] if index >= 2 else ""
        overlined = bool(before) and before.strip() == under_row[2].strip()
        above = rows[index - 3][2] if index >= 3 and overlined else before
        if above.strip() and not overlined:
            index += 1
            continue
        style = (underline.group(1), overlined)
        if style not in styles:
            styles.append(style)
        start = rows[index - 2][0] if overlined else title_row[0]
        title = title_row[2].strip()
        found.append(
            Heading(start, under_row[1], styles.index(style) + 1, title, (RULE_UNDERLINED_HEADING,))
        )
        index += 2
    return found


def _is_underlined_title(title: str, underline: str) -> bool:
    words = title.strip()
    if not words or title.startswith((" ", "\t")) or len(words) > MAX_UNDERLINED_TITLE_CHARS:
        return False
    if _UNDERLINE.fullmatch(title) or not any(char.isalpha() for char in words):
        return False
    # reStructuredText wants the underline as long as the title; allow a little less.
    return len(underline.strip()) >= max(3, len(words) - 2)


def capitals_headings(text: str) -> list[Heading]:
    """Man-page section names: capitals at the margin, blank above, indented text below;
    and their subsections, indented less than their text."""
    rows = list(lines(text))
    found = []
    for index, (start, end, line) in enumerate(rows):
        above = rows[index - 1] if index > 0 else (0, 0, "")
        # Blank above, or the section name a subsection opens ("OPTIONS" over "   Generic").
        opens = above[2].strip() == "" or (found and found[-1].start == above[0])
        if len(line) > MAX_CAPITALS_HEADING_CHARS or not opens:
            continue
        following = next((row[2] for row in rows[index + 1 :] if row[2].strip()), "")
        if _CAPITALS.fullmatch(line.rstrip()) and sum(char.isalpha() for char in line) >= 2:
            if following.startswith((" ", "\t")):
                found.append(Heading(start, end, 1, line.strip(), (RULE_CAPITALS_HEADING,)))
        elif found and _is_man_subsection(line, following):
            found.append(Heading(start, end, 2, line.strip(), (RULE_MAN_SUBSECTION,)))
    return found if sum(heading.level == 1 for heading in found) >= 2 else []


def _is_man_subsection(line: str, following: str) -> bool:
    indent = len(line) - len(line.lstrip(" "))
    words = line.split()
    return (
        0 < indent <= MAX_MAN_SUBSECTION_INDENT
        and indent < len(following) - len(following.lstrip(" "))
        and line.lstrip()[:1].isupper()
        and len(words) <= MAX_MAN_SUBSECTION_WORDS
        and line.rstrip()[-1] not in ".,;:"
    )


# --- numbered headings and their gates (plain text and PDF text) ------------------------

_NUMBERED = re.compile(r"[ \t]*(\d{1,3}(?:\.\d{1,3}){0,5})\.?[ \t]+(\S.*?)[ \t]*")
# Dot leaders, an ellipsis, or a page number set off by a tab or a wide gap.
_LEADERS = re.compile(r"(?:\.[ ]?){3,}|…|(?:\t|[ ]{2,})\d+$")
# A page number after the last word: "Overview of proof of main theorem 11", "Availability18".
_SPACED_PAGE_NUMBER = re.compile(r"(\S+)\s+\d{1,4}$")
_GLUED_PAGE_NUMBER = re.compile(r"[a-z)\]]\d{1,4}$")
# Words a number naturally follows in a real title ("Part 2", "Python 3").
_NUMBERED_NOUNS = frozenset(
    {"chapter", "part", "appendix", "section", "version", "step", "level", "phase", "python"}
    | {"pep", "rfc", "iso", "table", "figure", "volume", "release", "stage", "lecture"}
    | {"lesson", "unicode", "tex", "html", "utf"}
)
_FULL_STOP_INSIDE = re.compile(r"[a-z)][.;!?]\s+[A-Za-z]")
_AUTHOR_INITIALS = re.compile(r"\b[A-Z]\.\s*,|,\s*[A-Z]\.\s|\bet al\b|\(\d{4}[a-z]?\)")
_WEB_ADDRESS = re.compile(r"://|www\.|@\w")
# Braces, semicolons and assignments are code; a numbered line with them is a listing's line.
_CODE = re.compile(r"[{};=]")
# "1 Department of Physics, University of Oslo" is a footnote to the authors' names.
_AFFILIATION = re.compile(
    r"\b(?:universit|institut|department|laborator|college|school of|faculty|academy)",
    re.IGNORECASE,
)
_REFERENCES_LINE = re.compile(
    r"[ \t]*(?:(?:appendix[ \t]+)?(?:\d{1,3}|[A-Z])[.:]?[ \t]+)?"
    r"(references|bibliography|works cited|literature cited|literatur|referanser|litteratur|kilder)"
    r"[ \t]*",
    re.IGNORECASE,
)
MIN_SENTENCE_WORDS_WITH_COMMA = 8
MAX_TITLE_WITH_FULL_STOP = 5
# A title does not end on these; a line that does is a sentence wrapped onto the next.
_NEVER_LAST_WORDS = frozenset(
    {"to", "the", "a", "an", "of", "and", "or", "for", "with", "by", "from", "that", "as"}
    | {"at", "is", "are", "which", "than", "og", "i", "til", "av", "som", "med", "en", "et"}
)
MIN_RUN_ON_CHARS = 45


@dataclass(frozen=True)
class _Numbered:
    heading: Heading
    number: tuple[int, ...]


def numbered_headings(text: str, furniture: frozenset[str] = frozenset()) -> list[Heading]:
    """Numbered section lines that pass every gate, with the references sections."""
    rows = list(lines(text))
    candidates: list[_Numbered] = []
    page_numbers: list[str] = []
    for index, (start, end, line) in enumerate(rows):
        if len(line) > MAX_NUMBERED_HEADING_CHARS or _furniture_key(line) in furniture:
            continue
        match = _NUMBERED.fullmatch(line)
        if not match:
            continue
        number, words = match.groups()
        following = rows[index + 1][2] if index + 1 < len(rows) else ""
        if _reads_as_prose(words, line, following) or _LEADERS.search(words):
            continue
        level = number.count(".") + 1
        parsed = tuple(int(part) for part in number.split("."))
        heading = Heading(start, end, level, line.strip(), (RULE_NUMBERED_HEADING,))
        candidates.append(_Numbered(heading, parsed))
        page_numbers.append(_page_number(words))
    contents = _contents_lines(candidates, page_numbers)
    candidates = [item for position, item in enumerate(candidates) if position not in contents]
    repeats = Counter(candidate.number for candidate in candidates)
    candidates = [item for item in candidates if repeats[item.number] <= MAX_NUMBER_REPEATS]
    references = _references_lines(rows, furniture)
    kept = _longest_sequence(_outside_reference_lists(candidates, references))
    tagged = [_tag_references(candidate.heading) for candidate in kept]
    numbered_starts = {heading.start for heading in tagged}
    tagged.extend(heading for heading in references if heading.start not in numbered_starts)
    return sorted(tagged, key=lambda heading: heading.start)


def _reads_as_prose(words: str, line: str, following: str) -> bool:
    """A numbered line that is a sentence, a list item or a reference, not a title."""
    count = len(words.split())
    letters = sum(char.isalpha() for char in words)
    # "0. Definitions." over a blank line is a licence's section title, not a list item.
    short_title = (
        words.endswith(".") and count <= MAX_TITLE_WITH_FULL_STOP and not following.strip()
    )
    return (
        not words[0].isupper()
        or (words[-1] in ".,;:" and not short_title)
        or words.split()[-1].casefold() in _NEVER_LAST_WORDS
        or count > MAX_NUMBERED_HEADING_WORDS
        or letters * 2 < len(words.replace(" ", ""))
        or max((len(word) for word in re.findall(r"[^\W\d_]+", words)), default=0) < 3
        or _FULL_STOP_INSIDE.search(words.rstrip(".")) is not None
        or _AUTHOR_INITIALS.search(words) is not None
        or _WEB_ADDRESS.search(words) is not None
        or _CODE.search(words) is not None
        or ("," in words and _AFFILIATION.search(words) is not None)
        or ("," in words and count >= MIN_SENTENCE_WORDS_WITH_COMMA)
        # A long line that runs on in lower case is a wrapped sentence.
        or (len(line) >= MIN_RUN_ON_CHARS and following[:1].islower())
    )


def _page_number(words: str) -> str:
    """ "spaced" or "glued" for a title that ends in a page number, else ""."""
    spaced = _SPACED_PAGE_NUMBER.search(words)
    if spaced and spaced.group(1).casefold() not in _NUMBERED_NOUNS:
        return "spaced"
    return "glued" if _GLUED_PAGE_NUMBER.search(words) else ""


def _contents_lines(candidates: Sequence[_Numbered], numbers: Sequence[str]) -> set[int]:
    """Positions of the candidates that are lines of a table of contents: a spaced page
    number is enough; a glued one only beside another, because "UTF8" ends in digits too."""
    found = set()
    for position, kind in enumerate(numbers):
        neighbours = numbers[max(0, position - 1) : position] + numbers[position + 1 : position + 2]
        if kind == "spaced" or (kind == "glued" and any(neighbours)):
            found.add(position)
    return found


def _references_lines(
    rows: Sequence[tuple[int, int, str]], furniture: frozenset[str]
) -> list[Heading]:
    found = []
    for start, end, line in rows:
        match = _REFERENCES_LINE.fullmatch(line)
        if match and _furniture_key(line) not in furniture:
            found.append(Heading(start, end, 1, line.strip(), (RULE_REFERENCES,)))
    return found


def _outside_reference_lists(
    candidates: Sequence[_Numbered], references: Sequence[Heading]
) -> list[_Numbered]:
    """Drop the numbered items of each reference list.

    A list runs from its "References" line to the first numbered heading that goes on
    with the numbering from before it (an appendix, the next chapter); items restart at 1.
    """
    if not references:
        return list(candidates)
    kept: list[_Numbered] = []
    starts = [heading.start for heading in references]
    entered = -1  # the start of the reference list we are in, or -1
    closed = -1  # the start of the last reference list that a heading closed
    previous: tuple[int, ...] = ()  # the last heading's number before that list
    for candidate in candidates:
        start = candidate.heading.start
        latest = bisect_right(starts, start) - 1
        # A "References" line above every heading is a line of a contents list.
        if latest >= 0 and starts[latest] > max(entered, closed) and kept:
            entered = starts[latest]
            previous = kept[-1].number
        if entered >= 0 and start > entered:
            if not _follows(previous, candidate.number, restart=False):
                continue
            closed, entered = entered, -1
        kept.append(candidate)
    return kept


def _follows(previous: tuple[int, ...], number: tuple[int, ...], *, restart: bool = True) -> bool:
    """Can `number` come next after `previous` in an outline?

    The next sibling at some depth (one may be skipped, extraction loses lines), the first
    child one level down, the first child of a parent that was lost ("2.2" then "3.1"),
    or, with restart, a new numbering from 0 or 1 (an appended licence, a second part).
    """
    if restart and number in ((0,), (1,)):
        return True
    if len(number) == len(previous) + 1 and number[:-1] == previous:
        return number[-1] in (0, 1, 2)
    depth = len(number) - 1
    sibling = depth < len(previous) and number[:depth] == previous[:depth]
    if sibling and previous[depth] < number[depth] <= previous[depth] + 2:
        return True
    lost_parent = len(number) > 1 and number[-1] in (0, 1, 2)
    return lost_parent and _follows(previous, number[:-1], restart=restart)


def _longest_sequence(candidates: Sequence[_Numbered]) -> list[_Numbered]:
    """The longest chain of candidates in which each number follows the one before."""
    if not candidates:
        return []
    best = [1] * len(candidates)
    before = [-1] * len(candidates)
    for index, candidate in enumerate(candidates):
        for earlier in range(max(0, index - SEQUENCE_LOOKBACK), index):
            if best[earlier] + 1 > best[index] and _follows(
                candidates[earlier].number, candidate.number
            ):
                best[index], before[index] = best[earlier] + 1, earlier
    # Ties go to the chain that ends last, so a contents list at the top loses to the body.
    index = max(range(len(candidates)), key=lambda position: (best[position], position))
    chain = []
    while index >= 0:
        chain.append(candidates[index])
        index = before[index]
    return chain[::-1]


def _tag_references(heading: Heading) -> Heading:
    if _REFERENCES_LINE.fullmatch(heading.title) is None:
        return heading
    return Heading(
        heading.start, heading.body_start, heading.level, heading.title, (RULE_REFERENCES,)
    )


def is_references_title(title: str) -> bool:
    return _REFERENCES_LINE.fullmatch(title) is not None


# --- PDFs: page furniture and the outline ---------------------------------------------

# A page number set off by a space at either end of a line ("10 JEAN BOURGAIN, …").
_EDGE_NUMBER = re.compile(r"^\d+\s+|\s+\d+$")


def _furniture_key(line: str) -> str:
    """A line without its page number, so that every page's copy of a header is alike."""
    return " ".join(_EDGE_NUMBER.sub("", line.strip()).split()).casefold()


def page_furniture(pages: Sequence[str]) -> frozenset[str]:
    """Lines (as _furniture_key gives them) at the top or bottom of MIN_FURNITURE_PAGES pages."""
    seen: Counter = Counter()
    for page in pages:
        content = [line for line in page.splitlines() if line.strip()]
        edges = content[:FURNITURE_EDGE_LINES] + content[-FURNITURE_EDGE_LINES:]
        seen.update({_furniture_key(line) for line in edges} - {""})
    return frozenset(key for key, pages_seen in seen.items() if pages_seen >= MIN_FURNITURE_PAGES)


def is_furniture(line: str, furniture: frozenset[str]) -> bool:
    return _furniture_key(line) in furniture


def _outline_key(title: str) -> str:
    """Letters and digits only, without a leading section number: how a bookmark and its
    line are compared ("2.1 Deﬁnitions" and "Definitions" are the same title, and so are
    "Appendix A Legalisms" and "A Legalisms")."""
    plain = unicodedata.normalize("NFKC", title).casefold()
    plain = re.sub(r"^\s*(?:appendix|chapter|part|section)\b", "", plain)
    plain = re.sub(r"^\s*(?:[0-9]+(?:\.[0-9]+)*|[ivxlc]+|[a-z])[.:]?\s+", "", plain)
    return re.sub(r"[\W_]+", "", plain)


def outline_headings(
    text: str, pages: Sequence[str], outline: Sequence[OutlineItem], furniture: frozenset[str]
) -> list[Heading]:
    """Bookmarks placed on their lines, or [] when too few of them are lines of the text."""
    if len(outline) < 2:
        return []
    page_starts = _page_starts(pages)
    rows = [row for row in lines(text) if row[2].strip()]
    row_starts = [row[0] for row in rows]
    is_furniture, is_repeat = _furniture_rows(rows, furniture)
    found: list[Heading] = []
    cursor = 0
    for item in outline:
        key = _outline_key(item.title)
        if not key:
            continue
        first = cursor
        if item.page is not None and item.page < len(pages):
            page_start = page_starts[item.page]
            page_end = page_starts[item.page + 1] if item.page + 1 < len(pages) else len(text)
            first = max(cursor, bisect_right(row_starts, page_start - 1))
            last = bisect_right(row_starts, page_end - 1)
        else:
            last = len(rows)
        # A running header repeats the title; the heading itself is the line that is not
        # furniture, or else the first of them (a chapter's opening page, a slide's title).
        place = _find_title(rows, first, last, key, is_furniture) or _find_title(
            rows, first, last, key, is_repeat
        )
        if place is None:
            continue
        index, span_rows, glued = place
        start, _, _ = rows[index]
        end = rows[index + span_rows - 1][1]
        title = " ".join(row[2].strip() for row in rows[index : index + span_rows])
        # A page or line number glued to the title is not part of it.
        title = title[: len(title) - len(glued)].rstrip()
        rules = (RULE_REFERENCES,) if is_references_title(title) else (RULE_PDF_OUTLINE,)
        found.append(Heading(start, end, item.level, title, rules))
        cursor = index + span_rows
    if len(found) < 2 or len(found) < MIN_OUTLINE_MATCH * len(outline):
        return []
    return found


def _furniture_rows(
    rows: Sequence[tuple[int, int, str]], furniture: frozenset[str]
) -> tuple[list[bool], list[bool]]:
    """Per row: whether it is furniture, and whether it repeats an earlier furniture row."""
    keys = [_furniture_key(row[2]) for row in rows]
    is_furniture = [key in furniture for key in keys]
    first_of_key: dict[str, int] = {}
    for index, key in enumerate(keys):
        first_of_key.setdefault(key, index)
    # A header repeats what came before it; its first line is the heading it repeats.
    is_repeat = [
        furniture_line and first_of_key[keys[index]] != index
        for index, furniture_line in enumerate(is_furniture)
    ]
    return is_furniture, is_repeat


def _find_title(
    rows: Sequence[tuple[int, int, str]],
    first: int,
    last: int,
    key: str,
    skip: Sequence[bool],
) -> tuple[int, int, str] | None:
    """The first line (or pair of lines, for a wrapped title) from `first` whose letters
    are the bookmark's, perhaps with a number glued on: (index, lines, the glued digits)."""
    for index in range(first, min(last, len(rows))):
        if skip[index]:
            continue
        line_key = _outline_key(rows[index][2])
        glued = _glued_digits(line_key, key)
        if glued is not None:
            return index, 1, glued
        if line_key and key.startswith(line_key) and index + 1 < len(rows):
            glued = _glued_digits(_outline_key(rows[index][2] + " " + rows[index + 1][2]), key)
            if glued is not None:
                return index, 2, glued
    return None


def _glued_digits(line_key: str, key: str) -> str | None:
    """ "" when the line is the title, the digits when it is the title and a number, else None."""
    if not line_key.startswith(key):
        return None
    rest = line_key[len(key) :]
    return rest if rest == "" or (rest.isdigit() and len(rest) <= 4) else None


def _page_starts(pages: Sequence[str], separator: int = 2) -> list[int]:
    starts, position = [], 0
    for page in pages:
        starts.append(position)
        position += len(page) + separator
    return starts
