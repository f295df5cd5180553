"""Deciding between the places that could be an anchor's, by score and by position."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from grounding.anchors.anchor import (
    AMBIGUITY_MARGIN,
    AMBIGUOUS,
    EXACT,
    FUZZY,
    MOVED,
    ORPHANED,
    POSITION_TOLERANCE,
    Location,
)


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    score: float
    exact: bool  # quote and context identical, character for character (or `retypeset`)
    retypeset: bool = False  # the quote identical, its context only after folding typography
    weak: bool = False  # the quote identical, its context edited past the minimum score
    whole_lines: bool = False  # weak, but whole lines then and now, and the only such place


_ORPHAN = Location(-1, -1, ORPHANED, 0.0)


@dataclass(frozen=True)
class _Expected:
    """Where an anchor should be, as the anchors around it say."""

    exactly: tuple[int, ...]  # by the drift of placed (exact or moved) neighbours
    near: tuple[int, ...]  # by the drift of any settled neighbour, fuzzy ones included
    low: int | None  # between the settled neighbours' new starts, when their order held
    high: int | None
    hint: int | None = None  # the quote's old start
    room: tuple[int, int] | None = None  # between the settled neighbours, or a neighbour and an end


def _decide(
    places: list[_Candidate],
    expected: _Expected | None,
    hint: int | None,
    vouched: Callable[[_Candidate], bool],
) -> Location:
    # A weak place (the quote verbatim, its context rewritten) counts only where position
    # expects the anchor: elsewhere the same words may stand in another passage.
    places = [place for place in places if not place.weak or _expects(expected, place)]
    if not places:
        return _ORPHAN
    chosen, strong = (None, False) if expected is None else _by_position(places, expected)
    if not strong and len(places) == 1:
        chosen = places[0]
        strong = chosen.exact and vouched(chosen)
    if chosen is not None:
        if chosen.exact and strong:
            status = EXACT if chosen.start == hint and not chosen.retypeset else MOVED
            return Location(chosen.start, chosen.end, status, 1.0)
        return Location(chosen.start, chosen.end, FUZZY, chosen.score)
    best = max(places, key=lambda place: (place.score, -place.start))
    rivals = [place for place in places if place.score >= best.score - AMBIGUITY_MARGIN]
    # An exact place with a plausible rival is still only fuzzy: the rival may be the quote,
    # edited where it was, and this place a copy of it.
    status = FUZZY if len(rivals) == 1 else AMBIGUOUS
    return Location(best.start, best.end, status, best.score)


def _expects(expected: _Expected | None, place: _Candidate) -> bool:
    """Whether position puts the anchor here: near where drift or the hint says, or between its
    neighbours (or a neighbour and the end of the text, where it has only one)."""
    if place.whole_lines:
        return True
    if expected is None:
        return False
    near = (*expected.near, *(() if expected.hint is None else (expected.hint,)))
    if any(abs(place.start - at) <= POSITION_TOLERANCE for at in near):
        return True
    return expected.room is not None and expected.room[0] <= place.start <= expected.room[1]


def _by_position(places: list[_Candidate], expected: _Expected) -> tuple[_Candidate | None, bool]:
    """The place position singles out, and whether that is strong enough for exact or moved.

    Strong: it lies exactly where the drift of the placed anchors on both sides says; text that
    shifted with its neighbours, character for character. Weak: it lies near where the drift of
    any settled neighbour says, every rival much further off, or it is the only place between
    the settled neighbours; likely, but an edit there may have removed the anchor's own text.
    """
    # Strong only when the neighbours agree: where they disagree, an edit between them may have
    # taken the anchor's own text, and a copy can sit exactly where one of them points.
    if len(expected.exactly) == 1:
        for place in places:
            if place.start == expected.exactly[0]:
                return place, True

    def off(place: _Candidate) -> int:
        return min(abs(place.start - at) for at in expected.near)

    ranked = sorted(places, key=lambda place: (off(place), place.start))
    runner_up = off(ranked[1]) if len(ranked) > 1 else None
    if off(ranked[0]) <= POSITION_TOLERANCE and (
        runner_up is None or runner_up > 2 * POSITION_TOLERANCE
    ):
        return ranked[0], False
    if expected.low is not None and expected.high is not None:
        between = [place for place in places if expected.low <= place.start <= expected.high]
        if len(between) == 1:
            return between[0], False
    return None, False


def _same_place(one: _Candidate, other: _Candidate) -> bool:
    """Two places are one when they overlap by more than half of the shorter."""
    overlap = min(one.end, other.end) - max(one.start, other.start)
    shorter = min(one.end - one.start, other.end - other.start)
    if shorter == 0:
        return one.start == other.start
    return overlap * 2 > shorter
