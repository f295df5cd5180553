"""The proposer over the committed corpus of real documents (benchmarks/corpus/proposer).

Every text and Markdown document, and a handful of the PDFs (extracting all of them takes
most of a minute, which is the benchmark's business): the structural guarantees hold (with
and without a cap for the text documents), no proposed heading is one that the benchmark's
independent check calls page furniture, a contents line or a reference-list item, and no
text is left uncovered.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from benchmarks.bench_propose_corpus import CORPUS, documents, judge
from grounding.extract import PAGE_BREAK, extract_pages
from grounding.propose import (
    RULE_PREAMBLE,
    RULE_UNDERLINED_HEADING,
    NothingToPropose,
    propose_plan,
)
from tests.grounding.test_propose_real_documents import check_plan

# Small PDFs that between them have running headers, a contents list, a reference list,
# an outline and none: papers, slides and manuals.
PDFS = (
    "gut2001-mp3d.pdf",
    "tugboat-henderson-metapost.pdf",
    "dvipdfmx-tug2003-slides.pdf",
    "booktabs.pdf",
    "btxhak.pdf",
    "section.pdf",
)
CAP = 1500
QUARTER = 0.25


def corpus() -> list[Path]:
    return [path for path in documents() if path.suffix != ".pdf" or path.name in PDFS]


@pytest.fixture(autouse=True)
def quiet_pdf_warnings() -> None:
    # pypdf warns about odd font dictionaries in several of these files; they are harmless.
    logging.getLogger("pypdf").setLevel(logging.ERROR)


def test_the_corpus_is_there_with_its_manifest() -> None:
    listed = (CORPUS / "MANIFEST.md").read_text(encoding="utf-8")
    named = set(re.findall(r"^\| `([^`]+)` \|", listed, re.MULTILINE))
    on_disk = {f"{path.parent.name}/{path.name}" for path in documents()}
    assert named == on_disk
    assert sum(name.startswith("pdf/") for name in on_disk) >= 30
    assert sum(name.startswith("text/") for name in on_disk) >= 20
    assert set(PDFS) <= {Path(name).name for name in on_disk}


@pytest.mark.parametrize("path", corpus(), ids=lambda path: path.name)
def test_a_real_document_gets_a_sound_plan_with_no_heading_that_is_not_one(path: Path) -> None:
    data = path.read_bytes()
    pages = extract_pages(path.name, data)
    text = PAGE_BREAK.join(pages)
    try:
        payload = propose_plan(path.name, data)
    except NothingToPropose:
        return
    check_plan(path.name, payload, text, 0)
    if path.suffix != ".pdf":  # a PDF's text would be extracted once more; the cap is no PDF's
        check_plan(path.name, propose_plan(path.name, data, max_segment_chars=CAP), text, CAP)
    verdict = judge(pages, payload["entries"])
    assert verdict.furniture == ()
    assert verdict.contents == ()
    assert verdict.references == ()
    # The preamble leaves nothing before the first entry that holds words (markup is none).
    first = payload["entries"][0]["span"][0]
    assert len(re.findall(r"[^\W\d_]{2,}", re.sub(r"<[^>]*>", "", text[:first]))) < 3


def test_most_of_the_text_documents_get_a_plan() -> None:
    # Without this, a proposer that refused everything would pass the test above.
    texts = [path for path in corpus() if path.suffix != ".pdf"]
    proposed = 0
    for path in texts:
        try:
            propose_plan(path.name, path.read_bytes())
            proposed += 1
        except NothingToPropose:
            pass
    assert proposed >= len(texts) * 0.9


def test_pep_8_as_text_is_split_at_its_underlined_headings_into_small_entries() -> None:
    # Before the underline rule it gave five entries, all list items, one of 40,029 characters.
    path = CORPUS / "text" / "pep-0008.txt"
    text = path.read_text(encoding="utf-8")
    found = propose_plan(path.name, path.read_bytes())["entries"]
    assert len(found) >= 20
    assert {rule for entry in found for rule in entry["derived"][1:]} == {
        RULE_PREAMBLE,
        RULE_UNDERLINED_HEADING,
    }
    assert max(end - start for start, end in (entry["span"] for entry in found)) < (
        QUARTER * len(text)
    )
