"""Backfill leaves alone the paragraphs that claim nothing a source could support, and
puts the marker it adds right after the paragraph's last visible character."""

from __future__ import annotations

import pytest

from grounding.citations import added_citation_spans, finalize
from tests.helpers import make_source

SOURCES = [make_source(f"Clinical review {n}", 2018 + n) for n in range(1, 4)]
OPENING = "Loop diuretics such as furosemide act on the ascending limb of Henle's loop [1]."
CLOSING = "Thiazides act further along, on the distal convoluted tubule [2]."


def finalized_between(block: str):
    """`block` as finalized between two cited paragraphs, and the whole result."""
    result = finalize("\n\n".join([OPENING, block, CLOSING]), SOURCES)
    return result.body.split("\n\n")[1], result


@pytest.mark.parametrize(
    "block",
    [
        "Are you looking for more detail on how the two classes differ in potency?",
        "Loop diuretics are the stronger class. Would you like a table of typical doses?",
        "Which of these drugs is your patient taking at the moment?**",
        "Would you like the dosing for patients with **renal impairment**?",
        "患者は現在どの薬を服用していますか？",
    ],
)
def test_a_paragraph_ending_in_a_question_is_not_backfilled(block) -> None:
    shown, result = finalized_between(block)
    assert shown == block
    assert result.backfills == ()


@pytest.mark.parametrize(
    "block",
    [
        "I'm glad you are an expert in nephrology.",
        "I\u2019m glad you are interested in renal physiology.",
        "I hope this helps with your revision for the exam.",
        "Hope that answers your question about diuretics.",
        "Let me know if you have any other questions about these drugs.",
        "Please let me know if you need the references in another format.",
        "Feel free to ask about any other class of diuretic.",
        "If you have any further questions, I am happy to answer them.",
        "Thank you for asking such a detailed question.",
        "Hi there, and welcome to the pharmacology forum.",
        "Good luck with your studies and your practice exams.",
        "Both classes lower blood pressure. I hope this helps!",
    ],
)
def test_a_paragraph_closing_on_a_pleasantry_is_not_backfilled(block) -> None:
    shown, result = finalized_between(block)
    assert shown == block
    assert result.backfills == ()


@pytest.mark.parametrize(
    "block",
    [
        "$$\\Delta T_b = i K_b m$$",
        "$$\nGFR = \\frac{U \\times V}{P}\n$$",
        "\\[ C_{cr} = \\frac{(140 - age) \\times weight}{72 \\times S_{cr}} \\]",
        "The clearance follows from the urine and plasma values:\n$$C = U V / P$$",
    ],
)
def test_a_paragraph_ending_in_a_display_formula_is_not_backfilled(block) -> None:
    shown, result = finalized_between(block)
    assert shown == block
    assert result.backfills == ()


@pytest.mark.parametrize(
    "block",
    [
        "https://www.ncbi.nlm.nih.gov/books/NBK499921/",
        "<https://www.ncbi.nlm.nih.gov/books/NBK499921/>",
        "<https://www.ncbi.nlm.nih.gov/books/NBK499921/>.",
        "https://example.org/loop-diuretics\nhttps://example.org/thiazides-and-calcium",
    ],
)
def test_a_paragraph_of_only_links_is_not_backfilled(block) -> None:
    shown, result = finalized_between(block)
    assert shown == block
    assert result.backfills == ()


@pytest.mark.parametrize(
    "block",
    [
        # The claim is the last sentence: the marker reads as support for it.
        "Hello! Furosemide can cause ototoxicity at high intravenous doses.",
        "I'm glad you asked. Thiazides can raise serum calcium.",
        # Words that open a pleasantry elsewhere open a claim here.
        "Thanks to its short half-life, furosemide is often given twice daily.",
        "Hope of a cure was abandoned when the trial stopped early for harm.",
        # A question inside a sentence that ends as a statement.
        "Whether to add a thiazide is decided on the sodium level, not the dose.",
        # A formula inside the prose, not closing it.
        "The fractional excretion $$FE_{Na}$$ is below one percent in prerenal failure.",
        # A link inside a claim.
        "The guideline at https://example.org/kdigo recommends checking potassium.",
    ],
)
def test_a_claim_that_only_looks_like_a_skipped_kind_is_still_backfilled(block) -> None:
    shown, result = finalized_between(block)
    assert shown == f"{block} [1]"
    (added,) = added_citation_spans(result)
    assert result.text[added.start : added.end] == "[1]"


def test_a_three_word_paragraph_of_prose_is_still_backfilled() -> None:
    shown, _ = finalized_between("Potassium falls quickly.")
    assert shown == "Potassium falls quickly. [1]"


def test_a_skipped_paragraph_stops_a_citation_spreading_past_it() -> None:
    answer = "\n\n".join(
        [OPENING, "Would you like a comparison table?", "Both classes are cheap and widely used."]
    )
    result = finalize(answer, SOURCES)
    assert result.backfills == ()


def test_a_paragraph_whose_phantoms_are_dropped_from_a_question_is_not_backfilled() -> None:
    block = "Do you want the doses used in heart failure [7]?"
    shown, result = finalized_between(block)
    assert shown == "Do you want the doses used in heart failure?"
    assert result.backfills == ()
    assert [d.number for d in result.dropped] == [7]


# --- Where the marker goes ----------------------------------------------------------


@pytest.mark.parametrize("trailing", ["  ", "\t", " \t ", "\u00a0"])
def test_the_added_marker_follows_the_last_visible_character(trailing) -> None:
    block = "Both classes can cause hypokalaemia."
    shown, _ = finalized_between(block + trailing)
    assert shown == f"{block} [1]"


def test_the_added_marker_closes_the_last_line_of_a_paragraph_with_hard_breaks() -> None:
    block = "Spironolactone spares potassium.  \nIt blocks aldosterone in the collecting duct.  "
    shown, _ = finalized_between(block)
    assert shown == f"{block.rstrip()} [1]"


def test_a_crlf_answer_keeps_its_line_ends_when_a_marker_is_added() -> None:
    answer = "\r\n\r\n".join([OPENING, "Both classes can cause hypokalaemia.  ", CLOSING])
    result = finalize(answer, SOURCES)
    assert "Both classes can cause hypokalaemia. [1]\r\n\r\n" in result.body


def test_a_marker_placed_after_trailing_spaces_is_not_moved_by_a_second_pass() -> None:
    once = finalize("\n\n".join([OPENING, "Both classes can cause gout.   ", CLOSING]), SOURCES)
    twice = finalize(once.text, once.canonical_sources)
    assert (twice.text, twice.backfills) == (once.text, ())
