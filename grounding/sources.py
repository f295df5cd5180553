"""Sources listed at the foot of an answer as ``[n] URL`` lines.

Many answer sets carry their sources inside the answer text rather than beside it:
search-backed chat models print a closing list such as

    Sources:
    [1] https://www.ncbi.nlm.nih.gov/books/NBK499921/
    [2] Loop diuretics - https://example.org/loop
    [3]: https://example.org/thiazides "Thiazide diuretics"

`parse_source_list` takes that list off the answer and reads each line into a
`ListedSource`, so the body and its sources can go to `citations.finalize` as if they
had arrived apart. The numbers must run 1, 2, 3 with no gap or repeat, because
finalization reads source n as the n-th in the list; anything else is refused,
naming the line, rather than silently pointing a citation at the wrong page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Bounds on what one answer may carry, so a pasted log cannot make a source list.
MAX_TEXT_CHARS = 1_000_000
MAX_LISTED_SOURCES = 1_000
MAX_URL_CHARS = 2_048  # what browsers and most servers accept
MAX_TITLE_CHARS = 500

# "[3]", "\[3\]", "[3]:", and footnote shapes "[^3]:", "[^3^]".
_ENTRY_RE = re.compile(r"[ \t]*\\?\[\^?([0-9]{1,9})\^?\\?\]:?[ \t]*(.*)")
_HEADING_RE = re.compile(
    r"[ \t]*(?:#{1,6}[ \t]*)?(?:\*\*|__)?"
    r"(?:sources?|citations?|references?|links|learn more|further reading)"
    r"[ \t]*:?[ \t]*(?:\*\*|__)?[ \t]*:?[ \t]*",
    re.IGNORECASE,
)
_URL_RE = re.compile(r"https?://[^\s<>\"]+", re.IGNORECASE)
# "[Title](https://...)" as the whole entry.
_MARKDOWN_LINK_RE = re.compile(r"\[([^\]]*)\]\(<?(https?://[^\s<>)]+)>?(?:[ \t]+\"[^\"]*\")?\)")
_URL_TRAILING = ".,;:!?'\""
# What separates a title from its address: "Title - URL", "Title: URL", "Title. URL."
_SEPARATORS = " \t-\u2013\u2014|:\u00b7,."
# Marks around a title that are not part of it: quotes, a markdown title, emphasis.
_WRAPPERS = (("**", "**"), ("__", "__"), ('"', '"'), ("'", "'"), ("(", ")"), ("\u201c", "\u201d"))


class InvalidSourceListError(ValueError):
    """An answer's source list cannot be read; the message names the line."""


@dataclass(frozen=True)
class ListedSource:
    number: int
    url: str
    title: str | None  # as the line gives it; None when the line is only an address

    def as_source(self) -> dict:
        """The source as `citations.finalize` and the answers import take it.

        A source must have a title to be cited; without one, the address stands in,
        shortened to what a reader recognises ("ncbi.nlm.nih.gov/books/NBK499921").
        """
        return {"title": self.title or _address_title(self.url), "url": self.url}


def parse_source_list(text: str | None) -> tuple[str, tuple[ListedSource, ...]]:
    """(the answer without its closing source list, the sources it listed).

    The list is the run of ``[n] ...`` lines that ends the answer (blank lines
    between them allowed), with the heading above it if it has one ("Sources:",
    "Citations", "**References**"). An answer with no such run is returned whole,
    with no sources.
    """
    text = text or ""
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidSourceListError(
            f"the answer has {len(text):,} characters; at most {MAX_TEXT_CHARS:,} are read"
        )
    lines = text.split("\n")
    first = _list_start(lines)
    _refuse_stray_entries(lines, first)
    entries = [(i, _ENTRY_RE.fullmatch(lines[i].rstrip())) for i in range(first, len(lines))]
    entries = [(i, match) for i, match in entries if match]
    if not any(_URL_RE.search(match[2] or "") for _, match in entries):
        # "[1] Smith found ..." closing an answer is prose, not a list of sources.
        return text, ()
    if len(entries) > MAX_LISTED_SOURCES:
        raise InvalidSourceListError(
            f"the source list has {len(entries):,} entries; at most {MAX_LISTED_SOURCES:,}"
        )
    sources = _numbered([(i + 1, _entry(i + 1, match)) for i, match in entries])
    heading = _heading_above(lines, first)
    body = "\n".join(lines[: first if heading is None else heading])
    return body.rstrip(), sources


def _list_start(lines: list[str]) -> int:
    """Index of the first line of the trailing run of entries and blank lines."""
    start = len(lines)
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i].rstrip()
        if line.strip() and not _ENTRY_RE.fullmatch(line):
            break
        if line.strip():
            start = i
    return start


def _refuse_stray_entries(lines: list[str], first: int) -> None:
    # A source line with prose after it would leave its source out of the list, and
    # every citation of it would then be dropped as a phantom: say so instead.
    for i in range(first):
        match = _ENTRY_RE.fullmatch(lines[i].rstrip())
        if match and _URL_RE.search(match[2]):
            after = next(j for j in range(i + 1, len(lines)) if _is_other_text(lines[j]))
            raise InvalidSourceListError(
                f"line {i + 1}: source [{match[1]}] is listed before line {after + 1}, "
                "which is not a source; the source list must close the answer"
            )


def _is_other_text(line: str) -> bool:
    line = line.rstrip()
    return bool(line.strip()) and not _ENTRY_RE.fullmatch(line)


def _heading_above(lines: list[str], first: int) -> int | None:
    i = first - 1
    while i >= 0 and not lines[i].strip():
        i -= 1
    return i if i >= 0 and _HEADING_RE.fullmatch(lines[i].rstrip()) else None


def _entry(line_number: int, match: re.Match[str]) -> ListedSource:
    number, rest = int(match[1]), (match[2] or "").strip()
    where = f"line {line_number}: source [{number}]"
    link = _MARKDOWN_LINK_RE.fullmatch(rest)
    if link:
        title, url = _title(link[1]), link[2]
    else:
        urls = list(_URL_RE.finditer(rest))
        if not urls:
            raise InvalidSourceListError(
                f"{where} has no web address (http:// or https://): {rest[:80]!r}"
            )
        if len(urls) > 1:
            raise InvalidSourceListError(
                f"{where} has {len(urls)} web addresses; a source has one: {rest[:80]!r}"
            )
        url = _clean_url(urls[0][0])
        before, after = rest[: urls[0].start()], rest[urls[0].start() + len(url) :]
        # "Title - URL" names the page before the address, "URL "Title"" after it.
        title = _title(before) or _title(after)
    if len(url) > MAX_URL_CHARS:
        raise InvalidSourceListError(
            f"{where} has a web address of {len(url):,} characters; at most {MAX_URL_CHARS:,}"
        )
    if title and len(title) > MAX_TITLE_CHARS:
        raise InvalidSourceListError(
            f"{where} has a title of {len(title):,} characters; at most {MAX_TITLE_CHARS:,}"
        )
    return ListedSource(number, url, title)


def _clean_url(url: str) -> str:
    # A sentence's full stop or a closing bracket is not part of the address, unless
    # the address opened that bracket itself (Wikipedia's "..._(disambiguation)").
    while url and (
        url[-1] in _URL_TRAILING or (url[-1] == ")" and url.count("(") < url.count(")"))
    ):
        url = url[:-1]
    return url


def _title(text: str) -> str | None:
    """The title in what stands beside the address, without separators or wrappers."""
    title, before = text, None
    while title != before:
        before = title
        title = title.strip(_SEPARATORS)
        # The bracket of "Title (URL)" or "Title <URL>" is left on one side of each part.
        title = title.removesuffix("(").removesuffix("<").removeprefix(")").removeprefix(">")
        for opening, closing in _WRAPPERS:
            inner = title[len(opening) : -len(closing)]
            if title.startswith(opening) and title.endswith(closing) and inner.strip():
                title = inner
    title = " ".join(title.split())
    return title or None


def _numbered(entries: list[tuple[int, ListedSource]]) -> tuple[ListedSource, ...]:
    """The sources, refused unless numbered 1, 2, 3, ... in order."""
    listed_on: dict[int, int] = {}
    for expected, (line_number, source) in enumerate(entries, start=1):
        if source.number in listed_on:
            raise InvalidSourceListError(
                f"line {line_number}: source [{source.number}] is listed twice "
                f"(first on line {listed_on[source.number]})"
            )
        if source.number != expected:
            raise InvalidSourceListError(
                f"line {line_number}: source [{source.number}] stands where [{expected}] "
                "should; sources must be numbered 1, 2, 3, ... since source n is the n-th"
            )
        listed_on[source.number] = line_number
    return tuple(source for _, source in entries)


def _address_title(url: str) -> str:
    address = re.sub(r"^https?://(?:www\.)?", "", url, flags=re.IGNORECASE)
    return address.rstrip("/") or url
