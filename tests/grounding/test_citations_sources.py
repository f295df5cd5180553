"""Answers that list their sources as ``[n] URL`` lines at the foot of the text."""

from __future__ import annotations

import pytest

from grounding.citations import finalize
from grounding.sources import (
    MAX_LISTED_SOURCES,
    MAX_TEXT_CHARS,
    MAX_TITLE_CHARS,
    MAX_URL_CHARS,
    InvalidSourceListError,
    ListedSource,
    parse_source_list,
)

BODY = (
    "Sourdough rises because wild yeasts and lactobacilli ferment the flour [1]. "
    "The bacteria make lactic and acetic acid, which give the sour taste [2].\n\n"
    "A starter kept at room temperature needs feeding once a day [3]."
)
NCBI = "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC6221434/"


def listed(*lines: str, heading: str | None = "Sources:") -> str:
    head = [heading] if heading else []
    return "\n\n".join([BODY, "\n".join([*head, *lines])])


def test_an_answer_with_a_url_list_is_split_into_body_and_sources() -> None:
    text = listed(
        f"[1] {NCBI}",
        "[2] https://en.wikipedia.org/wiki/Sourdough",
        "[3] https://www.kingarthurbaking.com/recipes/sourdough-starter-recipe",
    )
    body, sources = parse_source_list(text)
    assert body == BODY
    assert [(s.number, s.url, s.title) for s in sources] == [
        (1, NCBI, None),
        (2, "https://en.wikipedia.org/wiki/Sourdough", None),
        (3, "https://www.kingarthurbaking.com/recipes/sourdough-starter-recipe", None),
    ]


@pytest.mark.parametrize(
    ("line", "title"),
    [
        (f"[1] Lactic acid bacteria in sourdough - {NCBI}", "Lactic acid bacteria in sourdough"),
        (f"[1] Lactic acid bacteria in sourdough: {NCBI}", "Lactic acid bacteria in sourdough"),
        (f"[1] Lactic acid bacteria in sourdough. {NCBI}.", "Lactic acid bacteria in sourdough"),
        (f"[1] Lactic acid bacteria (PMC) ({NCBI})", "Lactic acid bacteria (PMC)"),
        (f"[1] Lactic acid bacteria <{NCBI}>", "Lactic acid bacteria"),
        (f"[1] {NCBI} Lactic acid bacteria in sourdough", "Lactic acid bacteria in sourdough"),
        (f"[1] {NCBI} - Lactic acid bacteria", "Lactic acid bacteria"),
        (f'[1]: {NCBI} "Lactic acid bacteria"', "Lactic acid bacteria"),
        (f"[1]: <{NCBI}> 'Lactic acid bacteria'", "Lactic acid bacteria"),
        (f"[1]: {NCBI} (Lactic acid bacteria)", "Lactic acid bacteria"),
        (f"[1] [Lactic acid bacteria in sourdough]({NCBI})", "Lactic acid bacteria in sourdough"),
        (f"[^1]: [Lactic acid bacteria]({NCBI})", "Lactic acid bacteria"),
        (f"\\[1\\] **Lactic acid bacteria**: {NCBI}", "Lactic acid bacteria"),
        (f"[1] \u201cLactic acid bacteria\u201d \u2014 {NCBI}", "Lactic acid bacteria"),
        (f"[1] {NCBI}", None),
        (f"[1] <{NCBI}>", None),
    ],
)
def test_the_title_is_read_from_the_line_where_it_gives_one(line, title) -> None:
    body, (source,) = parse_source_list(f"Starters need flour [1].\n\n{line}")
    assert (source.url, source.title) == (NCBI, title)
    assert body == "Starters need flour [1]."


@pytest.mark.parametrize(
    "heading",
    ["Sources:", "Citations:", "References", "**Sources**", "## Sources", "Learn more:", None],
)
def test_the_lists_heading_goes_with_it(heading) -> None:
    body, sources = parse_source_list(
        listed(f"[1] {NCBI}", "[2] https://a.example", "[3] https://b.example", heading=heading)
    )
    assert body == BODY
    assert len(sources) == 3


def test_blank_lines_between_entries_and_after_the_list_are_allowed() -> None:
    text = (
        f"{BODY}\n\nCitations:\n\n[1] {NCBI}\n\n[2] https://a.example\n\n[3] https://b.example\n\n"
    )
    body, sources = parse_source_list(text)
    assert body == BODY
    assert [s.number for s in sources] == [1, 2, 3]


def test_crlf_line_ends_are_not_part_of_an_address_or_title() -> None:
    text = f"Flour ferments [1][2].\r\n\r\n[1] {NCBI}\r\n[2] Starter basics - https://a.example\r\n"
    body, sources = parse_source_list(text)
    assert body == "Flour ferments [1][2]."
    assert [(s.url, s.title) for s in sources] == [
        (NCBI, None),
        ("https://a.example", "Starter basics"),
    ]


def test_a_closing_parenthesis_that_belongs_to_the_address_is_kept() -> None:
    url = "https://en.wikipedia.org/wiki/Starter_(bread)"
    (source,) = parse_source_list(f"Bread [1].\n\n[1] {url}")[1]
    assert source.url == url
    (source,) = parse_source_list(f"Bread [1].\n\n[1] Starter ({url})")[1]
    assert (source.url, source.title) == (url, "Starter")


def test_an_answer_without_a_source_list_is_returned_whole() -> None:
    assert parse_source_list(BODY) == (BODY, ())
    assert parse_source_list("") == ("", ())
    assert parse_source_list(None) == ("", ())


def test_a_closing_paragraph_that_opens_with_a_citation_is_not_a_source_list() -> None:
    text = f"{BODY}\n\n[2] also notes that rye flour ferments faster."
    assert parse_source_list(text) == (text, ())


def test_a_reference_list_without_addresses_is_left_to_finalization() -> None:
    text = f"{BODY}\n\n### References\n\n[1] Gobbetti (2018)\n[2] Wikipedia\n[3] King Arthur"
    assert parse_source_list(text) == (text, ())


# --- Into finalization --------------------------------------------------------------


def test_listed_sources_finalize_with_their_titles_and_addresses() -> None:
    text = listed(
        "[1] Sourdough microbiology - https://a.example/micro",
        f"[2] {NCBI}",
        "[3] https://a.example/starter Keeping a starter",
    )
    body, sources = parse_source_list(text)
    result = finalize(body, [source.as_source() for source in sources])
    assert [r.line for r in result.references] == [
        "[1] Sourdough microbiology. https://a.example/micro",
        f"[2] ncbi.nlm.nih.gov/pmc/articles/PMC6221434. {NCBI}",
        "[3] Keeping a starter. https://a.example/starter",
    ]


def test_a_citation_of_a_number_the_list_lacks_is_dropped_as_a_phantom() -> None:
    body, sources = parse_source_list(f"Rye ferments fast [1]. Spelt too [4].\n\n[1] {NCBI}")
    result = finalize(body, [source.as_source() for source in sources])
    assert result.body == "Rye ferments fast [1]. Spelt too."
    assert [d.number for d in result.dropped] == [4]


def test_an_address_without_a_title_stands_in_for_one_shortened() -> None:
    source = ListedSource(1, "https://www.example.org/guides/starter/", None)
    assert source.as_source() == {
        "title": "example.org/guides/starter",
        "url": "https://www.example.org/guides/starter/",
    }


# --- Refused lists ------------------------------------------------------------------


def refusal(text: str) -> str:
    with pytest.raises(InvalidSourceListError) as error:
        parse_source_list(text)
    return str(error.value)


def line_of(text: str, fragment: str) -> int:
    """The 1-based number of the line where `fragment` first appears in `text`."""
    return text[: text.index(fragment)].count("\n") + 1


def test_an_entry_without_an_address_is_refused_naming_its_line() -> None:
    text = listed(f"[1] {NCBI}", "[2] The sourdough handbook", "[3] https://b.x")
    message = refusal(text)
    assert message.startswith(f"line {line_of(text, '[2] The')}: source [2] has no web address")
    assert "The sourdough handbook" in message


def test_an_entry_with_two_addresses_is_refused() -> None:
    text = listed(f"[1] {NCBI} https://mirror.example/pmc")
    assert refusal(text).startswith(f"line {line_of(text, '[1] h')}: source [1] has 2 web")


def test_a_gap_in_the_numbers_is_refused_naming_the_line() -> None:
    text = listed(f"[1] {NCBI}", "[3] https://b.example")
    expected = f"line {line_of(text, '[3] h')}: source [3] stands where [2] should"
    assert refusal(text).startswith(expected)


def test_a_list_that_does_not_start_at_one_is_refused() -> None:
    text = listed(f"[0] {NCBI}")
    expected = f"line {line_of(text, '[0]')}: source [0] stands where [1] should"
    assert refusal(text).startswith(expected)


def test_a_number_listed_twice_is_refused_naming_both_lines() -> None:
    text = listed(f"[1] {NCBI}", "[2] https://a.example", "[2] https://b.example")
    first, second = line_of(text, "[2] https://a"), line_of(text, "[2] https://b")
    assert refusal(text) == f"line {second}: source [2] is listed twice (first on line {first})"


def test_a_source_line_followed_by_prose_is_refused() -> None:
    text = f"{BODY}\n\nSources:\n[1] {NCBI}\n\nI hope this helps with your baking!"
    entry, prose = line_of(text, "[1] h"), line_of(text, "I hope")
    assert refusal(text).startswith(f"line {entry}: source [1] is listed before line {prose},")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("x" * (MAX_TEXT_CHARS + 1), "characters; at most"),
        (
            "Bread [1].\n\n"
            + "\n".join(f"[{n}] https://e.example/{n}" for n in range(1, MAX_LISTED_SOURCES + 2)),
            f"entries; at most {MAX_LISTED_SOURCES:,}",
        ),
        (f"Bread [1].\n\n[1] https://e.example/{'a' * MAX_URL_CHARS}", "line 3: source [1] has a"),
        (f"Bread [1].\n\n[1] {'Long title ' * MAX_TITLE_CHARS} {NCBI}", "a title of"),
    ],
)
def test_every_size_is_bounded(text, found) -> None:
    assert found in refusal(text)
