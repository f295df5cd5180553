"""Finalizing an answer: what the reader is shown after the citations are put right."""

from __future__ import annotations

import random
import re

import pytest

from grounding.citations import (
    apply_finalization,
    body_and_references_match,
    finalize,
    finalize_with_canonical,
    format_reference,
    has_escaped_brackets,
    has_grouped_or_range_syntax,
    has_phantom_citations,
    is_sequential_in_first_appearance_order,
)
from tests.helpers import make_source

SHOWN = re.compile(r"\[(\d+)\]")


def library(*titles: str) -> list[dict]:
    return [make_source(title, 2000 + n) for n, title in enumerate(titles)]


def shown_numbers(body: str) -> list[int]:
    return [int(n) for n in SHOWN.findall(body)]


def reference_for(result, number: int) -> str:
    """The title of the source the final answer lists as [number]."""
    return result.canonical_sources[number - 1]["title"]


MESSY_ANSWERS = [
    "Plain prose with no citation at all.",
    "Heat [3] then cold [1] then [3][2] again.",
    "Grouped [2, 9, 1] and a range [1-3] and [4; 2].",
    "Escaped \\[2\\]\\[1\\] and \\[3, 4\\] here.\n\n### References\n\n\\[1\\] stale",
    "[9] Opens with a phantom.\n\nA long enough uncited paragraph sits here.\n\nCited [2].",
    "Only phantoms [7] and [8].\n\n### References\n\n[7] Bogus\n\n[8] Bogus",
    "- a list item [2]\n- another [1]\n\n## Heading\n\nProse with three words [3].",
]


# --- Numbering ---------------------------------------------------------------------


def test_the_first_source_cited_is_shown_as_one_and_so_on() -> None:
    sources = library("Peat", "Moss", "Fern")
    result = finalize("Bogs store carbon [3]. Moss acidifies [1]. Ferns shade [2].", sources)
    assert result.body == "Bogs store carbon [1]. Moss acidifies [2]. Ferns shade [3]."
    assert [reference_for(result, n) for n in (1, 2, 3)] == ["Fern", "Peat", "Moss"]


def test_every_shown_number_still_points_at_the_source_the_model_cited() -> None:
    rng = random.Random(7)
    titles = [f"Study {letter}" for letter in "PQRSTUVW"]
    sources = library(*titles)
    cited = rng.sample(range(1, len(titles) + 1), k=6)
    answer = " ".join(f"Finding about {titles[n - 1]} [{n}]." for n in cited)
    result = finalize(answer, sources)
    for sentence in result.body.split(". "):
        title, number = re.fullmatch(r"Finding about (.+) \[(\d+)\]\.?", sentence).groups()
        assert reference_for(result, int(number)) == title


def test_a_source_cited_again_later_keeps_its_first_number() -> None:
    result = finalize("Salt [2]. Sand [1]. Salt again [2]. Sand again [1].", library("a", "b"))
    assert shown_numbers(result.body) == [1, 2, 1, 2]


def test_citations_standing_side_by_side_are_sorted_and_written_once() -> None:
    result = finalize("Erosion [2][1][2]. Uplift [3][1].", library("a", "b", "c"))
    assert result.body == "Erosion [1][2]. Uplift [2][3]."


def test_citations_with_words_between_them_are_not_reordered() -> None:
    result = finalize("Erosion [2] and then uplift [1].", library("a", "b"))
    assert result.body == "Erosion [1] and then uplift [2]."


def test_citations_spread_over_list_items_are_all_kept() -> None:
    answer = "Options:\n- drainage [2]\n- planting [3]\n- waiting [1]\n"
    result = finalize(answer, library("a", "b", "c"))
    assert shown_numbers(result.body) == [1, 2, 3]


# --- Syntax the model should not have used -----------------------------------------


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("[1, 2, 3]", "[1][2][3]"),
        ("[1; 3; 2]", "[1][2][3]"),
        ("[1-3]", "[1][2][3]"),
        ("[1\u20133]", "[1][2][3]"),
        ("\\[1\\]", "[1]"),
        ("\\[1\\]\\[2\\]", "[1][2]"),
        ("[1, 1, 2, 2]", "[1][2]"),
        ("[1-2, 3]", "[1][2][3]"),
    ],
)
def test_grouped_range_and_escaped_citations_become_plain_adjacent_ones(written, shown) -> None:
    result = finalize(f"Lichens grow slowly {written}.", library("a", "b", "c"))
    assert result.body == f"Lichens grow slowly {shown}."
    assert not has_escaped_brackets(result.text)
    assert not has_grouped_or_range_syntax(result.text)


def test_a_citation_next_to_code_is_renumbered_like_any_other() -> None:
    # Brackets inside inline code look exactly like citations; the answer keeps both.
    result = finalize("Call `read([2])` as cited [2].", library("a", "b"))
    assert result.body == "Call `read([1])` as cited [1]."


# --- Phantoms ----------------------------------------------------------------------


def test_phantom_citations_leave_neither_body_nor_reference_list() -> None:
    answer = "Coral bleaches [1][6]. Reefs recover [5].\n\n### References\n\n[5] Bogus\n\n[6] Bogus"
    result = finalize(answer, library("Coral", "Reef"))
    assert shown_numbers(result.body) == [1]
    assert [r.number for r in result.references] == [1]
    assert "Bogus" not in result.text


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Corals bleach [9]. Reefs recover.", "Corals bleach. Reefs recover."),
        ("Corals [9] bleach.", "Corals bleach."),
        ("Corals bleach [8] [9].", "Corals bleach."),
        ("Corals bleach [9], reefs recover.", "Corals bleach, reefs recover."),
        ("Corals bleach [9]\nReefs recover.", "Corals bleach\nReefs recover."),
        ("[9] Corals bleach.", "Corals bleach."),
        ("Intro.\n\n[9] Corals bleach.", "Intro.\n\nCorals bleach."),
        ("Corals[9] bleach.", "Corals bleach."),
    ],
)
def test_a_dropped_phantom_leaves_no_stray_space(answer, expected) -> None:
    assert finalize(answer, library("Coral")).body == expected


def test_a_phantom_in_a_group_is_dropped_and_the_rest_kept_in_order() -> None:
    result = finalize("Kelp forests [3, 40, 1, 41, 2].", library("a", "b", "c"))
    assert result.body == "Kelp forests [1][2][3]."
    assert [reference_for(result, n) for n in (1, 2, 3)] == ["c", "a", "b"]


def test_without_sources_every_citation_is_removed_and_nothing_is_listed() -> None:
    result = finalize("Kelp [1] grows [2, 3] fast.\n\n### References\n\n[1] stale", [])
    assert result.text == "Kelp grows fast."
    assert result.references == ()


# --- The answer as a whole ---------------------------------------------------------


def test_an_answer_without_citations_is_returned_as_it_came_without_references() -> None:
    answer = "Nothing here is cited, so nothing is listed."
    assert finalize(answer, library("a")).text == answer


def test_the_models_reference_list_is_replaced_by_one_built_from_the_sources() -> None:
    sources = library("Plankton", "Krill")
    answer = "Krill eat plankton [2] [1].\n\n### References\n\n[1] made up\n\n[2] also made up"
    result = finalize(answer, sources)
    expected = [format_reference(1, sources[1]), format_reference(2, sources[0])]
    assert result.text == "\n\n".join([result.body, "### References", *expected])


@pytest.mark.parametrize("answer", MESSY_ANSWERS)
def test_a_finalized_answer_passes_every_check(answer) -> None:
    result = finalize(answer, library("a", "b", "c", "d"))
    count = len(result.canonical_sources)
    assert not has_phantom_citations(result.text, count)
    assert not has_grouped_or_range_syntax(result.text)
    assert not has_escaped_brackets(result.text)
    assert is_sequential_in_first_appearance_order(result.text)
    assert body_and_references_match(result.text)


@pytest.mark.parametrize("answer", MESSY_ANSWERS)
def test_finalizing_a_finalized_answer_changes_nothing(answer) -> None:
    once = finalize(answer, library("a", "b", "c", "d"))
    twice = finalize(once.text, once.canonical_sources)
    assert twice.text == once.text
    assert twice.canonical_sources == once.canonical_sources
    assert not twice.changed


def test_an_answer_with_windows_line_endings_is_finalized_like_any_other() -> None:
    answer = "Frost [2].\r\n\r\nThaw follows in spring months.\r\n\r\n### References\r\n\r\n[2] x"
    result = finalize(answer, library("a", "b"))
    assert result.body == "Frost [1].\r\n\r\nThaw follows in spring months. [1]"
    assert result.references[0].text.startswith("b Author")


def test_unicode_text_and_source_fields_come_through_intact() -> None:
    sources = [
        {"title": "Étude sur les β-bloquants", "authors": ["Zoë Müller", "李 小龍"], "year": 2021},
        {"title": "Ωκεανός 🌊 survey", "venue": "Ἀκαδημία"},
    ]
    answer = "Ça marche [2] — très bien [1]. 海洋 [2]."
    result = finalize(answer, sources)
    assert result.body == "Ça marche [1] — très bien [2]. 海洋 [1]."
    assert result.references[0].text == "Ωκεανός 🌊 survey. Ἀκαδημία."
    assert result.references[1].text == "Zoë Müller, 李 小龍 (2021). Étude sur les β-bloquants."


# --- Canonical sources and the thin wrappers ----------------------------------------


def test_canonical_sources_are_the_cited_ones_in_the_order_shown() -> None:
    result = finalize("Owls [4] and hawks [2] and owls [4].", library("a", "b", "c", "d", "e"))
    assert [s["title"] for s in result.canonical_sources] == ["d", "b"]


def test_extra_keys_on_a_source_are_carried_through_untouched() -> None:
    source = {"title": "Owl calls", "snippet": "Tawny owls call at dusk.", "score": 0.93}
    result = finalize("Owls call [1].", [source])
    assert result.canonical_sources == (source,)


def test_changing_the_canonical_sources_leaves_the_callers_sources_alone() -> None:
    sources = library("Owl")
    _, canonical = finalize_with_canonical("Owls [1].", sources)
    canonical[0]["title"] = "Changed"
    assert sources[0]["title"] == "Owl"


def test_apply_finalization_and_finalize_with_canonical_agree_with_finalize() -> None:
    sources = library("a", "b", "c")
    answer = "Bats [3] echo [1, 2].\n\nThey hunt moths at night in summer."
    result = finalize(answer, sources)
    assert apply_finalization(answer, sources) == result.text
    assert finalize_with_canonical(answer, sources) == (
        result.text,
        list(result.canonical_sources),
    )


def test_finalize_with_canonical_gives_an_empty_list_when_nothing_is_cited() -> None:
    assert finalize_with_canonical("Bats [1].", []) == ("Bats.", [])
