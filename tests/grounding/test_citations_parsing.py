"""Reading an answer as written: its body, its reference list, and the checks on it."""

from __future__ import annotations

import pytest

from grounding.citations import (
    CitationDocument,
    Reference,
    body_and_references_match,
    has_escaped_brackets,
    has_grouped_or_range_syntax,
    has_phantom_citations,
    is_sequential_in_first_appearance_order,
    parse_document,
)

# --- Body and reference list -------------------------------------------------------


@pytest.mark.parametrize("answer", ["", None])
def test_an_empty_or_missing_answer_reads_as_an_empty_body_with_no_references(answer) -> None:
    document = parse_document(answer)
    assert (document.body, document.references) == ("", [])


def test_an_answer_without_a_references_heading_is_all_body() -> None:
    answer = "Sea ice thinned by a third over the decade [4]."
    assert parse_document(answer) == CitationDocument(answer, [])


@pytest.mark.parametrize(
    "heading",
    ["### References", "References", "## REFERENCES", "# references:", "**References**"],
)
def test_each_common_references_heading_splits_body_from_reference_list(heading) -> None:
    document = parse_document(f"Glaciers retreat [1].\n\n{heading}\n\n[1] Hock 2019")
    assert document.body == "Glaciers retreat [1]."
    assert document.references == [Reference(1, "Hock 2019")]


def test_a_references_heading_is_found_in_an_answer_with_windows_line_endings() -> None:
    document = parse_document("Glaciers retreat [1].\r\n\r\n### References\r\n\r\n[1] Hock\r\n")
    assert document.body == "Glaciers retreat [1]."
    assert document.references == [Reference(1, "Hock")]


def test_the_word_references_inside_a_sentence_is_not_a_heading() -> None:
    answer = "The references below [1] are old.\n\nSee the references list."
    assert parse_document(answer).references == []
    assert parse_document(answer).body == answer


def test_reference_entries_are_read_with_or_without_blank_lines_between_them() -> None:
    tight = parse_document("Body [1][2].\n\n### References\n[1] Alpha\n[2] Beta")
    loose = parse_document("Body [1][2].\n\n### References\n\n[1] Alpha\n\n[2] Beta")
    assert tight.references == loose.references == [Reference(1, "Alpha"), Reference(2, "Beta")]


def test_a_reference_entry_may_run_over_several_lines() -> None:
    document = parse_document("X [1][2].\n\nReferences\n\n[1] Long title\ncontinued\n\n[2] Short")
    assert [r.number for r in document.references] == [1, 2]
    assert "continued" in document.references[0].text


def test_the_last_references_heading_is_the_one_that_closes_the_body() -> None:
    answer = "Intro [1].\n\nReferences\n\nMiddle part [2].\n\n### References\n\n[1] A\n\n[2] B"
    document = parse_document(answer)
    assert "Middle part [2]." in document.body
    assert [r.number for r in document.references] == [1, 2]


def test_escaped_citation_brackets_read_as_plain_citations_in_body_and_list() -> None:
    document = parse_document("Dunes move \\[2\\]\\[1, 3\\].\n\n### References\n\n\\[2\\] Bagnold")
    assert document.body == "Dunes move [2][1, 3]."
    assert document.references == [Reference(2, "Bagnold")]


def test_backslashed_brackets_that_are_not_citations_are_left_as_written() -> None:
    # Display maths in markdown is written \[ ... \]; unescaping it would break it.
    answer = "The energy is \\[ E = mc^2 \\] as shown [1]."
    assert parse_document(answer).body == answer


# --- Which numbers a body cites ----------------------------------------------------


@pytest.mark.parametrize(
    ("body", "numbers"),
    [
        ("Ice [4].", [4]),
        ("Ice [2, 5].", [2, 5]),
        ("Ice [3; 1].", [3, 1]),
        ("Ice [2-4].", [2, 3, 4]),
        ("Ice [2\u20134].", [2, 3, 4]),
        ("Ice [6][2].", [6, 2]),
        ("Ice [1-2, 7].", [1, 2, 7]),
        ("Ice[1]. Snow,[2] melt.", [1, 2]),
        ("Ice \\[8\\].", [8]),
    ],
)
def test_cited_numbers_expand_groups_and_ranges_in_the_order_written(body, numbers) -> None:
    assert parse_document(body).cited_numbers() == numbers


def test_cited_numbers_keep_repeats_but_first_appearance_order_does_not() -> None:
    document = parse_document("Wind [5] then rain [2] then wind again [5] and fog [7].")
    assert document.cited_numbers() == [5, 2, 5, 7]
    assert document.first_appearance_order() == [5, 2, 7]


def test_first_appearance_order_within_a_source_count_leaves_out_phantoms() -> None:
    document = parse_document("Rain [4] [0] [2] [12] [4] [1]")
    assert document.first_appearance_order_within(4) == [4, 2, 1]
    assert document.first_appearance_order_within(0) == []


@pytest.mark.parametrize(
    "body",
    [
        "Values lie in [9-2].",  # backwards
        "Pixels take values in [0-255].",  # an interval, not 256 citations
        "A footnote [^1] and a tag [note].",
        "A trailing comma [1,] is not a list.",
        "An id [" + "7" * 20 + "] is no citation.",
        "Full-width digits [\uff11] are not ASCII.",
    ],
)
def test_brackets_that_are_not_a_citation_are_not_read_as_one(body) -> None:
    assert parse_document(body).cited_numbers() == []


# --- normalize ---------------------------------------------------------------------


def test_normalize_numbers_the_citations_by_first_appearance() -> None:
    result = parse_document("Tides [3]. Waves [1]. Currents [3][2].").normalize(3)
    assert result.body == "Tides [1]. Waves [2]. Currents [1][3]."


def test_normalize_drops_phantoms_together_with_the_space_before_them() -> None:
    result = parse_document("Tides rise [7]. Waves [1] break [9] often.").normalize(2)
    assert result.body == "Tides rise. Waves [1] break often."


def test_normalize_keeps_and_renumbers_only_references_still_cited() -> None:
    answer = "Ash [2] and soot [5].\n\n### References\n\n[1] Unused\n\n[2] Ash paper\n\n[5] Soot"
    result = parse_document(answer).normalize(3)
    assert result.references == [Reference(1, "Ash paper")]


@pytest.mark.parametrize("source_count", [0, -3])
def test_normalize_without_sources_leaves_no_citation_behind(source_count) -> None:
    result = parse_document("Rivers [1] flood [2, 3] yearly [1-2].").normalize(source_count)
    assert result.cited_numbers() == []
    assert result.body == "Rivers flood yearly."


def test_normalize_writes_a_block_with_repeats_once() -> None:
    assert parse_document("Moss [2, 2, 2].").normalize(2).body == "Moss [1]."


# --- Checks on an answer as written ------------------------------------------------


@pytest.mark.parametrize(
    ("body", "source_count", "phantom"),
    [
        ("Rain [2] [4]", 4, False),
        ("Rain [2] [5]", 4, True),
        ("Rain [0]", 4, True),
        ("Rain [1]", 0, True),
        ("Rain [2-6]", 5, True),
        ("No citations here", 0, False),
    ],
)
def test_has_phantom_citations_flags_numbers_outside_the_sources(
    body, source_count, phantom
) -> None:
    assert has_phantom_citations(body, source_count=source_count) is phantom


def test_a_stale_entry_in_the_reference_list_is_not_a_phantom_citation() -> None:
    assert not has_phantom_citations("Rain [1].\n\n### References\n\n[1] A\n\n[9] Z", 1)


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        ("Sun [1, 2]", True),
        ("Sun [1; 2]", True),
        ("Sun [1-2]", True),
        ("Sun [1\u20132]", True),
        ("Sun [1][2]", False),
        ("Sun [1] and [2]", False),
    ],
)
def test_has_grouped_or_range_syntax_flags_anything_but_single_numbers(body, flagged) -> None:
    assert has_grouped_or_range_syntax(body) is flagged


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("Sun \\[1\\]", True),
        ("Sun \\[1, 2\\]", True),
        ("Sun [1]", False),
        ("Maths \\[ x + y \\] uncited", False),
    ],
)
def test_has_escaped_brackets_flags_escaped_citations_only(text, flagged) -> None:
    assert has_escaped_brackets(text) is flagged


@pytest.mark.parametrize(
    ("body", "sequential"),
    [
        ("A [1] B [2] C [3]", True),
        ("A [1] B [1] C [2] D [2] E [1]", True),
        ("A [2] B [1]", False),
        ("A [1] B [3]", False),
        ("No citations", True),
    ],
)
def test_sequential_means_first_appearances_count_up_from_one(body, sequential) -> None:
    assert is_sequential_in_first_appearance_order(body) is sequential


@pytest.mark.parametrize(
    ("listed", "match"),
    [
        ("[1] A\n\n[2] B", True),
        ("[1] A", False),
        ("[1] A\n\n[2] B\n\n[3] C", False),
        ("[1] A\n\n[2] B\n\n[2] B again", False),
    ],
)
def test_body_and_references_match_when_each_cited_number_is_listed_once(listed, match) -> None:
    answer = f"Dust [1] and pollen [2] [1].\n\n### References\n\n{listed}"
    assert body_and_references_match(answer) is match
