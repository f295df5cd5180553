"""Extraction: the one string every span and anchor of a document is measured against."""

from __future__ import annotations

import pytest
from fpdf import FPDF

from grounding.extract import (
    EXTRACTOR_ID,
    PDF_EXTRACTOR_VERSION,
    TEXT_EXTRACTOR_VERSION,
    ExtractError,
    UndecodableDocument,
    UnsupportedDocument,
    document_type,
    extract_text,
    extractor_version,
)


def pdf_of(*pages: str, user_password: str | None = None) -> bytes:
    """A PDF with one page per argument, each page's text written as lines."""
    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    if user_password is not None:
        pdf.set_encryption(owner_password="owner", user_password=user_password)
    for page in pages:
        pdf.add_page()
        for line in page.splitlines():
            pdf.cell(text=line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


# --- which extractor ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("n500.md", "markdown"),
        ("notes.markdown", "markdown"),
        ("README.MD", "markdown"),
        ("plain.txt", "text"),
        ("dir.with.dots/report.PDF", "pdf"),
    ],
)
def test_the_extension_decides_the_document_type(name: str, kind: str) -> None:
    assert document_type(name) == kind


def test_an_unknown_type_is_refused_and_the_message_names_it() -> None:
    with pytest.raises(UnsupportedDocument, match=r"'\.docx'") as caught:
        extract_text("contract.docx", b"PK\x03\x04")
    assert "contract.docx" in str(caught.value)
    assert ".md" in str(caught.value), "the message should say what is supported"


def test_a_name_without_an_extension_is_refused() -> None:
    with pytest.raises(UnsupportedDocument, match="no file extension"):
        document_type("Makefile")


def test_both_refusals_are_extract_errors_and_value_errors() -> None:
    assert issubclass(UnsupportedDocument, ExtractError)
    assert issubclass(UndecodableDocument, ExtractError)
    assert issubclass(ExtractError, ValueError)


# --- Markdown and plain text --------------------------------------------------


def test_markdown_is_decoded_as_utf8_with_its_line_endings_kept() -> None:
    body = "# Brannkonsept\r\n\r\nKrav til rømning og bæreevne.\n"
    assert extract_text("n500.md", body.encode("utf-8")) == body


def test_a_byte_order_mark_is_dropped() -> None:
    assert extract_text("notes.txt", b"\xef\xbb\xbfhei") == "hei"


def test_a_bad_byte_is_an_error_naming_the_file_and_its_byte_offset() -> None:
    data = "Første linje\n".encode() + b"\xff" + b" resten"
    offset = data.index(b"\xff")
    with pytest.raises(UndecodableDocument) as caught:
        extract_text("n500.md", data)
    message = str(caught.value)
    assert "n500.md" in message
    assert f"byte offset {offset}" in message


def test_the_offset_counts_the_dropped_byte_order_mark() -> None:
    # The offset is for a person opening the file in a hex editor: it must be into the file.
    data = b"\xef\xbb\xbfok \xc3"
    with pytest.raises(UndecodableDocument, match=f"byte offset {len(data) - 1}"):
        extract_text("notes.txt", data)


def test_latin1_bytes_are_refused_rather_than_guessed() -> None:
    with pytest.raises(UndecodableDocument):
        extract_text("gammel.txt", "rømning".encode("latin-1"))


def test_an_empty_text_file_is_an_empty_string() -> None:
    assert extract_text("empty.md", b"") == ""


# --- PDF ----------------------------------------------------------------------


def test_pdf_text_comes_out_page_by_page() -> None:
    text = extract_text("n500.pdf", pdf_of("3.1 Brannkonsept\nKrav til seksjonering."))
    assert "3.1 Brannkonsept" in text
    assert "Krav til seksjonering." in text
    assert text.index("Brannkonsept") < text.index("seksjonering")


def test_pdf_pages_are_joined_by_one_blank_line() -> None:
    first, second = "Side en om vegbygging.", "Side to om baereevne."
    alone = [extract_text("p.pdf", pdf_of(page)) for page in (first, second)]
    together = extract_text("p.pdf", pdf_of(first, second))
    assert together == alone[0] + "\n\n" + alone[1]


def test_each_extracted_pdf_page_is_reported_with_the_page_count() -> None:
    reports: list[tuple[int, int]] = []
    data = pdf_of("Side en.", "Side to.", "Side tre.")
    text = extract_text("p.pdf", data, on_page=lambda done, total: reports.append((done, total)))
    assert reports == [(1, 3), (2, 3), (3, 3)]
    assert text == extract_text("p.pdf", data)


def test_a_text_file_is_reported_as_one_page() -> None:
    reports: list[tuple[int, int]] = []
    extract_text("a.md", b"# Tittel", on_page=lambda done, total: reports.append((done, total)))
    assert reports == [(1, 1)]


def test_pdf_extraction_is_deterministic() -> None:
    data = pdf_of("3.2 Roemning\nTo uavhengige roemningsveier.", "3.3 Baereevne\nR60.")
    assert extract_text("a.pdf", data) == extract_text("a.pdf", data)


def test_a_pdf_with_no_text_extracts_to_blank_pages() -> None:
    assert extract_text("blank.pdf", pdf_of("", "")).strip() == ""


def test_bytes_that_are_not_a_pdf_are_undecodable_and_name_the_file() -> None:
    with pytest.raises(UndecodableDocument, match="scan.pdf"):
        extract_text("scan.pdf", b"this is not a PDF at all")


def test_an_empty_pdf_file_is_undecodable() -> None:
    with pytest.raises(UndecodableDocument, match="empty.pdf"):
        extract_text("empty.pdf", b"")


def test_a_password_protected_pdf_is_undecodable() -> None:
    with pytest.raises(UndecodableDocument, match="password"):
        extract_text("locked.pdf", pdf_of("hemmelig", user_password="secret"))


def test_a_pdf_encrypted_without_a_user_password_still_opens() -> None:
    text = extract_text("owner-only.pdf", pdf_of("Aapen tekst.", user_password=""))
    assert "Aapen tekst." in text


# --- provenance ---------------------------------------------------------------


def test_the_extractor_names_itself_and_the_pdf_library_version() -> None:
    from importlib.metadata import version

    assert EXTRACTOR_ID
    assert extractor_version("Veileder.PDF") == PDF_EXTRACTOR_VERSION
    assert f"pypdf{version('pypdf')}" in PDF_EXTRACTOR_VERSION


def test_markdown_and_plain_text_name_the_utf8_reading_not_the_pdf_library() -> None:
    for name in ("notes.md", "notes.markdown", "notes.txt"):
        assert extractor_version(name) == TEXT_EXTRACTOR_VERSION, name
    assert "pypdf" not in TEXT_EXTRACTOR_VERSION and "utf-8" in TEXT_EXTRACTOR_VERSION


def test_no_extractor_version_is_named_for_a_type_nothing_extracts() -> None:
    with pytest.raises(UnsupportedDocument, match="supported"):
        extractor_version("notes.docx")
