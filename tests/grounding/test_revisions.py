"""Carrying a plan onto a revised text, and the diffs that show what changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from grounding import revisions
from grounding.anchors import EXACT, MOVED, PLACED, make_anchor
from grounding.propose import propose_plan
from grounding.revisions import (
    DOUBTFUL,
    GONE,
    KEPT,
    NEW,
    RevisionError,
    candidate_places,
    carry_plan,
    paragraph_diff,
    paragraphs,
    word_diff,
    word_sides,
)
from grounding.segmentation import parse_segmentation_plan

DATA = Path(__file__).parent / "data" / "revisions"


def sides(changes) -> tuple[str, str]:
    """The word diff read back as the text before and the text after."""
    before = "".join(c.text for c in changes if c.kind in ("same", "removed"))
    after = "".join(c.text for c in changes if c.kind in ("same", "added"))
    return before, after


def section(number: int, paragraphs: int = 2) -> str:
    body = "".join(
        f"Paragraph {p} of section {number} sets out rule {number}.{p}: the owner keeps the "
        f"escape routes of building {number} clear, marked and lit at every hour.\n\n"
        for p in range(1, paragraphs + 1)
    )
    return f"## {number} Section {number}\n\n{body}"


def sections_of(text: str) -> list[tuple[int, int]]:
    starts = [i for i in range(len(text)) if text.startswith("## ", i)]
    return [(s, starts[n + 1] if n + 1 < len(starts) else len(text)) for n, s in enumerate(starts)]


def carried(old: str, new: str, proposals=()):
    spans = sections_of(old)
    return carry_plan(old, new, [make_anchor(old, *span) for span in spans], spans, proposals)


def proposals_for(name: str, data: bytes):
    return parse_segmentation_plan(propose_plan(name, data), data.decode()).entries


# --- the word diff ---------------------------------------------------------------------------


def test_a_changed_word_is_shown_removed_and_added_with_the_rest_kept() -> None:
    changes = word_diff("minst 90 minutter ved brann", "minst 60 minutter ved brann")

    assert [(c.kind, c.text) for c in changes if c.kind != "same"] == [
        ("removed", "90"),
        ("added", "60"),
    ]
    assert sides(changes) == ("minst 90 minutter ved brann", "minst 60 minutter ved brann")


def test_the_word_diff_reads_back_as_both_texts_white_space_and_punctuation_included() -> None:
    before = (DATA / "GFDL-1.2").read_text()[:3000]
    after = (DATA / "GFDL-1.3").read_text()[:3000]

    assert sides(word_diff(before, after)) == (before, after)


def test_texts_too_long_to_diff_by_word_are_shown_whole(monkeypatch) -> None:
    monkeypatch.setattr(revisions, "MAX_DIFF_WORDS", 5)
    changes = word_diff("one two three four five six", "one two three four five seven")

    assert [c.kind for c in changes] == ["removed", "added"]
    assert sides(changes) == ("one two three four five six", "one two three four five seven")


def test_identical_texts_have_no_removed_or_added_words() -> None:
    assert {c.kind for c in word_diff("same words here.", "same words here.")} == {"same"}


def test_two_texts_side_by_side_mark_on_each_side_only_the_words_it_alone_has() -> None:
    first, second = word_sides("Covers fire doors and exits.", "Covers fire exits only.")

    assert [c.text for c in first if c.kind == "differs"] == ["doors and "]
    assert [c.text for c in second if c.kind == "differs"] == [" only"]
    assert "".join(c.text for c in first) == "Covers fire doors and exits."
    assert "".join(c.text for c in second) == "Covers fire exits only."


def test_identical_texts_side_by_side_differ_nowhere() -> None:
    first, second = word_sides("same words.", "same words.")

    assert {c.kind for c in first + second} == {"same"}


def test_an_empty_side_has_no_runs_and_the_other_differs_whole() -> None:
    first, second = word_sides("", "A note.")

    assert first == () and [(c.kind, c.text) for c in second] == [("differs", "A note.")]


# --- the paragraph diff ----------------------------------------------------------------------


def test_the_paragraph_diff_names_a_changed_a_moved_a_removed_and_an_added_paragraph() -> None:
    old = section(1) + section(2) + section(3)
    new = section(2) + section(1).replace("clear, marked", "clear, signposted") + section(4)

    kinds = {
        (change.kind, (change.new_text or change.old_text)[:12])
        for change in paragraph_diff(old, new)
    }

    assert ("changed", "Paragraph 1 ") in kinds
    assert ("removed", "## 3 Section") in kinds
    assert ("added", "## 4 Section") in kinds
    assert {"moved", "moved away"} <= {kind for kind, _ in kinds}
    changed = [c for c in paragraph_diff(old, new) if c.kind == "changed"]
    assert all(sides(c.words) == (c.old_text, c.new_text) for c in changed)


def test_a_moved_paragraph_is_shown_where_it_stood_and_where_it_stands_with_both_spans() -> None:
    lone = "A paragraph that moves, word for word, from the start to the end of the text."
    old = f"{lone}\n\nFirst stays.\n\nSecond stays.\n\nThird stays."
    new = f"First stays.\n\nSecond stays.\n\nThird stays.\n\n{lone}"

    changes = paragraph_diff(old, new)
    away = next(c for c in changes if c.kind == "moved away")
    here = next(c for c in changes if c.kind == "moved")

    assert old[slice(*away.old_span)] == lone == new[slice(*away.new_span)]
    assert (here.old_span, here.new_span) == (away.old_span, away.new_span)


def test_the_paragraph_diff_lists_the_new_texts_paragraphs_in_order() -> None:
    old, new = (DATA / "GFDL-1.2").read_text(), (DATA / "GFDL-1.3").read_text()

    shown = [
        c.new_span for c in paragraph_diff(old, new) if c.kind not in ("removed", "moved away")
    ]

    assert shown == paragraphs(new)


def test_texts_with_too_many_paragraphs_are_refused_naming_the_bound(monkeypatch) -> None:
    monkeypatch.setattr(revisions, "MAX_DIFF_PARAGRAPHS", 3)

    with pytest.raises(RevisionError, match="at most 3 are compared"):
        paragraph_diff("a\n\nb\n\nc\n\nd", "a")


def test_every_place_a_quote_stands_is_a_candidate_up_to_the_limit() -> None:
    text = "ab ab ab ab"

    assert candidate_places(text, "ab") == (0, 3, 6, 9)
    assert candidate_places(text, "ab", limit=2) == (0, 3)
    assert candidate_places(text, "zz") == ()


# --- carrying ---------------------------------------------------------------------------------


def test_an_unchanged_text_keeps_every_entry_exactly_where_it_was() -> None:
    text = section(1) + section(2) + section(3)

    carrying = carried(text, text)

    assert [(e.fate, e.status, e.span) for e in carrying.entries] == [
        (KEPT, EXACT, span) for span in sections_of(text)
    ]
    assert carrying.gone == ()


def test_text_added_in_front_moves_every_entry_and_keeps_it() -> None:
    old = section(1) + section(2) + section(3)
    new = "A new preamble paragraph, written for the second revision.\n\n" + old

    carrying = carried(old, new)

    assert {(e.fate, e.status) for e in carrying.entries} == {(KEPT, MOVED)}
    assert [e.span for e in carrying.entries] == sections_of(new)


def test_a_rewritten_section_comes_back_doubtful_and_a_removed_one_is_gone() -> None:
    old = section(1) + section(2) + section(3, paragraphs=1) + section(4)
    rewritten = section(2).replace("clear, marked and lit", "free of furniture and lit")
    new = section(1) + rewritten + section(4)

    carrying = carried(old, new)
    fates = {e.source: e.fate for e in carrying.entries}

    assert fates[0] == KEPT
    assert fates[1] == DOUBTFUL
    assert 2 not in fates and carrying.gone == (2,)
    doubtful = next(e for e in carrying.entries if e.source == 1)
    assert new[slice(*doubtful.span)].startswith("## 2 Section 2")


def test_new_text_is_offered_with_the_proposers_entries_clipped_to_it() -> None:
    old = section(1) + section(2)
    new = section(1) + section(2) + section(3)

    carrying = carried(old, new, proposals_for("rules.md", new.encode()))
    offered = [e for e in carrying.entries if e.fate == NEW]

    assert [new[slice(*e.span)] for e in offered] == [section(3)]
    assert offered[0].entry.is_proposed
    assert carrying.uncovered == ()


def test_carrying_a_real_revision_keeps_only_entries_whose_text_is_word_for_word_the_same() -> None:
    old, new = (DATA / "GFDL-1.2").read_bytes(), (DATA / "GFDL-1.3").read_bytes()
    plan = parse_segmentation_plan(propose_plan("gfdl.txt", old), old.decode())

    carrying = carry_plan(
        old.decode(),
        new.decode(),
        [entry.anchor for entry in plan.entries],
        [entry.span for entry in plan.entries],
        proposals_for("gfdl.txt", new),
        [entry.path for entry in plan.entries],
    )
    new_text = new.decode()

    kept = [e for e in carrying.entries if e.fate == KEPT]
    assert kept, "some sections of the license did not change"
    for entry in kept:
        assert entry.status in PLACED
        assert new_text[slice(*entry.span)] == plan.entries[entry.source].anchor.quote
    # Every old entry is accounted for once: carried or gone.
    sources = [e.source for e in carrying.entries if e.source is not None]
    assert sorted(sources + list(carrying.gone)) == list(range(len(plan.entries)))
    # In order and without overlaps, so the carried plan is a plan.
    spans = [e.span for e in carrying.entries]
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
    assert any(e.fate == NEW and "RELICENSING" in e.entry.title for e in carrying.entries)


def test_one_span_is_needed_per_anchor() -> None:
    with pytest.raises(RevisionError, match="2 anchors but 1 spans"):
        carry_plan("a b", "a b", [make_anchor("a b", 0, 1)] * 2, [(0, 1)])


def test_gone_is_not_a_fate_an_entry_in_the_plan_can_have() -> None:
    old = section(1) + section(2, paragraphs=1)
    carrying = carried(old, section(1))

    assert GONE not in {e.fate for e in carrying.entries}
    assert carrying.gone == (1,)
