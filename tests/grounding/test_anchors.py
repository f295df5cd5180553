"""Anchors: what they hold, and the five answers `locate` gives."""

from __future__ import annotations

import random

import pytest

from grounding.anchors import (
    AMBIGUOUS,
    CONTEXT_CHARS,
    EXACT,
    FUZZY,
    MIN_SCORE,
    MOVED,
    ORPHANED,
    Anchor,
    Location,
    locate,
    make_anchor,
    relocate,
)

VOCABULARY = (
    "bridge deck load beam tunnel drainage culvert asphalt layer contractor inspection "
    "design value fire exit wall slab column joint bolt weld concrete steel timber road "
    "lane traffic water frost depth gravel kerb barrier railing lighting signage report"
)


WORDS = VOCABULARY.split()


def prose(seed: int, paragraphs: int = 6) -> str:
    """Paragraphs of made-up but distinct sentences, the same for the same seed."""
    rng = random.Random(seed)
    out = []
    for _ in range(paragraphs):
        sentences = []
        for _ in range(rng.randint(3, 5)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(7, 14))]
            sentences.append(" ".join(words).capitalize() + ".")
        out.append(" ".join(sentences))
    return "\n\n".join(out) + "\n"


def span_of(text: str, quote: str) -> tuple[int, int]:
    start = text.index(quote)
    return start, start + len(quote)


TEXT = prose(1)
SENTENCE = TEXT.split(". ")[5] + "."  # a sentence in the middle of the first paragraphs


# --- make_anchor -------------------------------------------------------------------------------


def test_an_anchor_quotes_its_span_with_context_on_each_side() -> None:
    start, end = span_of(TEXT, SENTENCE)
    anchor = make_anchor(TEXT, start, end)
    assert anchor.quote == SENTENCE
    assert anchor.prefix == TEXT[start - CONTEXT_CHARS : start]
    assert anchor.suffix == TEXT[end : end + CONTEXT_CHARS]
    assert len(anchor.prefix) == len(anchor.suffix) == CONTEXT_CHARS


def test_an_anchor_at_the_start_of_the_text_has_only_the_context_there_is() -> None:
    assert make_anchor(TEXT, 0, 10).prefix == ""
    assert make_anchor(TEXT, 5, 10).prefix == TEXT[:5]


def test_an_anchor_at_the_end_of_the_text_has_an_empty_suffix() -> None:
    anchor = make_anchor(TEXT, len(TEXT) - 10, len(TEXT))
    assert anchor.suffix == ""
    assert anchor.quote == TEXT[-10:]


def test_an_empty_span_makes_an_anchor_with_an_empty_quote() -> None:
    anchor = make_anchor(TEXT, 100, 100)
    assert anchor.quote == ""
    assert anchor.prefix + anchor.suffix == TEXT[100 - CONTEXT_CHARS : 100 + CONTEXT_CHARS]


@pytest.mark.parametrize("span", [(-1, 3), (5, 4), (0, len(TEXT) + 1)])
def test_a_span_outside_the_text_is_refused(span: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match=rf"span \[{span[0]}, {span[1]}\)"):
        make_anchor(TEXT, *span)


def test_an_anchor_round_trips_through_its_dict() -> None:
    anchor = make_anchor(TEXT, *span_of(TEXT, SENTENCE))
    assert set(anchor.to_dict()) == {"quote", "prefix", "suffix"}
    assert Anchor.from_dict(anchor.to_dict()) == anchor


# --- the five statuses ---------------------------------------------------------------------------


def test_the_same_text_gives_exact_at_the_same_span() -> None:
    start, end = span_of(TEXT, SENTENCE)
    assert locate(TEXT, make_anchor(TEXT, start, end), start) == Location(start, end, EXACT, 1.0)


def test_a_prepended_paragraph_gives_moved_at_the_shifted_span() -> None:
    start, end = span_of(TEXT, SENTENCE)
    shifted = "A new paragraph in front.\n\n" + TEXT
    found = locate(shifted, make_anchor(TEXT, start, end), start)
    assert found.status == MOVED
    assert shifted[found.start : found.end] == SENTENCE
    assert found.score == 1.0


def test_without_a_hint_a_unique_quote_is_still_moved_not_exact() -> None:
    start, end = span_of(TEXT, SENTENCE)
    found = locate(TEXT, make_anchor(TEXT, start, end))
    assert (found.start, found.end, found.status) == (start, end, MOVED)


def test_a_word_changed_inside_the_quote_gives_fuzzy_with_the_edited_span() -> None:
    start, end = span_of(TEXT, SENTENCE)
    word = SENTENCE.split()[3]
    edited_sentence = SENTENCE.replace(f" {word} ", " replaced ", 1)
    edited = TEXT.replace(SENTENCE, edited_sentence)
    found = locate(edited, make_anchor(TEXT, start, end), start)
    assert found.status == FUZZY
    assert edited[found.start : found.end] == edited_sentence
    assert MIN_SCORE <= found.score < 1.0


def test_an_edit_in_the_context_alone_is_fuzzy_too() -> None:
    # The quote is intact, but its surroundings are not what the anchor remembers:
    # a person confirms it, however sure the search is.
    start, end = span_of(TEXT, SENTENCE)
    edited = TEXT[: start - 5] + "XYZXY" + TEXT[start:]
    found = locate(edited, make_anchor(TEXT, start, end), start)
    assert (found.start, found.end, found.status) == (start, end, FUZZY)
    assert found.score < 1.0


def test_a_repeated_passage_without_a_hint_is_ambiguous() -> None:
    passage = prose(2, paragraphs=1).strip()
    text = (
        prose(3, 2) + "\n" + passage + "\n\n" + prose(4, 2) + "\n" + passage + "\n\n" + prose(5, 1)
    )
    start, end = span_of(text, passage[40:120])
    found = locate(text, make_anchor(text, start, end))
    assert found.status == AMBIGUOUS


def test_a_deleted_sentence_is_orphaned() -> None:
    start, end = span_of(TEXT, SENTENCE)
    found = locate(TEXT.replace(SENTENCE, ""), make_anchor(TEXT, start, end), start)
    assert found == Location(-1, -1, ORPHANED, 0.0)


def test_a_deleted_paragraph_orphans_every_anchor_inside_it() -> None:
    paragraphs = TEXT.split("\n\n")
    doomed = paragraphs[2]
    anchors, hints = [], []
    for piece in (doomed[:30], doomed[40:200], doomed):
        start, end = span_of(TEXT, piece)
        anchors.append(make_anchor(TEXT, start, end))
        hints.append(start)
    shortened = TEXT.replace(doomed + "\n\n", "")
    assert [location.status for location in relocate(shortened, anchors, hints)] == [ORPHANED] * 3


def test_text_that_is_not_there_at_all_is_orphaned() -> None:
    anchor = Anchor(quote="nothing like this appears", prefix="anywhere ", suffix=" at all")
    assert locate(TEXT, anchor, 10).status == ORPHANED
    assert locate("", anchor, 0).status == ORPHANED


# --- edges -------------------------------------------------------------------------------------


def test_an_empty_quote_is_found_by_its_context() -> None:
    anchor = make_anchor(TEXT, 200, 200)
    assert locate(TEXT, anchor, 200) == Location(200, 200, EXACT, 1.0)


def test_a_shifted_empty_quote_is_moved_only_when_its_neighbours_moved_alike() -> None:
    # An empty quote occurs everywhere, so only its context says where it is; alone, that
    # is not enough to vouch for it, but the anchors around it shifting alike is.
    empty, before, after = (
        make_anchor(TEXT, 200, 200),
        make_anchor(TEXT, 100, 150),
        make_anchor(TEXT, 250, 300),
    )
    shifted = "Prepended.\n\n" + TEXT
    assert locate(shifted, empty, 200) == Location(212, 212, FUZZY, 1.0)
    found = relocate(shifted, [before, empty, after], [100, 200, 250])
    assert found[1] == Location(212, 212, MOVED, 1.0)


def test_an_anchor_at_the_very_start_moves_when_text_is_put_before_it() -> None:
    anchor = make_anchor(TEXT, 0, 40)
    shifted = "Title\n\n" + TEXT
    assert locate(shifted, anchor, 0) == Location(7, 47, MOVED, 1.0)


def test_an_anchor_at_the_very_end_stays_exact_when_text_is_added_after_it() -> None:
    anchor = make_anchor(TEXT, len(TEXT) - 40, len(TEXT))
    longer = TEXT + "An appendix.\n"
    assert locate(longer, anchor, len(TEXT) - 40).status == EXACT


def test_a_quote_of_the_whole_text_is_exact_in_the_same_text() -> None:
    anchor = make_anchor(TEXT, 0, len(TEXT))
    assert locate(TEXT, anchor, 0) == Location(0, len(TEXT), EXACT, 1.0)


def test_an_empty_text_holds_only_the_empty_anchor() -> None:
    empty = make_anchor("", 0, 0)
    assert locate("", empty, 0) == Location(0, 0, EXACT, 1.0)
    assert locate("", make_anchor("abc", 0, 3), 0).status == ORPHANED


def test_a_hint_outside_the_text_does_no_harm() -> None:
    start, end = span_of(TEXT, SENTENCE)
    anchor = make_anchor(TEXT, start, end)
    for hint in (-5, len(TEXT) + 100):
        assert locate(TEXT, anchor, hint) == Location(start, end, MOVED, 1.0)


# --- relocate ------------------------------------------------------------------------------------


def test_relocate_answers_each_anchor_in_order() -> None:
    spans = [span_of(TEXT, piece) for piece in (SENTENCE, TEXT[300:360], TEXT[10:20])]
    anchors = [make_anchor(TEXT, start, end) for start, end in spans]
    shifted = "Front matter.\n\n" + TEXT
    found = relocate(shifted, anchors, [start for start, _ in spans])
    assert [shifted[location.start : location.end] for location in found] == [
        anchor.quote for anchor in anchors
    ]
    assert {location.status for location in found} == {MOVED}


def test_relocate_refuses_a_hint_list_of_another_length() -> None:
    anchor = make_anchor(TEXT, 0, 10)
    with pytest.raises(ValueError, match="1 anchors but 2 hints"):
        relocate(TEXT, [anchor], [0, 5])


def test_relocating_nothing_gives_nothing() -> None:
    assert relocate(TEXT, [], []) == []
