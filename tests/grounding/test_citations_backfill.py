"""Backfill: an uncited paragraph of claims borrows the citation of a cited neighbour."""

from __future__ import annotations

import pytest

from grounding.citations import finalize
from tests.helpers import make_source

CLAIM = "Beavers raise the water table around their dams"


def sources(count: int = 3) -> list[dict]:
    return [make_source(f"Source {n}", 2010 + n) for n in range(1, count + 1)]


def paragraphs(*blocks: str) -> str:
    return "\n\n".join(blocks)


def final_paragraphs(answer: str) -> list[str]:
    return finalize(answer, sources()).body.split("\n\n")


def test_an_uncited_paragraph_between_cited_ones_gets_the_nearest_citation() -> None:
    shown = final_paragraphs(paragraphs("Dams slow rivers [1].", f"{CLAIM}.", "Fish adapt [2]."))
    assert shown[1] == f"{CLAIM}. [1]"


def test_an_opening_paragraph_borrows_the_first_citation_that_follows() -> None:
    shown = final_paragraphs(paragraphs(f"{CLAIM}.", "Ponds form behind them [2] [1]."))
    assert shown[0] == f"{CLAIM}. [1]"


def test_a_closing_paragraph_borrows_the_last_citation_before_it() -> None:
    shown = final_paragraphs(paragraphs("Ponds form [1] and silt settles [2].", f"{CLAIM}."))
    assert shown[1] == f"{CLAIM}. [2]"


def test_a_run_of_uncited_paragraphs_is_shared_out_by_nearness() -> None:
    answer = paragraphs(
        "Dams slow rivers [1].",
        f"{CLAIM} in spring.",
        f"{CLAIM} in summer.",
        f"{CLAIM} in autumn.",
        "Fish adapt [2].",
    )
    shown = final_paragraphs(answer)
    # The middle one is as near to either side; the earlier citation wins the tie.
    assert [p[-3:] for p in shown[1:4]] == ["[1]", "[1]", "[2]"]


@pytest.mark.parametrize(
    "block",
    [
        "Too short.",
        "## A heading that is long enough to count as words",
        "- a list item that is long enough to count as words",
        "1. a numbered item that is long enough to count as words",
        "| a table | row that is long enough |",
        "The three options worth weighing here are these:",
        "---",
    ],
)
def test_blocks_that_make_no_claim_are_not_backfilled(block) -> None:
    answer = paragraphs("Dams slow rivers [1].", block, "Fish adapt [2].")
    result = finalize(answer, sources())
    assert result.backfills == ()
    assert block in result.body.split("\n\n")


def test_a_heading_keeps_a_citation_from_spreading_into_the_next_section() -> None:
    answer = paragraphs("Dams slow rivers [1].", "## Winter", f"{CLAIM}.", "## Summer")
    assert final_paragraphs(answer)[2] == f"{CLAIM}."


def test_prose_inside_a_fenced_code_block_is_never_backfilled() -> None:
    # The index [1] reads as a citation, so the middle part has a "cited" neighbour; it
    # has no fence line of its own, and only the open fence above marks it as code.
    code = "```\nsteps = plan[1]\n\nresult = run(setup, steps=10)\n\nprint(result)\n```"
    answer = paragraphs("Dams slow rivers [1].", code, "Fish adapt [2].")
    assert code in finalize(answer, sources()).body


def test_nothing_is_backfilled_when_no_paragraph_is_cited() -> None:
    answer = paragraphs(f"{CLAIM}.", f"{CLAIM} again.")
    result = finalize(answer, sources())
    assert (result.body, result.backfills) == (answer, ())


def test_a_paragraph_whose_only_citation_was_a_phantom_is_backfilled() -> None:
    answer = paragraphs("Dams slow rivers [1].", f"{CLAIM} [9].")
    assert final_paragraphs(answer)[1] == f"{CLAIM}. [1]"


def test_a_backfilled_answer_is_not_backfilled_again() -> None:
    answer = paragraphs(f"{CLAIM}.", "Ponds form [3].", f"{CLAIM} too.", f"{CLAIM} as well.")
    once = finalize(answer, sources())
    twice = finalize(once.text, once.canonical_sources)
    assert len(once.backfills) == 3
    assert (twice.body, twice.backfills) == (once.body, ())
