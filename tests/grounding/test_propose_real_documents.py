"""The proposer on documents nobody wrote for it: the long descriptions that installed
packages ship in their metadata (Markdown) and four committed PDFs of the proposer's corpus
(benchmarks/corpus/proposer/pdf) that test_propose_corpus does not already read.

What must hold for every plan it writes, whatever the document: the plan passes the gate
against its own text, spans are sorted and tile from the first entry to the end, every
anchor quotes its span, every entry is PROPOSED and names declared rules, paths are
unique, the cap holds, and replay on the same text gives back exactly the proposed spans.
"""

from __future__ import annotations

from importlib.metadata import distributions
from pathlib import Path

import pytest

from grounding.extract import extract_text
from grounding.propose import PROPOSED_MARKER, RULE_NAMES, NothingToPropose, propose_plan
from grounding.segmentation import parse_segmentation_plan, slice_segments

CAPS = (0, 1500)
CORPUS_PDFS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus" / "proposer" / "pdf"
# Small PDFs of the corpus: two tools' manuals, a package's documentation, a specification.
PDFS = ("makeindex.pdf", "texdoc.pdf", "float.pdf", "shared-mime-info-spec.pdf")


def markdown_descriptions() -> dict[str, str]:
    found = {}
    for distribution in distributions():
        metadata = distribution.metadata
        content_type = (metadata.get("Description-Content-Type") or "").lower()
        description = metadata.get("Description") or metadata.get_payload()
        if content_type.startswith("text/markdown") and description and description.strip():
            found.setdefault(metadata["Name"].lower(), description)
    return dict(sorted(found.items()))


def cases(found: dict, kind: str) -> list:
    if not found:
        reason = f"no {kind} found on this machine to propose from"
        return [pytest.param(None, None, marks=pytest.mark.skip(reason=reason))]
    return [pytest.param(name, value, id=name) for name, value in found.items()]


def check_invariants(name: str, data: bytes, cap: int) -> int:
    """The number of entries proposed (0 when there was nothing to propose)."""
    try:
        payload = propose_plan(name, data, max_segment_chars=cap)
    except NothingToPropose:
        return 0
    check_plan(name, payload, extract_text(name, data), cap)
    return len(payload["entries"])


def check_plan(name: str, payload: dict, text: str, cap: int) -> None:
    """Every structural guarantee a proposed plan gives over the text it was made from."""
    plan = parse_segmentation_plan(payload, text)
    spans = [entry.span for entry in plan.entries]
    assert spans == sorted(spans)
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        assert end == start, f"{name}: gap or overlap at {end}/{start}"
    assert spans[-1][1] == len(text)
    entry_paths = [entry.path for entry in plan.entries]
    assert len(entry_paths) == len(set(entry_paths))
    for entry in plan.entries:
        start, end = entry.span
        assert entry.anchor.quote == text[start:end]
        assert entry.derived[0] == PROPOSED_MARKER and entry.derived.count(PROPOSED_MARKER) == 1
        assert entry.rules and set(entry.rules) <= RULE_NAMES
        if cap:
            assert end - start <= cap, f"{name}: {entry.path} is {end - start} > {cap}"
    assert [body for _, body in slice_segments(text, plan)] == [text[s:e] for s, e in spans]


@pytest.mark.parametrize(("name", "description"), cases(markdown_descriptions(), "Markdown"))
@pytest.mark.parametrize("cap", CAPS)
def test_a_package_long_description_gets_a_sound_plan_or_none(
    name: str, description: str, cap: int
) -> None:
    check_invariants(f"{name}.md", description.encode("utf-8"), cap)


@pytest.mark.parametrize("name", PDFS)
@pytest.mark.parametrize("cap", CAPS)
def test_a_committed_pdf_gets_a_sound_plan(name: str, cap: int) -> None:
    # Committed files, so every machine proposes from the same bytes; each of these has
    # headings enough that "nothing to propose" would be a regression, not an answer.
    assert check_invariants(name, (CORPUS_PDFS / name).read_bytes(), cap) > 0


def test_the_real_descriptions_are_not_all_nothing_to_propose() -> None:
    # Without this, a proposer that never proposed anything would pass every check above.
    descriptions = markdown_descriptions()
    if not descriptions:
        pytest.skip("no installed distribution ships a Markdown long description")
    proposed = sum(
        check_invariants(f"{name}.md", text.encode("utf-8"), 0) > 0
        for name, text in descriptions.items()
    )
    assert proposed >= len(descriptions) // 2
