"""The proposer's rules for real documents (issue Part 10): underlined and capitals headings,
the PDF outline, references, the preamble and clean titles, and the gates that keep page
furniture, contents lines and numbered prose from becoming headings."""

from __future__ import annotations

import pytest

from grounding.extract import extract_pages
from grounding.headings import page_furniture
from grounding.propose import (
    PROPOSED_MARKER,
    RULE_CAPITALS_HEADING,
    RULE_CLEAN_TITLE,
    RULE_HEADING,
    RULE_MAN_SUBSECTION,
    RULE_NUMBERED_HEADING,
    RULE_PDF_OUTLINE,
    RULE_PREAMBLE,
    RULE_REFERENCES,
    RULE_UNDERLINED_HEADING,
    NothingToPropose,
    clean_title,
    propose_plan,
)

PROSE = "The checker reads every module and reports each name it cannot resolve."
MORE = "Reports are written once per run, so a rerun never mixes two states."


def entries(text: str, name: str = "notes.txt") -> list[dict]:
    return propose_plan(name, text.encode("utf-8"))["entries"]


def titles(text: str, name: str = "notes.txt") -> list[str]:
    return [entry["title"] for entry in entries(text, name)]


def rules(entry: dict) -> list[str]:
    assert entry["derived"][0] == PROPOSED_MARKER
    return entry["derived"][1:]


def pdf_of(pages: list[list[str]], outline: list[tuple[int, str, int]] = ()) -> bytes:
    """A PDF whose pages hold these lines; outline: (page index, title, level from 0)."""
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.set_font("helvetica", size=11)
    for index, lines in enumerate(pages):
        pdf.add_page()
        for page, title, level in outline:
            if page == index:
                pdf.start_section(title, level=level)
        for line in lines:
            pdf.multi_cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


# --- underlined headings ----------------------------------------------------------------

PEP_LIKE = f"""PEP: 9999
Title: Style Guide for Checkers

Introduction
============

{PROSE}

1. Import the module first; the checker needs its names.
2. Run the checker on the package.

Code Lay-out
============

Indentation
-----------

{MORE}

Tabs or Spaces?
---------------

{PROSE}
"""


def test_underlined_titles_in_plain_text_are_headings_nested_by_their_underline() -> None:
    found = [entry for entry in entries(PEP_LIKE) if RULE_PREAMBLE not in rules(entry)]
    assert [entry["path"] for entry in found] == [
        "introduction",
        "code-lay-out/indentation",
        "code-lay-out/tabs-or-spaces",
    ]
    # "Code Lay-out" has no body of its own, so it opens its first section.
    assert found[1]["span"][0] == PEP_LIKE.index("Code Lay-out")
    assert all(rules(entry) == [RULE_UNDERLINED_HEADING] for entry in found)


def test_in_a_text_with_underlined_headings_numbered_list_items_stay_in_their_section() -> None:
    (introduction,) = [entry for entry in entries(PEP_LIKE) if entry["title"] == "Introduction"]
    start, end = introduction["span"]
    assert "2. Run the checker on the package." in PEP_LIKE[start:end]
    assert not any(title.startswith(("1.", "2.")) for title in titles(PEP_LIKE))


def test_an_overlined_title_is_a_level_of_its_own() -> None:
    text = f"=========\nUser Guide\n=========\n\n{PROSE}\n\nSetup\n=====\n\n{MORE}\n"
    found = entries(text)
    assert [entry["path"] for entry in found] == ["user-guide", "user-guide/setup"]
    assert found[0]["span"][0] == 0


@pytest.mark.parametrize(
    "text",
    [
        f"Introduction to the checker\n=====\n\n{PROSE}\n",  # underline far too short
        f"{PROSE}\nLonger paragraph line\n---------------------\n\n{MORE}\n",  # not after a blank
        f"    indented block\n    ==============\n\n{PROSE}\n",
        f"=====  =====\nName   Value\n=====  =====\n\n{PROSE}\n",  # a table border
    ],
)
def test_lines_over_rules_that_are_not_titles_are_not_headings(text: str) -> None:
    with pytest.raises(NothingToPropose):
        propose_plan("notes.txt", text.encode())


# --- capitals headings (man pages) -----------------------------------------------------

MAN_PAGE = f"""CHECK(1)                     User Commands                    CHECK(1)

NAME
       check - resolve every name in a package

DESCRIPTION
       {PROSE}

EXIT STATUS
       {MORE}
"""


def test_section_names_in_capitals_over_indented_text_are_headings() -> None:
    found = [entry for entry in entries(MAN_PAGE) if RULE_PREAMBLE not in rules(entry)]
    assert [entry["title"] for entry in found] == ["NAME", "DESCRIPTION", "EXIT STATUS"]
    assert all(rules(entry) == [RULE_CAPITALS_HEADING] for entry in found)


def test_a_man_page_subsection_is_a_heading_under_its_section_but_an_item_is_not() -> None:
    text = f"""NAME
       check - resolve names

OPTIONS
   Matching Control
       -e PATTERNS, --regexp=PATTERNS
              {PROSE}

   Output Control
       {MORE}

ENVIRONMENT
       CHECK_COLORS
              {PROSE}
"""
    found = entries(text)
    assert [entry["path"] for entry in found] == [
        "name",
        "options/matching-control",
        "options/output-control",
        "environment",
    ]
    assert rules(found[1]) == [RULE_MAN_SUBSECTION]
    # "OPTIONS" has no text of its own: it opens its first subsection.
    assert found[1]["span"][0] == text.index("OPTIONS")


def test_one_line_in_capitals_is_a_shout_not_a_section() -> None:
    with pytest.raises(NothingToPropose):
        propose_plan("notes.txt", f"{PROSE}\n\nWARNING\n    {MORE}\n".encode())


# --- numbered lines that are not headings --------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "3. Overview of proof of main theorem 11",  # a contents line
        "1 Introduction . . . . . . . 2",
        "1. Afek, Y., Gafni, E., and Morrison, A. Common2 extended",  # a reference
        "2. The DVIPDFMx project. http://project.example.org/dvipdfmx/",
        "161 Million Links",  # a number out of sequence
        "0 B + 0 B +",  # an equation
        "3 This requirement modifies the requirement in section 4 to",  # a wrapped sentence
        "2 Call the set-up function with the program name; the third",
        "1 Department of Computer Science, University of Oslo",  # an affiliation
        "12 Count = Count + 1;",  # a line of a numbered code listing
    ],
)
def test_numbered_lines_that_read_as_contents_prose_or_references_are_not_headings(
    line: str,
) -> None:
    text = f"1 Introduction\n{PROSE}\n{line}\n{MORE}\n2 Method\n{PROSE}\n"
    assert titles(text) == ["1 Introduction", "2 Method"]


def test_sections_whose_chapter_line_was_lost_still_follow_the_ones_before() -> None:
    numbers = ("1 Introduction", "2.1 Program", "2.2 Formats", "3.1 Modes", "3.2 Tracing")
    text = "".join(f"{title}\n{PROSE}\n" for title in (*numbers, "3.3 Registers"))
    assert titles(text) == [*numbers, "3.3 Registers"]


def test_a_contents_block_with_glued_page_numbers_proposes_nothing_from_its_lines() -> None:
    contents = "1.1 Availability18\n1.2 Introductory code23\n1.3 Options4\n"
    text = f"{contents}\n1.1 Availability\n{PROSE}\n1.2 Introductory code\n{MORE}\n"
    assert titles(text) == ["Preamble", "1.1 Availability", "1.2 Introductory code"]


@pytest.mark.parametrize("title", ["2 Python 3", "2 Chapter 12", "2 Support for UTF8"])
def test_a_title_that_ends_in_a_number_of_its_own_is_still_a_heading(title: str) -> None:
    text = f"1 Introduction\n{PROSE}\n{title}\n{MORE}\n"
    assert titles(text) == ["1 Introduction", title]


def test_a_licence_section_title_with_a_full_stop_over_a_blank_line_is_a_heading() -> None:
    text = f"0. Definitions.\n\n{PROSE}\n\n1. Source Code.\n\n{MORE}\n"
    assert titles(text) == ["0. Definitions.", "1. Source Code."]


# --- references --------------------------------------------------------------------------

PAPER = f"""1 Introduction
{PROSE}
2 Results
{MORE}
References
1. Afek Y and Gafni E. Common extended objects
2. Aspnes J. Randomized protocols
3 Appendix Proofs
{PROSE}
"""


def test_the_reference_list_is_one_entry_and_its_numbered_items_are_no_headings() -> None:
    found = entries(PAPER)
    assert [entry["title"] for entry in found] == [
        "1 Introduction",
        "2 Results",
        "References",
        "3 Appendix Proofs",
    ]
    references = found[2]
    assert rules(references) == [RULE_REFERENCES]
    start, end = references["span"]
    assert "2. Aspnes J." in PAPER[start:end]


def test_a_heading_that_goes_on_with_the_numbering_ends_the_reference_list() -> None:
    appendix = entries(PAPER)[-1]
    assert PAPER[appendix["span"][0] :].startswith("3 Appendix Proofs")
    assert rules(appendix) == [RULE_NUMBERED_HEADING]


def test_a_references_line_above_every_heading_starts_no_reference_list() -> None:
    text = f"Contents\nIntroduction\nReferences\n\n1 Introduction\n{PROSE}\n2 Method\n{MORE}\n"
    assert [title for title in titles(text) if title != "Preamble"][-2:] == [
        "1 Introduction",
        "2 Method",
    ]


# --- the preamble --------------------------------------------------------------------------


def test_text_before_the_first_heading_becomes_a_preamble_entry() -> None:
    text = f"A short note on the checker, before any heading.\n\n# Usage\n\n{PROSE}\n"
    preamble, usage = entries(text, "notes.md")
    assert (preamble["path"], preamble["title"], preamble["span"]) == (
        "preamble",
        "Preamble",
        [0, text.index("# Usage")],
    )
    assert rules(preamble) == [RULE_PREAMBLE]
    assert usage["span"][0] == preamble["span"][1]


@pytest.mark.parametrize(
    "before",
    ["\n\n", "---\ntitle: Checker notes\nauthor: someone\n---\n\n", '<a name="top"></a>\n\n'],
)
def test_blank_lines_front_matter_or_markup_alone_make_no_preamble(before: str) -> None:
    text = f"{before}# Usage\n\n{PROSE}\n"
    assert titles(text, "notes.md") == ["Usage"]


def test_a_preamble_path_does_not_take_a_heading_path() -> None:
    text = f"Some words before it all.\n\n# Preamble\n\n{PROSE}\n"
    assert [entry["path"] for entry in entries(text, "notes.md")] == ["preamble-2", "preamble"]


# --- clean titles --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ('<a name="install"></a>Install', "Install"),
        ("The `check` command", "The check command"),
        ("**Bold** move", "Bold move"),
        ("Tom &amp; Jerry", "Tom & Jerry"),
    ],
)
def test_a_markdown_title_loses_its_markup(raw: str, clean: str) -> None:
    (entry,) = entries(f"## {raw}\n\n{PROSE}\n", "notes.md")
    assert entry["title"] == clean
    assert rules(entry) == [RULE_HEADING, RULE_CLEAN_TITLE]


def test_a_title_that_needed_no_cleaning_names_no_cleaning_rule() -> None:
    (entry,) = entries(f"## Install\n\n{PROSE}\n", "notes.md")
    assert rules(entry) == [RULE_HEADING]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("2.7 Constant de\ufb01nitions", "2.7 Constant definitions"),
        ("3 Options\x0c", "3 Options"),
        ("1 Introduction \u2026 2", "1 Introduction"),
        ("Tabs\tor spaces", "Tabs or spaces"),
    ],
)
def test_a_title_has_no_control_characters_ligatures_or_trailing_page_number(
    raw: str, clean: str
) -> None:
    assert clean_title(raw) == clean


# --- PDFs: page furniture and the outline -------------------------------------------------


def page(*lines: str) -> list[str]:
    return list(lines)


def test_a_running_header_on_many_pages_is_furniture_and_never_a_heading() -> None:
    pages = [
        page("1 Introduction", PROSE, MORE),
        page("2 Sparse Embeddings of Norms", PROSE, MORE),
        page("2 Method", PROSE),
        page("4 Sparse Embeddings of Norms", MORE, PROSE),
        page("3 Results", PROSE),
        page("6 Sparse Embeddings of Norms", MORE),
    ]
    data = pdf_of(pages)
    assert "sparse embeddings of norms" in page_furniture(extract_pages("paper.pdf", data))
    found = propose_plan("paper.pdf", data)["entries"]
    assert [entry["title"] for entry in found] == ["1 Introduction", "2 Method", "3 Results"]


def test_a_line_on_fewer_pages_than_the_threshold_is_not_furniture() -> None:
    pages = [f"Draft notes\n{PROSE}", f"Draft notes\n{MORE}", PROSE]
    assert page_furniture(pages) == frozenset()
    assert "draft notes" in page_furniture([*pages, f"Draft notes\n{MORE}"])


def test_a_pdf_outline_that_matches_the_text_gives_the_headings() -> None:
    pages = [page("Introduction", PROSE), page("Method", MORE), page("Results", PROSE)]
    outline = [(0, "Introduction", 0), (1, "Method", 0), (1, "Sampling", 1), (2, "Results", 0)]
    found = propose_plan("paper.pdf", pdf_of(pages, outline))["entries"]
    # "Sampling" is a bookmark with no line of its own: it proposes nothing.
    assert [entry["path"] for entry in found] == ["introduction", "method", "results"]
    assert all(rules(entry) == [RULE_PDF_OUTLINE] for entry in found)


def test_a_number_glued_to_a_bookmarked_line_is_not_kept_in_its_title() -> None:
    pages = [
        page("1.1 Availability18", PROSE),
        page("1.2 Options23", MORE),
        page("References", "Knuth D. The TeXbook"),
    ]
    outline = [(0, "Availability", 0), (1, "Options", 0), (2, "References", 0)]
    found = propose_plan("manual.pdf", pdf_of(pages, outline))["entries"]
    assert [entry["title"] for entry in found] == ["1.1 Availability", "1.2 Options", "References"]
    assert [rules(entry) for entry in found][-1] == [RULE_REFERENCES]


def test_an_outline_that_does_not_match_the_text_is_ignored_for_the_numbered_lines() -> None:
    pages = [page("1 Introduction", PROSE), page("2 Method", MORE), page("3 Results", PROSE)]
    # Two of five bookmarks are lines of the text: too few to trust the rest.
    outline = [(0, "Front cover", 0), (0, "Introduction", 0), (1, "Method", 0)]
    outline += [(2, "Colophon", 0), (2, "Back cover", 0)]
    found = propose_plan("paper.pdf", pdf_of(pages, outline))["entries"]
    assert [entry["title"] for entry in found] == ["1 Introduction", "2 Method", "3 Results"]
    assert all(rules(entry) == [RULE_NUMBERED_HEADING] for entry in found)
