"""The text index behind `relocate` answers exactly what `str.find` does, on real text."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grounding import anchors
from grounding.anchors import _INDEXED_CHARS, _Occurrences, index, make_anchor, relocate

DATA = Path(__file__).parent / "data" / "revisions"
OLD = (DATA / "GFDL-1.2").read_text(encoding="utf-8")
NEW = (DATA / "GFDL-1.3").read_text(encoding="utf-8")
# Built once: the index is what is under test, not the cost of building it.
INDEXED = _Occurrences(NEW, naive_lookups=0)


def _needles(text: str, seed: int) -> list[str]:
    """Pieces of the text (lines that recur in a licence among them), and the same pieces
    with one character changed, so most are there and some are not."""
    rng = random.Random(seed)
    needles = []
    for _ in range(200):
        start = rng.randrange(len(text) - 400)
        piece = text[start : start + rng.randrange(_INDEXED_CHARS, 400)]
        needles.append(piece)
        at = rng.randrange(len(piece))
        needles.append(piece[:at] + ("x" if piece[at] != "x" else "y") + piece[at + 1 :])
    needles += [line for line in text.splitlines() if len(line) >= _INDEXED_CHARS]
    return needles


@pytest.mark.parametrize("limit", [1, 2, 256])
def test_the_index_finds_the_same_starts_as_a_scan(limit: int) -> None:
    for needle in _needles(NEW, seed=limit):
        assert INDEXED.starts(needle, limit) == INDEXED.scanned(needle, limit), needle


def test_the_index_finds_text_of_the_older_version_only_where_it_survived() -> None:
    found_somewhere = 0
    for needle in _needles(OLD, seed=7):
        hits = INDEXED.starts(needle, 256)
        assert hits == INDEXED.scanned(needle, 256), needle
        assert INDEXED.count(needle, 2) == min(2, len(hits))
        found_somewhere += bool(hits)
    assert found_somewhere  # the two versions share text, so the test compares real hits


@settings(max_examples=200, deadline=None)
@given(start=st.integers(0, len(NEW) - 1), length=st.integers(_INDEXED_CHARS, 600))
def test_any_piece_of_the_text_is_found_where_a_scan_finds_it(start: int, length: int) -> None:
    needle = NEW[start : start + length]
    assert INDEXED.starts(needle, 256) == INDEXED.scanned(needle, 256)


def test_a_needle_shorter_than_a_window_or_a_text_shorter_than_one_is_still_answered() -> None:
    short = _Occurrences("the GNU Free Documentation License", naive_lookups=0)
    assert short.starts("Free", 5) == [8]
    assert short.starts("the GNU Free Documentation License", 5) == [0]
    assert INDEXED.starts("License", 3) == INDEXED.scanned("License", 3)


def _plan(text: str, size: int) -> tuple[list, list]:
    starts = list(range(0, len(text) - size, size))
    return [make_anchor(text, start, start + size) for start in starts], starts


@pytest.mark.parametrize("size", [40, 300])
def test_a_plan_relocated_with_the_index_lands_where_it_lands_by_scanning(
    monkeypatch, size: int
) -> None:
    plan, hints = _plan(OLD, size)
    monkeypatch.setattr(index, "_NAIVE_LOOKUPS", 0)
    indexed = relocate(NEW, plan, hints)
    monkeypatch.setattr(index, "_NAIVE_LOOKUPS", 10**9)
    scanned = relocate(NEW, plan, hints)
    assert indexed == scanned
    # The comparison covers anchors placed and anchors left to a person alike.
    statuses = {location.status for location in scanned}
    assert statuses & anchors.PLACED and statuses - anchors.PLACED


def test_characters_beyond_ascii_are_indexed_as_the_characters_they_are() -> None:
    line = "Brannkonsept for tunnelen: røyk 🔥 og rømning, \ud800 ærlig talt — «sikkert». "
    text = line * 3 + NEW[:2000]
    occurrences = _Occurrences(text, naive_lookups=0)
    for start in range(0, len(line) - _INDEXED_CHARS - 5, 7):
        needle = text[start : start + _INDEXED_CHARS + 5]
        assert occurrences.starts(needle, 5) == occurrences.scanned(needle, 5)
        assert len(occurrences.starts(needle, 5)) >= 3
