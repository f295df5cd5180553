"""Storing documents: the bytes, their hash and their text, or a clear refusal."""

from __future__ import annotations

import json
from importlib.metadata import version

import pytest

from grounding.extract import EXTRACTOR_ID, PDF_EXTRACTOR_VERSION, TEXT_EXTRACTOR_VERSION
from review.adapters.documents import store_document
from review.adapters.errors import ImportRefused
from review.adapters.plans import propose_document
from review.management.commands.demo import DEMO_DATA
from review.models import Document
from tests.builders.plans import CODE_TEXT, row_counts, sha256

pytestmark = pytest.mark.django_db
PDF = "veileder-brannsikkerhet-bolig.pdf"


def test_a_document_keeps_its_bytes_their_hash_and_the_extracted_text() -> None:
    data = ("\ufeff" + CODE_TEXT).encode()

    document = store_document("n500.md", data)

    stored = Document.objects.get(pk=document.pk)
    assert bytes(stored.data) == data
    assert stored.sha256 == sha256(data)
    assert stored.text == CODE_TEXT  # the byte order mark is not text
    assert (stored.name, stored.media_type) == ("n500.md", "markdown")
    assert (stored.extractor_id, stored.extractor_version) == (EXTRACTOR_ID, TEXT_EXTRACTOR_VERSION)


def test_a_document_names_the_extraction_that_read_its_text_pypdf_only_for_a_pdf() -> None:
    markdown = store_document("n500.md", CODE_TEXT.encode())
    text = store_document("notes.txt", b"Plain text.\n")
    pdf = store_document(PDF, (DEMO_DATA / PDF).read_bytes())

    assert markdown.extractor_version == text.extractor_version == TEXT_EXTRACTOR_VERSION
    assert "pypdf" not in markdown.extractor_version
    assert pdf.extractor_version == PDF_EXTRACTOR_VERSION
    assert f"pypdf{version('pypdf')}" in pdf.extractor_version


def test_a_proposed_plan_names_the_same_extraction_as_its_document() -> None:
    for name, data in (("n500.md", CODE_TEXT.encode()), (PDF, (DEMO_DATA / PDF).read_bytes())):
        plan = propose_document(name, data)

        assert plan.extractor_version == plan.document.extractor_version, name
        assert json.loads(plan.original_payload)["extractor_version"] == plan.extractor_version


def test_the_same_bytes_stored_twice_are_one_document_under_its_first_name() -> None:
    first = store_document("n500.md", CODE_TEXT.encode())
    again = store_document("copy-of-n500.md", CODE_TEXT.encode())

    assert again.pk == first.pk
    assert list(Document.objects.values_list("name", flat=True)) == ["n500.md"]


def test_a_name_with_directories_is_stored_as_the_file_name_alone() -> None:
    assert store_document("uploads/2026/n500.md", b"# A\n\nText.\n").name == "n500.md"
    assert store_document("C:\\docs\\notes.txt", b"Plain text.\n").name == "notes.txt"


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.md", b"", "empty.md is empty"),
        ("blank.txt", b"  \n\n\t\n", "holds no text"),
        ("latin1.md", "# Rømning\n".encode("latin-1"), "not valid UTF-8 at byte offset 3"),
        ("report.docx", b"PK\x03\x04", "cannot extract text from a file with type '.docx'"),
        ("README", b"text", "no file extension"),
        ("broken.pdf", b"%PDF-1.4 this is not a pdf", "broken.pdf"),
    ],
    ids=["empty", "whitespace", "undecodable", "unsupported", "no-extension", "broken-pdf"],
)
def test_a_file_that_gives_no_text_is_refused_and_nothing_is_stored(name, data, reason) -> None:
    before = row_counts()

    with pytest.raises(ImportRefused) as refused:
        store_document(name, data)

    assert reason in str(refused.value)
    assert refused.value.problems == [str(refused.value)]
    assert row_counts() == before


def test_a_pdf_is_stored_with_the_text_of_its_pages() -> None:
    from fpdf import FPDF

    pdf = FPDF()
    for line in ("1 Omfang", "2 Brannkonsept"):
        pdf.add_page()
        pdf.set_font("Helvetica", size=12)
        pdf.cell(text=line)
    data = bytes(pdf.output())

    document = store_document("forskrift.pdf", data)

    assert document.media_type == "pdf"
    assert "1 Omfang" in document.text and "2 Brannkonsept" in document.text
    assert document.text.index("1 Omfang") < document.text.index("2 Brannkonsept")


def test_a_document_whose_text_holds_a_nul_character_is_refused_on_every_database() -> None:
    with pytest.raises(ImportRefused, match=r"NUL.*offset 7"):
        store_document("nul.txt", b"# T\n\nab\x00cd\n")
    assert not Document.objects.exists()
