"""The record of changes a finalization keeps, and its JSON form for storage."""

from __future__ import annotations

import dataclasses
import json

import pytest

from grounding.citations import (
    Finalization,
    InvalidFinalizationRecordError,
    PhantomCitation,
    SyntaxRewrite,
    finalize,
)
from tests.helpers import make_source


def sources(count: int) -> list[dict]:
    return [make_source(f"Survey {n}", 1990 + n) for n in range(1, count + 1)]


# --- Number map --------------------------------------------------------------------


def test_the_number_map_takes_each_original_number_to_the_number_shown() -> None:
    result = finalize("Lynx [4] hunt hares [2] and [4] again [7].", sources(4))
    assert result.number_map == {4: 1, 2: 2}


def test_renumbered_holds_only_the_numbers_that_moved() -> None:
    result = finalize("Lynx [1] hunt hares [3] in snow [2].", sources(3))
    assert result.renumbered == {3: 2, 2: 3}


# --- Dropped phantoms --------------------------------------------------------------


def test_each_dropped_phantom_is_recorded_where_it_stands_in_the_raw_answer() -> None:
    answer = "Voles [5] burrow [1] under snow [0] in winter [5]."
    result = finalize(answer, sources(2))
    assert [d.number for d in result.dropped] == [5, 0, 5]
    for phantom in result.dropped:
        assert answer[phantom.position :].startswith(f"[{phantom.number}]")


def test_a_phantom_in_a_group_or_escaped_citation_points_at_the_whole_citation() -> None:
    answer = "Voles \\[9\\] burrow [1, 8]."
    result = finalize(answer, sources(1))
    assert result.dropped == (
        PhantomCitation(9, answer.index("\\[9")),
        PhantomCitation(8, answer.index("[1, 8]")),
    )


def test_positions_count_characters_not_bytes_after_non_ascii_text() -> None:
    answer = "Λύκοι και αρκούδες 🐻 [6]."
    (phantom,) = finalize(answer, sources(1)).dropped
    assert answer[phantom.position : phantom.position + 3] == "[6]"


def test_stale_numbers_in_the_models_reference_list_are_not_counted_as_dropped() -> None:
    result = finalize("Voles [1].\n\n### References\n\n[1] A\n\n[12] B", sources(1))
    assert result.dropped == ()


# --- Syntax rewrites ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "kind", "replacement"),
    [
        ("[2, 1]", "grouped", "[1][2]"),
        ("[2; 1]", "grouped", "[1][2]"),
        ("[1-2]", "range", "[1][2]"),
        ("[1, 2-3]", "range", "[1][2][3]"),
        ("\\[1\\]", "escaped", "[1]"),
        ("\\[1, 2\\]", "grouped", "[1][2]"),
    ],
)
def test_each_rewritten_citation_is_recorded_with_kind_original_and_replacement(
    written, kind, replacement
) -> None:
    answer = f"Moths navigate by moonlight {written}."
    result = finalize(answer, sources(3))
    assert result.rewrites == (SyntaxRewrite(kind, written, replacement, answer.index(written)),)


def test_a_rewrite_replacement_shows_the_new_numbers() -> None:
    answer = "Moths [3] navigate [1; 2]."
    (rewrite,) = finalize(answer, sources(3)).rewrites
    assert (rewrite.original, rewrite.replacement) == ("[1; 2]", "[2][3]")


def test_a_rewrite_whose_numbers_were_all_phantoms_has_an_empty_replacement() -> None:
    answer = "Moths [1] fly [6-7]."
    result = finalize(answer, sources(1))
    assert result.rewrites == (SyntaxRewrite("range", "[6-7]", "", answer.index("[6-7]")),)
    assert [d.number for d in result.dropped] == [6, 7]


def test_plain_citations_are_never_recorded_as_rewrites() -> None:
    assert finalize("Moths [2] fly [1][2].", sources(2)).rewrites == ()


# --- Backfills ---------------------------------------------------------------------


def test_a_backfill_names_the_paragraph_the_number_shown_and_an_excerpt() -> None:
    answer = "Moths fly [2].\n\n## Night\n\nThey are drawn to lamps at night.\n\nBats follow [1]."
    result = finalize(answer, sources(2))
    (backfill,) = result.backfills
    # The heading blocks the paragraph before; the raw [1] after it is shown as [2].
    assert (backfill.paragraph, backfill.number, backfill.excerpt) == (
        2,
        2,
        "They are drawn to lamps at night.",
    )
    shown = result.body.split("\n\n")[backfill.paragraph]
    assert shown.endswith(f"[{backfill.number}]")
    assert result.text[backfill.start : backfill.end] == f"[{backfill.number}]"


def test_a_long_paragraph_is_shortened_in_its_backfill_excerpt() -> None:
    long_claim = "Moths " + "circle the lamp again " * 10 + "until dawn."
    result = finalize(f"Moths fly [1].\n\n{long_claim}", sources(1))
    excerpt = result.backfills[0].excerpt
    assert len(excerpt) <= 80
    assert excerpt.endswith("\u2026")
    assert long_claim.startswith(excerpt[:-1])


# --- changed -----------------------------------------------------------------------


def test_an_answer_that_was_already_final_is_reported_unchanged() -> None:
    final = finalize("Moths [1] fly.", sources(1)).text
    assert finalize(final, sources(1)).changed is False
    assert finalize("Nothing cited here.", sources(1)).changed is False


@pytest.mark.parametrize(
    "answer",
    [
        "Moths [1] fly.",  # no reference list yet
        "Moths [2] fly [1].",  # renumbered
        "Moths [1][9] fly.",  # a phantom
        "Moths \\[1\\] fly.",  # escaped
    ],
)
def test_any_change_to_the_answer_is_reported(answer) -> None:
    assert finalize(answer, sources(2)).changed is True


def test_a_reference_list_that_differs_from_the_sources_counts_as_a_change() -> None:
    final = finalize("Moths [1] fly.", sources(1)).text
    stale = final.replace("Survey 1.", "Some other title.")
    result = finalize(stale, sources(1))
    assert result.changed is True
    assert result.text == final


# --- Storage -----------------------------------------------------------------------


def busy_finalization() -> Finalization:
    answer = (
        "Moths [3] fly \\[1\\] by moonlight [1-2, 9].\n\n"
        "They circle lamps until dawn for hours.\n\n"
        "### References\n\n[1] stale"
    )
    snippet_source = {"title": "Lamp study", "snippet": "Moths circle lamps.", "rank": 2}
    return finalize(answer, [*sources(2), snippet_source])


def test_a_finalization_survives_a_json_round_trip_unchanged() -> None:
    result = busy_finalization()
    stored = json.loads(json.dumps(result.to_dict()))
    assert Finalization.from_dict(stored) == result


def test_the_stored_number_map_has_string_keys_for_json() -> None:
    stored = busy_finalization().to_dict()
    assert stored["number_map"] == {"3": 1, "1": 2, "2": 3}


def test_every_kind_of_change_shows_up_in_the_stored_record() -> None:
    stored = busy_finalization().to_dict()
    assert {r["kind"] for r in stored["rewrites"]} == {"escaped", "range"}
    assert [d["number"] for d in stored["dropped"]] == [9]
    assert [b["paragraph"] for b in stored["backfills"]] == [1]
    assert stored["changed"] is True


def test_a_stored_record_without_an_entry_is_refused_naming_it() -> None:
    stored = busy_finalization().to_dict()
    del stored["dropped"]
    with pytest.raises(InvalidFinalizationRecordError, match="dropped"):
        Finalization.from_dict(stored)


def test_a_stored_record_with_an_unknown_rewrite_kind_is_refused() -> None:
    stored = busy_finalization().to_dict()
    stored["rewrites"][0]["kind"] = "sorted"
    with pytest.raises(InvalidFinalizationRecordError, match="'sorted'"):
        Finalization.from_dict(stored)


def test_a_stored_change_with_an_unexpected_field_is_refused() -> None:
    stored = busy_finalization().to_dict()
    stored["backfills"][0]["reason"] = "neighbour"
    with pytest.raises(InvalidFinalizationRecordError, match="reason"):
        Finalization.from_dict(stored)


def test_a_finalization_cannot_be_altered_once_made() -> None:
    result = busy_finalization()
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.text = "edited"  # type: ignore[misc]
