"""Reference lines built from sources: what is there is shown, nothing is made up."""

from __future__ import annotations

import pytest

from grounding.citations import InvalidSourceError, finalize, format_reference, parse_document
from tests.helpers import make_source

TITLE = "Mycorrhizal networks in boreal forests"


def test_a_complete_source_reads_authors_year_title_venue_url_in_order() -> None:
    source = make_source("Soil fungi", 2018)
    authors = ", ".join(source["authors"])
    assert format_reference(4, source) == (
        f"[4] {authors} (2018). Soil fungi. {source['venue']}. {source['url']}"
    )


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        ({}, f"[1] {TITLE}."),
        ({"year": 2020}, f"[1] (2020). {TITLE}."),
        ({"authors": ["S. Simard"]}, f"[1] S. Simard. {TITLE}."),
        ({"venue": "Nature"}, f"[1] {TITLE}. Nature."),
        ({"url": "https://x.org/m"}, f"[1] {TITLE}. https://x.org/m"),
        (
            {"authors": ["S. Simard", "K. Beiler"], "url": "https://x.org/m"},
            f"[1] S. Simard, K. Beiler. {TITLE}. https://x.org/m",
        ),
    ],
)
def test_missing_parts_are_left_out_without_placeholders(extra, line) -> None:
    assert format_reference(1, {"title": TITLE, **extra}) == line


@pytest.mark.parametrize(
    "blank",
    [
        {"year": None, "venue": "", "url": "   ", "authors": []},
        {"authors": ["", "  ", None]},
        {"doi": None, "url": None},
    ],
)
def test_empty_or_blank_fields_count_as_missing(blank) -> None:
    assert format_reference(2, {"title": TITLE, **blank}) == f"[2] {TITLE}."


def test_a_title_that_already_ends_a_sentence_gets_no_extra_period() -> None:
    source = {"title": "Do trees talk?", "venue": "Forest Ecol."}
    assert format_reference(1, source) == "[1] Do trees talk? Forest Ecol."


def test_without_a_url_the_doi_is_linked_through_doi_org() -> None:
    source = {"title": TITLE, "doi": "10.1038/nature123"}
    assert format_reference(1, source).endswith(". https://doi.org/10.1038/nature123")


def test_a_url_is_preferred_to_the_doi() -> None:
    source = {"title": TITLE, "doi": "10.1038/nature123", "url": "https://x.org/m"}
    line = format_reference(1, source)
    assert line.endswith("https://x.org/m")
    assert "doi.org" not in line


def test_line_breaks_and_runs_of_space_in_a_field_are_collapsed() -> None:
    source = {"title": "Mycorrhizal\nnetworks   in\tforests", "authors": ["S.\n Simard"]}
    assert format_reference(1, source) == "[1] S. Simard. Mycorrhizal networks in forests."


def test_a_single_author_given_as_a_string_is_shown_as_written() -> None:
    assert format_reference(1, {"title": TITLE, "authors": "Simard and Beiler"}).startswith(
        "[1] Simard and Beiler. "
    )


def test_a_year_given_as_text_is_shown_as_given() -> None:
    assert format_reference(1, {"title": TITLE, "year": "2020a"}).startswith("[1] (2020a). ")


def test_a_formatted_reference_reads_back_with_the_same_number_and_text() -> None:
    line = format_reference(3, make_source("Root exudates", 2016))
    (reference,) = parse_document(f"Roots [3].\n\n### References\n\n{line}").references
    assert reference.number == 3
    assert reference.line == line


def test_a_source_without_a_title_is_refused_with_its_position_named() -> None:
    sources = [make_source("Spores", 2011), {"year": 2012, "url": "https://x.org/s"}]
    with pytest.raises(InvalidSourceError, match="source 2 has no title"):
        finalize("Spores travel far [1].", sources)


def test_a_source_that_is_not_a_dict_is_refused_naming_what_it_was() -> None:
    with pytest.raises(InvalidSourceError, match="source 1 must be a dict.*str"):
        finalize("Spores [1].", ["Spores, 2011"])


def test_authors_that_are_not_a_list_of_names_are_refused() -> None:
    with pytest.raises(InvalidSourceError, match="authors must be a list of names"):
        format_reference(1, {"title": TITLE, "authors": 7})


def test_a_source_error_is_a_value_error_for_callers_that_catch_those() -> None:
    with pytest.raises(ValueError):
        format_reference(1, {"title": "  "})
