"""Numbered citations in LLM answers: parse, check, and finalize.

An answer is a body that cites sources as ``[n]`` followed by an optional
"References" section. Models write citations in many shapes (``[1, 2]``,
``[1-3]``, ``\\[1\\]``) and cite numbers they were never given. `finalize`
turns a raw answer into one where the body cites only real sources, numbered
1, 2, 3 in order of first appearance, with a reference list rebuilt from the
sources themselves, and it records every change so that a reviewer can see
what was altered and why. A citation finalization adds (backfill) is recorded
with its offsets, so that whoever shows the answer can mark it as added and never
let it pass for the model's own (`added_citation_spans`, `marked_text`).

Everything here is a single pass over the text: the answers are long and a
quadratic rewrite would show.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

REFERENCES_HEADING = "### References"

# A range wider than this (or running backwards) is an interval or a typo, not a
# run of citations: it is left as written, since expanding it would flood the answer.
MAX_RANGE_SPAN = 100

# Paragraphs shorter than this are lead-ins and sign-offs, not claims.
MIN_BACKFILL_WORDS = 3

EXCERPT_CHARS = 80

REWRITE_KINDS = ("grouped", "range", "escaped")

# ASCII digits only, and bounded so int() never sees an absurd digit string.
_NUMBER = r"[0-9]{1,9}"
_ITEM = rf"{_NUMBER}(?:[ \t]*[-\u2013\u2014][ \t]*{_NUMBER})?"
_CITATION_RE = re.compile(
    rf"(?P<open>\\?)\[[ \t]*(?P<items>{_ITEM}(?:[ \t]*[,;][ \t]*{_ITEM})*)[ \t]*(?P<close>\\?)\]"
)
_ITEM_SPLIT_RE = re.compile(r"[ \t]*[,;][ \t]*")
_RANGE_SPLIT_RE = re.compile(r"[ \t]*[-\u2013\u2014][ \t]*")
_HEADING_RE = re.compile(
    # "### References", "References:", "**References**" on a line of their own.
    r"^[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*|__)?references(?:\*\*|__)?"
    r"[ \t]*:?[ \t]*(?:\*\*|__)?[ \t]*\r?$",
    re.IGNORECASE | re.MULTILINE,
)
_REFERENCE_ENTRY_RE = re.compile(rf"^[ \t]*\\?\[({_NUMBER})\\?\][ \t]*", re.MULTILINE)
_WORD_RE = re.compile(r"[^\W_]+")
_STRUCTURAL_LINE_RE = re.compile(
    r"[ \t]*(?:#{1,6}(?:[ \t]|$)|[-*+][ \t]|[0-9]{1,9}[.)][ \t]|\||```|~~~|(?:[-*_][ \t]*){3,}$)"
)
_FENCE_RE = re.compile(r"[ \t]*(?:```|~~~)")
# A paragraph of nothing but web addresses, bare or in <...>: a link claims nothing.
_BARE_LINKS_RE = re.compile(r"(?:<?https?://[^\s<>]+>?[.,;]?\s*)+", re.IGNORECASE)
_SENTENCE_BREAK_RE = re.compile(r"(?<=[.!?\uff1f])[\"'\u201d)\]*_]*\s+")
# How model answers open and close the conversation ("I'm glad you are an expert in
# ...", "I hope this helps.", "Let me know if ..."): talk to the reader, not claims.
_PLEASANTRY_RE = re.compile(
    r"(?:hello|hi|hey|greetings|good (?:morning|afternoon|evening))(?: there)?[ \t]*[,!.]"
    r"|(?:thank you|thanks)\b(?! to\b)"
    r"|(?:i'm|i am|we're|we are) (?:so |very )?(?:glad|happy|pleased|delighted)\b"
    r"|(?:i |we )?hope (?:this|that|it|these|my|our|the above)\b"
    r"|(?:please )?(?:let (?:me|us) know|feel free|(?:don't|do not) hesitate)\b"
    r"|if you have (?:any )?(?:other |more |further |additional |follow-up )?questions\b"
    r"|(?:good|best of) luck\b|(?:best|kind|warm) regards\b|happy to help\b",
    re.IGNORECASE,
)
_CLOSING_PUNCTUATION = frozenset(".,;:!?)]}")


class InvalidSourceError(ValueError):
    """A source cannot be turned into a reference."""


class InvalidFinalizationRecordError(ValueError):
    """A stored finalization record cannot be read back."""


@dataclass(frozen=True)
class Reference:
    number: int
    text: str

    @property
    def line(self) -> str:
        return f"[{self.number}] {self.text}"


@dataclass(frozen=True)
class PhantomCitation:
    """A cited number with no source behind it, dropped from the answer."""

    number: int
    position: int  # offset of the citation in the raw answer


@dataclass(frozen=True)
class SyntaxRewrite:
    """A citation written in a shape other than ``[n]``, and what it became."""

    # One record per citation; "range" wins over "grouped", which wins over "escaped".
    kind: str
    original: str
    replacement: str  # "" when every number in it was a phantom
    position: int  # offset in the raw answer


@dataclass(frozen=True)
class Backfill:
    """An uncited paragraph that was given its neighbour's citation.

    The model never cited a source for this paragraph, so the added ``[n]`` must
    never pass for the model's own: `start` and `end` say where it stands in the
    finalized body (and text), for the page to mark it as added.
    """

    paragraph: int  # 0-based index among the paragraphs of the final body
    number: int  # as shown in the final answer
    excerpt: str
    start: int  # offset of the added "[n]" in the finalized text
    end: int
    # Numbers the paragraph cited in the raw answer, every one a phantom. When there
    # are any, backfill swapped sources that do not exist for a real one the model
    # never named there: "citation replaced, unverified".
    phantoms: tuple[int, ...] = ()

    @property
    def replaced(self) -> bool:
        return bool(self.phantoms)


@dataclass(frozen=True)
class _Citation:
    start: int
    end: int
    numbers: tuple[int, ...]  # in written order, repeats removed
    kind: str | None  # the rewrite kind, None for a plain ``[n]``


def _numbers_in(items: str) -> tuple[int, ...] | None:
    """The numbers a citation's inside names, or None when it is not a citation."""
    numbers: list[int] = []
    for item in _ITEM_SPLIT_RE.split(items):
        ends = _RANGE_SPLIT_RE.split(item)
        if len(ends) == 1:
            numbers.append(int(ends[0]))
            continue
        low, high = int(ends[0]), int(ends[1])
        if not 0 <= high - low <= MAX_RANGE_SPAN:
            return None
        numbers.extend(range(low, high + 1))
    return tuple(dict.fromkeys(numbers))


def _citations(text: str) -> Iterator[_Citation]:
    for match in _CITATION_RE.finditer(text):
        items = match["items"]
        numbers = _numbers_in(items)
        if numbers is None:
            continue
        if _RANGE_SPLIT_RE.search(items):
            kind = "range"
        elif _ITEM_SPLIT_RE.search(items):
            kind = "grouped"
        elif match["open"] or match["close"]:
            kind = "escaped"
        else:
            kind = None
        yield _Citation(match.start(), match.end(), numbers, kind)


def _clusters(citations: Iterator[_Citation]) -> Iterator[list[_Citation]]:
    """Runs of citations with nothing between them, like ``[3][1][2]``."""
    run: list[_Citation] = []
    for citation in citations:
        if run and run[-1].end != citation.start:
            yield run
            run = []
        run.append(citation)
    if run:
        yield run


def _split_references(text: str) -> tuple[str, str]:
    """(body, references section) of a raw answer; the body keeps raw offsets."""
    headings = list(_HEADING_RE.finditer(text))
    if not headings:
        return text.rstrip(), ""
    # The last heading wins: the reference list closes an answer.
    heading = headings[-1]
    return text[: heading.start()].rstrip(), text[heading.end() :]


def _parse_references(section: str) -> list[Reference]:
    entries = list(_REFERENCE_ENTRY_RE.finditer(section))
    ends = [entry.start() for entry in entries[1:]] + [len(section)] if entries else []
    return [
        Reference(int(entry[1]), section[entry.end() : end].strip())
        for entry, end in zip(entries, ends, strict=True)
    ]


def _unescape(text: str) -> str:
    def plain(match: re.Match[str]) -> str:
        return match[0].replace("\\", "") if match["open"] or match["close"] else match[0]

    return _CITATION_RE.sub(plain, text)


def _unique(numbers) -> list[int]:
    return list(dict.fromkeys(numbers))


@dataclass(frozen=True)
class _Renumbering:
    body: str
    number_map: dict[int, int]
    dropped: tuple[PhantomCitation, ...]
    rewrites: tuple[SyntaxRewrite, ...]
    # (offset in the renumbered body, raw number) of each phantom, in order, so that
    # backfill can tell which paragraphs cited only sources that do not exist.
    phantoms_at: tuple[tuple[int, int], ...]


def _render(numbers) -> str:
    return "".join(f"[{number}]" for number in sorted(set(numbers)))


def _renumber(body: str, source_count: int) -> _Renumbering:
    """Drop phantoms, number by first appearance, write every citation as ``[n]``."""
    clusters = list(_clusters(_citations(body)))
    number_map: dict[int, int] = {}
    dropped: list[PhantomCitation] = []
    for cluster in clusters:
        for citation in cluster:
            for number in citation.numbers:
                if not 1 <= number <= source_count:
                    dropped.append(PhantomCitation(number, citation.start))
                elif number not in number_map:
                    number_map[number] = len(number_map) + 1

    rewrites = []
    phantoms_at: list[tuple[int, int]] = []
    pieces: list[str] = []
    written = 0
    cursor = 0
    at_line_start = True
    for cluster in clusters:
        shown = [number_map[n] for c in cluster for n in c.numbers if n in number_map]
        rewrites.extend(
            SyntaxRewrite(c.kind, body[c.start : c.end], _render_kept(c, number_map), c.start)
            for c in cluster
            if c.kind
        )
        gap = body[cursor : cluster[0].start]
        cursor = cluster[-1].end
        if not shown:
            gap, cursor = _close_up(body, gap, cursor, at_line_start)
        written += len(gap)
        phantoms_at.extend((written, n) for c in cluster for n in c.numbers if n not in number_map)
        rendered = _render(shown)
        pieces += [gap, rendered]
        written += len(rendered)
        if gap:
            at_line_start = gap.endswith("\n")
        if shown:
            at_line_start = False
    pieces.append(body[cursor:])
    return _Renumbering(
        "".join(pieces), number_map, tuple(dropped), tuple(rewrites), tuple(phantoms_at)
    )


def _render_kept(citation: _Citation, number_map: dict[int, int]) -> str:
    return _render(number_map[n] for n in citation.numbers if n in number_map)


def _close_up(body: str, gap: str, cursor: int, at_line_start: bool) -> tuple[str, int]:
    """Remove the space a dropped citation leaves, so no double space or " ." remains."""
    following = body[cursor : cursor + 1]
    if gap[-1:] in (" ", "\t") and (
        not following or following.isspace() or following in _CLOSING_PUNCTUATION
    ):
        return gap.rstrip(" \t"), cursor
    if (gap.endswith("\n") or (not gap and at_line_start)) and following in (" ", "\t"):
        while body[cursor : cursor + 1] in (" ", "\t"):
            cursor += 1
    return gap, cursor


@dataclass(frozen=True)
class CitationDocument:
    """An answer split into its body and the references the model wrote."""

    body: str
    references: list[Reference] = field(default_factory=list)

    def cited_numbers(self) -> list[int]:
        """Every number the body cites, in order, ranges expanded."""
        return [n for citation in _citations(self.body) for n in citation.numbers]

    def first_appearance_order(self) -> list[int]:
        return _unique(self.cited_numbers())

    def first_appearance_order_within(self, source_count: int) -> list[int]:
        return [n for n in self.first_appearance_order() if 1 <= n <= source_count]

    def normalize(self, source_count: int) -> CitationDocument:
        """Renumbered by first appearance; phantoms and their references dropped."""
        result = _renumber(self.body, source_count)
        references = sorted(
            (
                Reference(result.number_map[r.number], r.text)
                for r in self.references
                if r.number in result.number_map
            ),
            key=lambda r: r.number,
        )
        return CitationDocument(result.body, references)


def parse_document(text: str | None) -> CitationDocument:
    if not text:
        return CitationDocument("", [])
    body, section = _split_references(text)
    return CitationDocument(_unescape(body), _parse_references(section))


# Sources ---------------------------------------------------------------------


def _field(source: Mapping, name: str) -> str:
    value = source.get(name)
    if value is None:
        return ""
    # Line breaks inside a field would split the reference line when it is read back.
    return " ".join(str(value).split())


def _authors(source: Mapping, index: int | None) -> str:
    authors = source.get("authors")
    if authors is None:
        return ""
    if isinstance(authors, str):
        authors = [authors]
    if not isinstance(authors, Sequence):
        raise InvalidSourceError(
            f"{_which(index)}: authors must be a list of names, not {type(authors).__name__}"
        )
    names = (" ".join(str(name).split()) for name in authors if name is not None)
    return ", ".join(name for name in names if name)


def _which(index: int | None) -> str:
    return "source" if index is None else f"source {index + 1}"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "?", "!")) else f"{text}."


def _check_source(source, index: int | None = None) -> None:
    if not isinstance(source, Mapping):
        raise InvalidSourceError(
            f"{_which(index)} must be a dict with a title, not {type(source).__name__}"
        )
    if not _field(source, "title"):
        raise InvalidSourceError(
            f"{_which(index)} has no title; every source needs one to be cited"
        )


def _reference_text(source: Mapping, index: int | None = None) -> str:
    _check_source(source, index)
    authors, year = _authors(source, index), _field(source, "year")
    head = " ".join(part for part in (authors, f"({year})" if year else "") if part)
    url = _field(source, "url")
    if not url and _field(source, "doi"):
        url = f"https://doi.org/{_field(source, 'doi')}"
    parts = [
        _sentence(part) for part in (head, _field(source, "title"), _field(source, "venue")) if part
    ]
    return " ".join([*parts, url] if url else parts)


def format_reference(number: int, source: Mapping) -> str:
    """ "[n] Authors (year). Title. Venue. URL", leaving out whatever the source lacks.

    Without a URL, a DOI is linked through doi.org; nothing else is filled in.
    """
    return f"[{number}] {_reference_text(source)}"


# Finalization ----------------------------------------------------------------


def _paragraphs(body: str) -> list[tuple[int, int]]:
    """(start, end) of each run of non-blank lines."""
    spans = []
    start = None
    offset = 0
    for line in body.split("\n"):
        if line.strip():
            if start is None:
                start = offset
            end = offset + len(line)
        elif start is not None:
            spans.append((start, end))
            start = None
        offset += len(line) + 1
    if start is not None:
        spans.append((start, end))
    return spans


def _is_prose(text: str, in_fence: bool) -> bool:
    if in_fence:
        return False
    return not any(_STRUCTURAL_LINE_RE.match(line) for line in text.split("\n"))


def _is_claim(text: str) -> bool:
    """Whether a paragraph states something a source could support.

    A backfilled marker lands after the paragraph's last sentence and reads as support
    for it, so a paragraph is left alone when that sentence is a question or a
    pleasantry, and when the paragraph is only a display formula or only links.
    """
    prose = _CITATION_RE.sub(" ", text).strip()
    if len(_WORD_RE.findall(prose)) < MIN_BACKFILL_WORDS or prose.endswith(":"):
        return False
    if _is_display_formula(prose) or _BARE_LINKS_RE.fullmatch(prose):
        return False
    last = _last_sentence(prose)
    return not (_is_question(last) or _PLEASANTRY_RE.match(last))


def _last_sentence(prose: str) -> str:
    # Markdown emphasis and quotes around a sentence say nothing about what it is.
    pieces = _SENTENCE_BREAK_RE.split(prose.replace("\u2019", "'"))
    return pieces[-1].strip(" \t\r\n*_\"'\u201c\u201d")


def _is_question(sentence: str) -> bool:
    # An offer to say more ("Are you looking for ...?") asks; it claims nothing.
    return sentence.rstrip(" )]").endswith(("?", "\uff1f"))


def _is_display_formula(prose: str) -> bool:
    # "$$E = mc^2$$ [3]" cites a formula, and a marker after the closing "$$" or "\]"
    # is drawn beside the rendered equation as if it were part of it.
    return (prose.endswith("$$") and prose.count("$$") >= 2) or (
        prose.endswith("\\]") and "\\[" in prose
    )


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1].rstrip() + "\u2026"


def _phantoms_per_paragraph(
    spans: list[tuple[int, int]], phantoms_at: Sequence[tuple[int, int]]
) -> list[tuple[int, ...]]:
    """The phantom numbers dropped from each paragraph, in the order written."""
    found: list[list[int]] = [[] for _ in spans]
    i = 0
    for offset, number in phantoms_at:  # both are in text order: one walk suffices
        while i < len(spans) and spans[i][1] < offset:
            i += 1
        if i < len(spans) and spans[i][0] <= offset and number not in found[i]:
            found[i].append(number)
    return [tuple(numbers) for numbers in found]


def _backfill(
    body: str, phantoms_at: Sequence[tuple[int, int]] = ()
) -> tuple[str, tuple[Backfill, ...]]:
    """Give each uncited prose paragraph the citation of its nearest cited neighbour.

    A run of uncited paragraphs between two cited ones is shared out by distance
    (ties go to the earlier one): the paragraph before takes its predecessor's last
    citation, the one after its successor's first. Headings, lists, tables and code
    end a run. Every run touching a cited paragraph is filled, so a second pass
    finds nothing more to do.
    """
    spans = _paragraphs(body)
    first, last, eligible = _cited_paragraphs(body, spans)
    before = _nearest_cited(eligible, last, step=-1)
    after = _nearest_cited(eligible, first, step=1)
    borrowed: dict[int, int] = {}
    for i, (left, right) in enumerate(zip(before, after, strict=True)):
        nearest = min(
            (side for side in (left, right) if side), key=lambda side: side[0], default=None
        )
        if nearest:
            borrowed[i] = nearest[1]
    if not borrowed:
        return body, ()
    return _with_markers(body, spans, borrowed, _phantoms_per_paragraph(spans, phantoms_at))


def _cited_paragraphs(
    body: str, spans: list[tuple[int, int]]
) -> tuple[list[int | None], list[int | None], list[bool]]:
    """Per paragraph: its first and last citation number (None if uncited), and whether it is
    an uncited prose claim that may borrow one."""
    first: list[int | None] = []
    last: list[int | None] = []
    eligible: list[bool] = []
    in_fence = False
    for start, end in spans:
        text = body[start:end]
        shown = [n for citation in _citations(text) for n in citation.numbers]
        first.append(shown[0] if shown else None)
        last.append(shown[-1] if shown else None)
        eligible.append(not shown and _is_prose(text, in_fence) and _is_claim(text))
        fences = sum(1 for line in text.split("\n") if _FENCE_RE.match(line))
        in_fence ^= fences % 2 == 1
    return first, last, eligible


def _nearest_cited(
    eligible: list[bool], cited: list[int | None], *, step: int
) -> list[tuple[int, int] | None]:
    """(distance, number) of the nearest cited paragraph on one side (`step` -1 before, 1
    after), reached through eligible paragraphs only."""
    nearest: list[tuple[int, int] | None] = [None] * len(eligible)
    order = range(1, len(eligible)) if step < 0 else range(len(eligible) - 2, -1, -1)
    for i in order:
        if eligible[i]:
            neighbour = i + step
            if cited[neighbour] is not None:
                nearest[i] = (1, cited[neighbour])
            elif nearest[neighbour] is not None:
                nearest[i] = (nearest[neighbour][0] + 1, nearest[neighbour][1])
    return nearest


def _with_markers(
    body: str,
    spans: list[tuple[int, int]],
    borrowed: dict[int, int],
    phantoms: list[tuple[int, ...]],
) -> tuple[str, tuple[Backfill, ...]]:
    """`body` with each borrowing paragraph's marker after its last visible character."""
    pieces = []
    written = 0
    cursor = 0
    records = []
    for i in sorted(borrowed):
        start, end = spans[i]
        paragraph = body[cursor:end]
        kept = paragraph.rstrip()
        # The marker follows the last visible character: trailing spaces would stand
        # between it and the claim. A "\r" is the first half of a CRLF line end; it stays.
        line_end = "\r" if paragraph.endswith("\r") else ""
        marker = f"[{borrowed[i]}]"
        pieces += [kept, " ", marker, line_end]
        marker_start = written + len(kept) + 1
        written = marker_start + len(marker) + len(line_end)
        cursor = end
        records.append(
            Backfill(
                paragraph=i,
                number=borrowed[i],
                excerpt=_excerpt(body[start:end]),
                start=marker_start,
                end=marker_start + len(marker),
                phantoms=phantoms[i],
            )
        )
    pieces.append(body[cursor:])
    return "".join(pieces), tuple(records)


def _source_list(sources) -> list[Mapping]:
    sources = list(sources or [])
    for index, source in enumerate(sources):
        _check_source(source, index)
    return sources


@dataclass(frozen=True)
class Finalization:
    """A finalized answer and every change made to the raw one."""

    text: str
    body: str
    references: tuple[Reference, ...]
    canonical_sources: tuple[dict, ...]
    number_map: dict[int, int]  # original number -> number as shown
    dropped: tuple[PhantomCitation, ...]
    rewrites: tuple[SyntaxRewrite, ...]
    backfills: tuple[Backfill, ...]
    changed: bool  # whether the final answer differs from the raw one at all

    @property
    def renumbered(self) -> dict[int, int]:
        """Only the numbers that moved."""
        return {old: new for old, new in self.number_map.items() if old != new}

    @property
    def replacements(self) -> tuple[Backfill, ...]:
        """Backfills that put a real source where the model cited only phantoms: the
        claims now show support the model never gave them, so they are told first."""
        return tuple(b for b in self.backfills if b.replaced)

    @property
    def change_kinds(self) -> frozenset[str]:
        """Which kinds of change finalization made (`CHANGE_KINDS`), for counting them."""
        made = {
            "renumbered": bool(self.renumbered),
            "dropped": bool(self.dropped),
            "rewritten": bool(self.rewrites),
            "backfilled": bool(self.backfills),
            "replaced": bool(self.replacements),
        }
        return frozenset(kind for kind, happened in made.items() if happened)

    def to_dict(self) -> dict:
        """JSON-able (as far as the sources are); `from_dict` reads it back."""
        return {
            "text": self.text,
            "body": self.body,
            "references": [{"number": r.number, "text": r.text} for r in self.references],
            "canonical_sources": [dict(s) for s in self.canonical_sources],
            "number_map": {str(old): new for old, new in self.number_map.items()},
            "dropped": [{"number": d.number, "position": d.position} for d in self.dropped],
            "rewrites": [
                {
                    "kind": r.kind,
                    "original": r.original,
                    "replacement": r.replacement,
                    "position": r.position,
                }
                for r in self.rewrites
            ],
            "backfills": [
                {
                    "paragraph": b.paragraph,
                    "number": b.number,
                    "excerpt": b.excerpt,
                    "start": b.start,
                    "end": b.end,
                    "phantoms": list(b.phantoms),
                }
                for b in self.backfills
            ],
            "changed": self.changed,
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> Finalization:
        try:
            rewrites = tuple(SyntaxRewrite(**r) for r in data["rewrites"])
            for rewrite in rewrites:
                if rewrite.kind not in REWRITE_KINDS:
                    raise ValueError(
                        f"unknown rewrite kind {rewrite.kind!r}, expected one of {REWRITE_KINDS}"
                    )
            return cls(
                text=data["text"],
                body=data["body"],
                references=tuple(Reference(**r) for r in data["references"]),
                canonical_sources=tuple(dict(s) for s in data["canonical_sources"]),
                number_map={int(old): int(new) for old, new in data["number_map"].items()},
                dropped=tuple(PhantomCitation(**d) for d in data["dropped"]),
                rewrites=rewrites,
                backfills=tuple(_stored_backfill(b, data["body"]) for b in data["backfills"]),
                changed=bool(data["changed"]),
            )
        except KeyError as missing:
            raise InvalidFinalizationRecordError(
                f"finalization record has no {missing} entry"
            ) from None
        except (TypeError, ValueError, AttributeError) as error:
            raise InvalidFinalizationRecordError(
                f"finalization record is malformed: {error}"
            ) from None


def _stored_backfill(stored: Mapping, body: str) -> Backfill:
    """A stored backfill; one stored before markers had offsets finds its marker again."""
    fields = dict(stored)
    fields["phantoms"] = tuple(int(n) for n in fields.get("phantoms", ()))
    if "start" not in fields and "end" not in fields:
        fields["start"], fields["end"] = _marker_at_paragraph_end(
            body, fields["paragraph"], fields["number"]
        )
    backfill = Backfill(**fields)
    if body[backfill.start : backfill.end] != f"[{backfill.number}]":
        raise ValueError(
            f"backfill of paragraph {backfill.paragraph}: the body has no "
            f"[{backfill.number}] at {backfill.start}-{backfill.end}"
        )
    return backfill


def _marker_at_paragraph_end(body: str, paragraph: int, number: int) -> tuple[int, int]:
    # Markers were always appended to the paragraph's last visible character.
    spans = _paragraphs(body)
    if not 0 <= paragraph < len(spans):
        raise ValueError(f"backfill names paragraph {paragraph}; the body has {len(spans)}")
    start, end = spans[paragraph]
    end = start + len(body[start:end].rstrip())
    return end - len(f"[{number}]"), end


def finalize(text: str | None, sources: Sequence[Mapping] | None) -> Finalization:
    """The answer as it should be shown, with a record of every change made to it."""
    raw = text or ""
    sources = _source_list(sources)
    raw_body, _ = _split_references(raw)
    result = _renumber(raw_body, len(sources))
    body, backfills = _backfill(result.body, result.phantoms_at)

    canonical = tuple(dict(sources[old - 1]) for old in result.number_map)
    references = tuple(
        Reference(shown, _reference_text(source, old - 1))
        for (old, shown), source in zip(result.number_map.items(), canonical, strict=True)
    )
    final = body
    if references:
        final = "\n\n".join([body, REFERENCES_HEADING, *(r.line for r in references)])
    return Finalization(
        text=final,
        body=body,
        references=references,
        canonical_sources=canonical,
        number_map=result.number_map,
        dropped=result.dropped,
        rewrites=result.rewrites,
        backfills=backfills,
        changed=final != raw.rstrip(),
    )


# The kinds of change finalization makes, as `Finalization.change_kinds` names them.
CHANGE_KINDS = ("renumbered", "dropped", "rewritten", "backfilled", "replaced")
CHANGE_KIND_LABELS = {
    "renumbered": "citations renumbered",
    "dropped": "phantom citations dropped",
    "rewritten": "grouped, range or escaped syntax rewritten",
    "backfilled": "uncited paragraphs backfilled",
    "replaced": "phantoms replaced by a real source (unverified)",
}
ADDED_LABEL = "citation added by finalization"
REPLACED_LABEL = "citation replaced, unverified"


class AddedCitation(NamedTuple):
    """A ``[n]`` in the finalized text that finalization wrote, not the model."""

    start: int
    end: int
    number: int
    replaced: bool  # the paragraph cited only phantoms, and this stands in for them

    @property
    def label(self) -> str:
        """What a reader is told about it (an accessible label, a legend entry)."""
        return REPLACED_LABEL if self.replaced else ADDED_LABEL


def added_citation_spans(finalization: Finalization) -> list[AddedCitation]:
    """Every citation finalization added, in text order, with its offsets in
    `finalization.text` (the same in `finalization.body`, which begins it)."""
    return sorted(
        AddedCitation(b.start, b.end, b.number, b.replaced) for b in finalization.backfills
    )


def marked_text(finalization: Finalization, mark: Callable[[AddedCitation], str]) -> str:
    """The finalized text with each added citation written as `mark` returns it.

    Whoever shows or publishes the answer chooses the mark (a placeholder to render
    as a labelled element, or a plain-text sign); the model's own citations stay as
    they are, so nothing shown claims more support than the model gave.
    """
    text = finalization.text
    pieces = []
    cursor = 0
    for added in added_citation_spans(finalization):
        pieces += [text[cursor : added.start], mark(added)]
        cursor = added.end
    pieces.append(text[cursor:])
    return "".join(pieces)


def apply_finalization(text: str | None, sources: Sequence[Mapping] | None) -> str:
    return finalize(text, sources).text


def finalize_with_canonical(
    text: str | None, sources: Sequence[Mapping] | None
) -> tuple[str, list[dict]]:
    """The final answer and the sources it cites, in the order it cites them."""
    result = finalize(text, sources)
    return result.text, list(result.canonical_sources)


# Checks on an answer as written ----------------------------------------------


def has_phantom_citations(text: str | None, source_count: int) -> bool:
    return any(not 1 <= n <= source_count for n in parse_document(text).cited_numbers())


def has_grouped_or_range_syntax(text: str | None) -> bool:
    body, _ = _split_references(text or "")
    return any(c.kind in ("grouped", "range") for c in _citations(body))


def has_escaped_brackets(text: str | None) -> bool:
    return any(m["open"] or m["close"] for m in _CITATION_RE.finditer(text or ""))


def is_sequential_in_first_appearance_order(text: str | None) -> bool:
    order = parse_document(text).first_appearance_order()
    return order == list(range(1, len(order) + 1))


def body_and_references_match(text: str | None) -> bool:
    """The body cites exactly the listed references, each listed once."""
    document = parse_document(text)
    listed = sorted(r.number for r in document.references)
    return listed == sorted(set(document.cited_numbers()))
