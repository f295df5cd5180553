"""Plans in: the proposer's plan, or one made elsewhere, stored verbatim with entry rows."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User

from grounding.anchors import make_anchor
from grounding.propose import propose_plan
from review.adapters.documents import store_document
from review.adapters.errors import ImportRefused
from review.adapters.plans import (
    NothingProposed,
    import_plan,
    path_collisions,
    propose_document,
)
from review.models import Entry, Plan
from tests.builders.plans import (
    CODE_TEXT,
    payload_text,
    proposed_payload,
    row_counts,
    sections,
    update_entries,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def document():
    return store_document("n500.md", CODE_TEXT.encode())


# --- proposing --------------------------------------------------------------------------


def test_proposing_stores_the_document_and_the_proposers_payload_verbatim() -> None:
    plan = propose_document("n500.md", CODE_TEXT.encode(), path_prefix="vegnormal")

    expected = propose_plan("n500.md", CODE_TEXT.encode(), path_prefix="vegnormal")
    assert json.loads(plan.original_payload) == expected
    assert plan.document.text == CODE_TEXT
    assert plan.options == {"max_segment_chars": 0, "path_prefix": "vegnormal"}
    rows = list(plan.entries.all())
    assert [row.path for row in rows] == [entry["path"] for entry in expected["entries"]]
    assert all(row.path.startswith("vegnormal/") for row in rows)
    assert {row.state for row in rows} == {"proposed"}


def test_proposing_the_same_bytes_again_returns_the_plan_already_made() -> None:
    first = propose_document("n500.md", CODE_TEXT.encode())
    counts = row_counts()

    again = propose_document("n500.md", CODE_TEXT.encode())

    assert (again.pk, again.created, first.created) == (first.pk, False, True)
    assert row_counts() == counts


def test_a_size_cap_splits_long_sections_and_is_kept_with_the_plan(settings) -> None:
    # The code text is short: let a cap this small through (the app's minimum is larger).
    settings.REVIEW_MIN_SEGMENT_CHARS = 40
    plan = propose_document("n500.md", CODE_TEXT.encode(), max_segment_chars=40)

    assert plan.options["max_segment_chars"] == 40
    assert all(row.span_end - row.span_start <= 40 for row in plan.entries.all())
    assert any("rule:size-split" in row.rules for row in plan.entries.all())


def test_a_document_with_nothing_to_propose_stores_nothing_not_even_the_document() -> None:
    before = row_counts()

    with pytest.raises(NothingProposed, match="nothing to propose for flat.md"):
        propose_document("flat.md", b"Just one paragraph, no headings at all.\n")

    assert row_counts() == before


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"max_segment_chars": -5}, "max-segment-chars"),
        ({"path_prefix": "///"}, "prefix"),
    ],
    ids=["negative-cap", "empty-prefix"],
)
def test_bad_proposer_options_are_refused_and_nothing_is_stored(options, reason) -> None:
    before = row_counts()

    with pytest.raises(ImportRefused, match=reason):
        propose_document("n500.md", CODE_TEXT.encode(), **options)

    assert row_counts() == before


# --- importing ----------------------------------------------------------------------------


def test_an_imported_plan_keeps_its_text_verbatim_and_makes_one_row_per_entry(document) -> None:
    editor = User.objects.create_user("pipeline")
    text = payload_text(proposed_payload())

    plan = import_plan(document, text, actor=editor)

    assert plan.original_payload == text
    assert plan.options == {"submitted_by": "pipeline"}
    assert plan.status == Plan.Status.OPEN
    rows = list(plan.entries.order_by("position"))
    assert len(rows) == len(sections())
    for position, (row, (path, title, start, end)) in enumerate(zip(rows, sections(), strict=True)):
        anchor = make_anchor(CODE_TEXT, start, end)
        assert (row.position, row.path, row.title) == (position, path, title)
        assert (row.span_start, row.span_end) == (start, end)
        assert (row.quote, row.prefix, row.suffix) == (anchor.quote, anchor.prefix, anchor.suffix)
        assert row.rules == ["rule:heading"]
        assert row.proposed == json.loads(text)["entries"][position]
        assert (row.anchor_status, row.anchor_score) == ("exact", 1.0)


def test_the_same_plan_imported_twice_is_stored_once(document) -> None:
    text = payload_text(proposed_payload())
    first = import_plan(document, text)
    counts = row_counts()

    assert import_plan(document, text).pk == first.pk
    assert row_counts() == counts


def test_a_plan_for_another_document_is_refused_naming_both_hashes(document) -> None:
    other = "## 9 Annet\n\nEt annet dokument.\n"
    before = row_counts()

    with pytest.raises(ImportRefused) as refused:
        import_plan(document, payload_text(proposed_payload(other)))

    message = str(refused.value)
    assert "this plan is for other bytes" in message
    assert document.sha256[:12] in message and "n500.md" in message
    assert row_counts() == before


def _payload_with(**changes) -> str:
    payload = proposed_payload()
    for dotted, value in changes.items():
        target = payload
        *parents, last = dotted.split("__")
        for key in parents:
            target = target[int(key)] if key.isdigit() else target[key]
        target[int(last) if last.isdigit() else last] = value
    return payload_text(payload)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"source_sha256": "ab", "entries": [', "the plan is not valid JSON: line 1 column"),
        ("", "the plan is empty"),
        ("[1, 2]", "must be a JSON object, not a list"),
        ('"plan"', "must be a JSON object, not a string"),
        (_payload_with(entries="all of it"), "'entries': must be a list"),
        (_payload_with(entries__0__span=["0", "10"]), "'span': must be [start, end]"),
        (_payload_with(entries__1__title=42), "'title': must be one non-blank line"),
        (_payload_with(entries__0__derived=["rule:heading"]), "starts with 'PROPOSED'"),
        (_payload_with(adjudicated="no"), "'adjudicated': must be true or false"),
        (_payload_with(entries__2__anchor__quote="x"), "'anchor.quote'"),
        (_payload_with(entries__0__path="Not A Slug"), "'path'"),
        (_payload_with(entries__1__title="T" * 501), "longer than 500 characters"),
    ],
    ids=[
        "malformed-json",
        "empty",
        "a-list",
        "a-string",
        "entries-not-a-list",
        "span-of-strings",
        "title-a-number",
        "not-marked-proposed",
        "adjudicated-not-a-boolean",
        "anchor-not-quoting-its-span",
        "path-not-a-slug",
        "title-too-long-to-store",
    ],
)
def test_a_plan_grounding_refuses_is_refused_with_its_reason_and_nothing_is_stored(
    document, text: str, reason: str
) -> None:
    before = row_counts()

    with pytest.raises(ImportRefused) as refused:
        import_plan(document, text)

    assert reason in str(refused.value)
    assert row_counts() == before


def test_a_plan_that_claims_to_be_adjudicated_is_refused(document) -> None:
    payload = proposed_payload()
    payload["adjudicated"] = True
    payload["rejected"] = []
    for entry in payload["entries"]:
        entry["derived"] = ["rule:heading"]
        entry["adjudication"] = {
            "decision": "accept",
            "by": "someone",
            "at": "2026-12-01T10:00:00+00:00",
            "note": "",
        }
    before = row_counts()

    with pytest.raises(ImportRefused, match="already adjudicated; import the proposal"):
        import_plan(document, payload_text(payload))

    assert row_counts() == before


def test_bytes_that_are_not_utf8_are_refused_as_a_plan(document) -> None:
    with pytest.raises(ImportRefused, match="not UTF-8 text: byte 0"):
        import_plan(document, b"\xff\xfe{}")


def test_a_plan_from_another_extractor_is_placed_by_its_anchors_in_the_stored_text(
    document,
) -> None:
    # The proposer saw a text with a preamble the stored extraction does not have.
    older = "Preamble from an older extractor.\n\n" + CODE_TEXT
    payload = proposed_payload(older, data=CODE_TEXT.encode(), extractor_version="0-old")
    lost = payload["entries"][2]
    lost["anchor"] = {
        "quote": "zq" * ((lost["span"][1] - lost["span"][0]) // 2),
        "prefix": "",
        "suffix": "",
    }
    lost["span"][1] = lost["span"][0] + len(lost["anchor"]["quote"])

    plan = import_plan(document, payload_text(payload))

    rows = list(plan.entries.order_by("position"))
    shift = len("Preamble from an older extractor.\n\n")
    for row, (_, _, start, end) in zip(rows[:2], sections(older), strict=False):
        assert row.anchor_status == "moved"
        assert (row.span_start, row.span_end) == (start - shift, end - shift)
        assert CODE_TEXT[row.span_start : row.span_end] == row.quote
    assert rows[2].anchor_status == "orphaned"
    assert rows[2].anchor_score == 0.0
    assert (rows[2].span_start, rows[2].span_end) == tuple(lost["span"])
    assert plan.extractor_version == "0-old"


# --- path collisions --------------------------------------------------------------------------


def test_paths_used_by_entries_of_two_documents_are_reported_with_both_documents() -> None:
    first = propose_document("n500.md", CODE_TEXT.encode())
    second = propose_document("n500-copy.md", CODE_TEXT.replace("R60", "R90").encode())
    propose_document("other.md", b"# Annet\n\nNoe annet.\n")
    shared = {row.path for row in first.entries.all()}

    collisions = path_collisions()

    assert set(collisions) == shared
    for documents in collisions.values():
        assert documents == [first.document, second.document]


def test_a_rejected_entry_does_not_count_as_a_collision() -> None:
    first = propose_document("n500.md", CODE_TEXT.encode())
    second = propose_document("n500-copy.md", CODE_TEXT.replace("R60", "R90").encode())
    rejected = second.entries.order_by("position").first()
    update_entries(Entry.objects.filter(pk=rejected.pk), state=Entry.State.REJECTED)

    collisions = path_collisions()

    assert rejected.path not in collisions
    assert len(collisions) == first.entries.count() - 1


@pytest.mark.parametrize(
    ("field", "limit"), [("proposed_by", 200), ("extractor_id", 100), ("extractor_version", 50)]
)
def test_a_plan_whose_header_is_too_long_to_store_is_refused_naming_the_field(
    document, field: str, limit: int
) -> None:
    before = row_counts()

    with pytest.raises(ImportRefused) as refused:
        import_plan(document, _payload_with(**{field: "x" * (limit + 1)}))

    assert f"{field!r}" in str(refused.value)
    assert f"longer than {limit} characters" in str(refused.value)
    assert row_counts() == before


def test_a_plan_with_a_nul_character_is_refused_on_every_database(document) -> None:
    before = row_counts()
    text = _payload_with(entries__1__title="Ti\u0000tle")

    with pytest.raises(ImportRefused, match="NUL"):
        import_plan(document, text)

    assert row_counts() == before
