"""Paragraph boundaries in a PDF's text, where pages are joined by a blank line."""

from __future__ import annotations

import re
from pathlib import Path

from grounding.extract import PAGE_BREAK, extract_text
from grounding.paragraphs import (
    is_paragraph_start,
    nearest_paragraph_starts,
    paragraph_boundaries,
)

PDF = Path(__file__).parents[2] / "review" / "demo_data" / "veileder-brannsikkerhet-bolig.pdf"


def pdf_text() -> str:
    return extract_text(PDF.name, PDF.read_bytes())


def page_break(text: str) -> int:
    """Where the second page starts: the PDF's pages are joined with a blank line."""
    return text.index(PAGE_BREAK) + len(PAGE_BREAK)


def test_a_page_break_inside_a_sentence_is_no_paragraph_boundary() -> None:
    text = pdf_text()
    start = page_break(text)
    assert text[start].islower(), "the demo PDF's page break falls inside a sentence"

    assert not is_paragraph_start(text, start, pages_joined=True)
    offered = [b.offset for b in nearest_paragraph_starts(text, start, 4, pages_joined=True)]
    assert start not in offered


def test_the_same_blank_line_in_plain_text_is_still_a_paragraph_boundary() -> None:
    text = "the first page ends in the middle of\n\nthe sentence that goes on"

    assert is_paragraph_start(text, text.index("the sentence"))
    assert not is_paragraph_start(text, text.index("the sentence"), pages_joined=True)


def test_a_pdfs_numbered_headings_start_paragraphs() -> None:
    text = pdf_text()
    starts, _ = paragraph_boundaries(text, pages_joined=True)
    headings = [m.start() for m in re.finditer(r"^\d+(?:\.\d+)* [A-ZÆØÅ]", text, re.MULTILINE)]

    assert headings
    assert set(headings) <= set(starts)


def test_a_line_that_ends_a_sentence_ends_a_pdf_paragraph() -> None:
    text = "Test the alarm every month.\nReplace the battery every year,\nand the alarm at ten."
    starts, ends = paragraph_boundaries(text, pages_joined=True)

    assert starts == [0, text.index("Replace")]
    assert ends == [text.index("\nReplace"), len(text)]
