"""The text a document's plan is made against: one string per document, the same every time.

Spans and anchors are offsets into this string, so it must never change silently: Markdown and
plain text are strict UTF-8 (a bad byte is an error, never a replacement character), and PDF text
comes from one pinned library whose version is part of `extractor_version` for a PDF.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from importlib.metadata import version
from pathlib import PurePath

from pypdf import PdfReader

EXTRACTOR_ID = "grounding.extract"
# A plan records which extraction its offsets belong to, named for what read the text:
# Markdown and plain text are this module's strict UTF-8 reading; PDF text changes with the
# PDF library, so its version is part of ours.
TEXT_EXTRACTOR_VERSION = "1+utf-8"
PDF_EXTRACTOR_VERSION = f"1+pypdf{version('pypdf')}"

_TYPES = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".pdf": "pdf"}
_BOM = b"\xef\xbb\xbf"
PAGE_BREAK = "\n\n"


class ExtractError(ValueError):
    """A document whose text cannot be extracted."""


class UnsupportedDocument(ExtractError):
    """A file type this module has no extractor for."""


class UndecodableDocument(ExtractError):
    """A supported file whose bytes are not a readable document of its type."""


def document_type(name: str) -> str:
    """ "markdown", "text" or "pdf", from the file name's extension (case does not matter)."""
    suffix = PurePath(name).suffix.lower()
    try:
        return _TYPES[suffix]
    except KeyError:
        kind = f"type {suffix!r}" if suffix else "no file extension"
        known = ", ".join(sorted(_TYPES))
        raise UnsupportedDocument(
            f"{name}: cannot extract text from a file with {kind}; supported: {known}"
        ) from None


def extractor_version(name: str) -> str:
    """The version of the extraction that reads a document of the type `name` names."""
    return PDF_EXTRACTOR_VERSION if document_type(name) == "pdf" else TEXT_EXTRACTOR_VERSION


# Told (pages done, pages in all) as extraction goes, so a long PDF can show its progress.
PageProgress = Callable[[int, int], None]


def extract_text(name: str, data: bytes, on_page: PageProgress | None = None) -> str:
    """The text of a document whose type `name` names; the same bytes always give the same text.

    `on_page`, if given, is called after each page (a text file is one page).
    """
    kind = document_type(name)
    if kind == "pdf":
        return _pdf_text(name, data, on_page)
    text = _utf8_text(name, data)
    if on_page is not None:
        on_page(1, 1)
    return text


def _utf8_text(name: str, data: bytes) -> str:
    skipped = len(_BOM) if data.startswith(_BOM) else 0
    try:
        return data[skipped:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = skipped + error.start
        bad = data[offset : offset + min(4, error.end - error.start)].hex(" ")
        raise UndecodableDocument(
            f"{name}: not valid UTF-8 at byte offset {offset} (bytes {bad}: {error.reason}); "
            "re-save the file as UTF-8"
        ) from None


def extract_pages(name: str, data: bytes, on_page: PageProgress | None = None) -> list[str]:
    """A PDF's text page by page; `extract_text` is these pages joined by PAGE_BREAK.

    Other documents have no pages: their whole text is one. `on_page` as for `extract_text`.
    """
    if document_type(name) == "pdf":
        return _pdf_pages(name, data, on_page)
    text = _utf8_text(name, data)
    if on_page is not None:
        on_page(1, 1)
    return [text]


def _pdf_text(name: str, data: bytes, on_page: PageProgress | None = None) -> str:
    return PAGE_BREAK.join(_pdf_pages(name, data, on_page))


def _pdf_pages(name: str, data: bytes, on_page: PageProgress | None = None) -> list[str]:
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise UndecodableDocument(f"{name}: the PDF is encrypted with a password")
        total = len(reader.pages)
        pages = []
        for page in reader.pages:
            pages.append(page.extract_text())
            if on_page is not None:
                on_page(len(pages), total)
    except ExtractError:
        raise
    except Exception as error:
        # A damaged file can make the parser fail in many ways; to the caller they are one.
        raise UndecodableDocument(f"{name}: not a readable PDF ({error})") from error
    return pages
