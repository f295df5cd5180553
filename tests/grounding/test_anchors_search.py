"""Anchors in harder texts: lookalikes, long quotes, copies, typography, other alphabets."""

from __future__ import annotations

import random

from grounding.anchors import (
    AMBIGUOUS,
    EXACT,
    FUZZY,
    MIN_SCORE,
    MOVED,
    ORPHANED,
    PLACED,
    Location,
    locate,
    make_anchor,
    relocate,
)
from tests.grounding.test_anchors import prose, span_of


def anchored(text: str, quote: str) -> tuple:
    """The anchor of `quote`'s first occurrence in `text`, and its start as a hint."""
    start, end = span_of(text, quote)
    return make_anchor(text, start, end), start


def scatter_edits(text: str, every: int, seed: int = 7) -> str:
    """Replace one letter in each stretch of `every` characters."""
    rng = random.Random(seed)
    chars = list(text)
    for offset in range(every // 2, len(chars), every):
        at = offset + rng.randrange(-every // 4, every // 4)
        if chars[at].isalpha():
            chars[at] = "q" if chars[at] != "q" else "z"
    return "".join(chars)


# --- lookalike text is never placed ---------------------------------------------------------------

OPENING = prose(11, 2)
CLOSING = prose(12, 2)
CLAUSE = "The contractor shall notify the client in writing within 14 days of any deviation."
LOOKALIKE = "The contractor shall notify the engineer in writing within 21 days of any deviation."


def test_a_lookalike_of_a_deleted_sentence_is_never_exact_or_moved() -> None:
    # The Hypothesis client's failure: with no minimum score it settles on whatever looks most
    # like the quote. Here the quoted clause is gone and a near-copy stands elsewhere.
    old = OPENING + CLAUSE + "\n\n" + CLOSING + LOOKALIKE + "\n"
    anchor, hint = anchored(old, CLAUSE)
    new = old.replace(CLAUSE + "\n\n", "")
    assert locate(new, anchor, hint).status not in PLACED


def test_a_lookalike_that_differs_this_much_is_orphaned() -> None:
    old = OPENING + CLAUSE + "\n\n" + CLOSING
    anchor, hint = anchored(old, CLAUSE)
    distant = "A subcontractor must inform the owner by letter inside 30 days of each change."
    assert locate(old.replace(CLAUSE, distant), anchor, hint).status == ORPHANED


def test_the_same_words_in_another_context_are_not_the_anchor() -> None:
    # A short quote is only as good as its context: the same words among other words fall
    # below the minimum score, so they are not offered even as fuzzy.
    old = OPENING + "Use the design value for frost depth here.\n\n" + CLOSING
    anchor, hint = anchored(old, "design value for frost depth")
    new = old.replace("Use the design value for frost depth here.\n\n", "")
    new += "Elsewhere in the appendix a design value for frost depth is given in the table.\n"
    assert locate(new, anchor, hint).status == ORPHANED


def test_an_untouched_copy_does_not_win_over_the_edited_original() -> None:
    # The quote sits in a passage that appears twice with identical context. The original (at the
    # hint) loses one letter; the copy does not. The copy is exact text, but not the anchor.
    passage = prose(13, 1).strip()
    old = OPENING + passage + "\n\n" + prose(14, 3) + passage + "\n\n" + CLOSING
    quote = passage[60:140]
    anchor, hint = anchored(old, quote)
    new = old[: hint + 10] + old[hint + 11 :]
    found = locate(new, anchor, hint)
    assert found.status == FUZZY
    assert abs(found.start - hint) <= 1


# --- quotes longer than a bitap pattern ----------------------------------------------------------


def test_a_quote_longer_than_32_characters_is_told_apart_by_its_later_characters() -> None:
    # diff-match-patch's bitap sees 32 characters; two sentences that share them are one to it.
    shared = "The inspection of every bridge deck shall "
    first = shared + "take place in spring after the frost has gone."
    second = shared + "be documented with photographs of each joint and bearing."
    old = OPENING + first + " " + second + "\n\n" + CLOSING
    anchor, hint = anchored(old, second)
    edited_second = second.replace("photographs", "photos")
    new = old.replace(second, edited_second)
    found = locate(new, anchor, hint)
    assert found.status == FUZZY
    assert new[found.start : found.end] == edited_second


def test_a_long_quote_with_scattered_edits_is_found_whole() -> None:
    body = prose(15, 40)
    old = OPENING + body + CLOSING
    anchor, hint = anchored(old, body)
    new = OPENING + scatter_edits(body, every=60) + CLOSING
    found = locate(new, anchor, hint)
    assert found.status == FUZZY
    assert found.score >= MIN_SCORE
    assert (found.start, found.end) == (len(OPENING), len(OPENING) + len(body))


def test_a_long_quote_that_lost_a_paragraph_in_the_middle_is_fuzzy_and_whole() -> None:
    body = prose(30, 6)
    paragraphs = body.split("\n\n")
    old = OPENING + body + CLOSING
    anchor, hint = anchored(old, body)
    shorter = "\n\n".join(paragraphs[:3] + paragraphs[4:])
    new = OPENING + shorter + CLOSING
    found = locate(new, anchor, hint)
    assert (found.start, found.end, found.status) == (
        len(OPENING),
        len(OPENING) + len(shorter),
        FUZZY,
    )


def test_a_long_quote_with_every_fourteenth_letter_changed_is_still_found() -> None:
    body = prose(31, 10)
    old = OPENING + body + CLOSING
    anchor, hint = anchored(old, body)
    found = locate(OPENING + scatter_edits(body, every=14) + CLOSING, anchor, hint)
    assert (found.start, found.end, found.status) == (len(OPENING), len(OPENING) + len(body), FUZZY)


def test_a_long_quote_is_not_found_between_copies_of_its_opening_and_ending() -> None:
    # Both ends are boilerplate that recurs; only the middle says which stretch is the quote.
    opening = "This section is informative and the main text applies where they differ. "
    ending = " All dimensions are in millimetres unless otherwise stated."
    quote = opening + prose(32, 6).strip() + ending
    other = opening + prose(33, 6).strip() + ending
    old = OPENING + quote + "\n\n" + CLOSING + other + "\n"
    anchor, hint = anchored(old, quote)
    new = old.replace(quote + "\n\n", "")
    assert locate(new, anchor, hint).status == ORPHANED


def test_a_long_quote_whose_opening_was_rewritten_is_found_by_its_ending() -> None:
    body = prose(16, 20)
    old = OPENING + body + CLOSING
    anchor, hint = anchored(old, body)
    rewritten = "An entirely new opening sentence replaces the old one here. " + body[58:]
    new = OPENING + rewritten + CLOSING
    found = locate(new, anchor, hint)
    assert found.status == FUZZY
    assert found.end == len(OPENING) + len(rewritten)
    assert found.start <= len(OPENING) + 60


def test_a_long_quote_moved_elsewhere_whole_is_moved() -> None:
    moved = prose(17, 3).strip()
    old = OPENING + moved + "\n\n" + CLOSING
    anchor, hint = anchored(old, moved)
    new = OPENING + CLOSING + "\n" + moved + "\n"
    found = locate(new, anchor, hint)
    # Its context changed with the move, so it is fuzzy; but it is found, and whole.
    assert found.status == FUZZY
    assert new[found.start : found.end] == moved


# --- the hint and the neighbours decide between copies ------------------------------------------

PASSAGE = prose(18, 1).strip()
TWICE = OPENING + PASSAGE + "\n\n" + prose(19, 3) + PASSAGE + "\n\n" + CLOSING
QUOTE = PASSAGE[50:110]
FIRST = TWICE.index(QUOTE)
SECOND = TWICE.index(QUOTE, FIRST + 1)


def test_the_hint_picks_the_copy_at_the_old_place() -> None:
    anchor = make_anchor(TWICE, FIRST, FIRST + len(QUOTE))
    assert make_anchor(TWICE, SECOND, SECOND + len(QUOTE)) == anchor
    assert locate(TWICE, anchor, FIRST) == Location(FIRST, FIRST + len(QUOTE), EXACT, 1.0)
    assert locate(TWICE, anchor, SECOND) == Location(SECOND, SECOND + len(QUOTE), EXACT, 1.0)


def test_copies_that_nothing_tells_apart_are_ambiguous() -> None:
    anchor = make_anchor(TWICE, FIRST, FIRST + len(QUOTE))
    assert locate(TWICE, anchor).status == AMBIGUOUS
    shifted = "New first line.\n\n" + TWICE
    # A stale hint near neither copy is no better than none.
    assert locate(shifted, anchor, (FIRST + SECOND) // 2).status == AMBIGUOUS


def test_neighbours_that_shifted_alike_pick_the_copy() -> None:
    spans = [
        (FIRST - 80, FIRST - 10),
        (FIRST, FIRST + len(QUOTE)),
        (FIRST + len(QUOTE) + 40, FIRST + len(QUOTE) + 90),
        (SECOND, SECOND + len(QUOTE)),
    ]
    anchors = [make_anchor(TWICE, start, end) for start, end in spans]
    hints = [start for start, _ in spans]
    shifted = "New first line.\n\n" + TWICE
    found = relocate(shifted, anchors, hints)
    assert [location.status for location in found] == [MOVED] * 4
    assert [location.start for location in found] == [start + 17 for start in hints]


def test_a_stale_hint_alone_picks_no_copy_as_moved() -> None:
    anchor = make_anchor(TWICE, FIRST, FIRST + len(QUOTE))
    shifted = "New first line.\n\n" + TWICE
    found = locate(shifted, anchor, FIRST)
    assert found.status not in PLACED


def test_the_copy_of_a_deleted_passage_is_not_reported_moved() -> None:
    # Tile the old text with plan entries: together they show the passage was there twice.
    # Once the first copy is deleted, the second is the only exact place left, but the anchor
    # may never claim it as moved: that would put a reviewed segment on someone else's text.
    cuts = list(range(0, len(TWICE), 90)) + [len(TWICE)]
    spans = list(zip(cuts, cuts[1:], strict=False)) + [(FIRST, FIRST + len(QUOTE))]
    anchors = [make_anchor(TWICE, start, end) for start, end in spans]
    hints = [start for start, _ in spans]
    new = TWICE.replace(PASSAGE + "\n\n", "", 1)
    found = relocate(new, anchors, hints)
    assert found[-1].status not in PLACED
    second_copy = new.index(QUOTE)
    entries_on_second_copy = [
        location
        for location in found[:-1]
        if location.start <= second_copy < location.end and location.status in PLACED
    ]
    assert entries_on_second_copy, "the plan's own entries over the surviving copy still place"


def test_text_pieced_together_from_boilerplate_is_not_moved_on_its_own_word() -> None:
    # Three stock sentences in one order, twice; each also stands alone elsewhere. With the first
    # run deleted, the second is the only exact place left, and nothing in the text says it is
    # not the anchor's own run moved there. Text made of recurring pieces vouches for nothing.
    first = "This section is informative and does not set any requirements."
    second = "All dimensions are in millimetres unless otherwise stated."
    third = "The contractor shall document that every requirement is met."
    run = f"{first} {second} {third}\n\n"
    scattered = f"{prose(25, 1)}\n{first}\n\n{prose(26, 1)}\n{second} {prose(27, 1)}\n{third}\n\n"
    old = OPENING + run + scattered + run + CLOSING
    quote = first[-20:] + " " + second + " " + third[:20]
    anchor, hint = anchored(old, quote)
    found = locate(old.replace(run, "", 1), anchor, hint)
    assert found.status == FUZZY
    assert found.score == 1.0


def test_neighbours_that_disagree_on_the_shift_vouch_for_no_copy() -> None:
    # A paragraph twice in a row (and once more further on), the second deleted: seen from the
    # anchor after it, the first copy sits exactly where the second one was. Which of the two
    # was deleted, no text can say, so the anchor in the second is at best fuzzy.
    paragraph = prose(23, 1).strip()
    middle = prose(24, 3)
    old = OPENING + paragraph + "\n\n" + paragraph + "\n\n" + middle + paragraph + "\n\n" + CLOSING
    second = old.index(paragraph, len(OPENING) + 1)
    after = second + len(paragraph) + 10
    spans = [
        (len(OPENING) - 60, len(OPENING) - 5),
        (second + 60, second + 120),
        (after, after + 60),
    ]
    anchors = [make_anchor(old, start, end) for start, end in spans]
    new = old[:second] + old[second + len(paragraph) + 2 :]
    found = relocate(new, anchors, [start for start, _ in spans])
    assert found[0].status == EXACT and found[2].status == MOVED
    assert found[1].status not in PLACED


def test_a_quote_repeated_hundreds_of_times_is_exact_only_at_its_hint() -> None:
    text = "Table of contents\n" + "." * 2000 + "\nEnd\n"
    anchor = make_anchor(text, 500, 510)
    assert locate(text, anchor, 500) == Location(500, 510, EXACT, 1.0)
    assert locate(text, anchor).status == AMBIGUOUS
    assert locate(text, anchor, 5).status == AMBIGUOUS


# --- typography -----------------------------------------------------------------------------------


def test_curly_quotes_and_dashes_are_fuzzy_with_the_span_mapped_back() -> None:
    plain = 'The engineer said "check the joint" -- and the report agreed.'
    old = OPENING + plain + "\n\n" + CLOSING
    anchor, hint = anchored(old, plain)
    typeset = "The engineer said \u201ccheck the joint\u201d \u2014 and the report agreed."
    new = old.replace(plain, typeset)
    found = locate(new, anchor, hint)
    assert found.status == FUZZY
    assert new[found.start : found.end] == typeset
    assert found.score == 1.0, "typography alone should cost nothing in the score"


def test_reflowed_white_space_is_fuzzy_with_the_span_mapped_back() -> None:
    paragraph = prose(20, 1).strip()
    old = OPENING + paragraph + "\n\n" + CLOSING
    anchor, hint = anchored(old, paragraph)
    words = paragraph.split(" ")
    reflowed = "\n".join(" ".join(words[i : i + 6]) for i in range(0, len(words), 6))
    reflowed = reflowed.replace(". ", ".  ")
    new = old.replace(paragraph, reflowed).replace("\n\n", "\r\n\r\n")
    found = locate(new, anchor, hint)
    assert found.status == FUZZY
    assert new[found.start : found.end] == reflowed


def test_a_quote_that_starts_in_a_run_of_spaces_keeps_its_place() -> None:
    old = OPENING + "Gravel   layer thickness is 300 mm under every lane.\n\n" + CLOSING
    start = old.index("   layer") + 1
    end = old.index(" mm under")
    anchor = make_anchor(old, start, end)
    new = old.replace("Gravel   layer", "Gravel layer")
    found = locate(new, anchor, start)
    assert found.status == FUZZY
    assert new[found.start : found.end].strip() == "layer thickness is 300"


# --- any alphabet -------------------------------------------------------------------------------


def test_text_with_more_than_256_distinct_characters_is_searched_all_the_same() -> None:
    rng = random.Random(21)
    alphabet = [chr(code) for code in range(0x4E00, 0x4E00 + 600)]
    text = "".join(rng.choice(alphabet) for _ in range(6000))
    anchor = make_anchor(text, 3000, 3200)
    edited = text[:3100] + "\u3042" + text[3101:]
    found = locate(edited, anchor, 3000)
    assert (found.start, found.end, found.status) == (3000, 3200, FUZZY)


def test_relocation_is_deterministic() -> None:
    body = prose(22, 12)
    spans = [(start, start + 70) for start in range(0, len(body) - 70, 157)]
    anchors = [make_anchor(body, start, end) for start, end in spans]
    edited = scatter_edits(body, every=45)
    hints = [start for start, _ in spans]
    assert relocate(edited, anchors, hints) == relocate(edited, anchors, hints)
