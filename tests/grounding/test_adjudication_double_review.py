"""A double-reviewed adjudication: each entry records its two reviewers (and a curator where
they differed), and replay refuses a double-reviewed plan with an entry one person settled."""

from __future__ import annotations

import copy

import pytest

from grounding.adjudication import Decision, adjudicate
from grounding.segmentation import PlanError, parse_segmentation_plan, slice_segments
from tests.grounding.test_adjudication import TEXT, WHEN, proposed_plan

PAIR = ("kari", "ola")


def decisions(*, reviewers=PAIR, curator_of_last: str = "") -> list[Decision]:
    made = [
        Decision("accept", "ola", WHEN, reviewers=reviewers),
        Decision("merge", "ola", WHEN, reviewers=reviewers),
        Decision("reject", "ola", WHEN, reviewers=reviewers),
        Decision(
            "accept", curator_of_last or "ola", WHEN, reviewers=reviewers, curator=curator_of_last
        ),
    ]
    return made


def test_each_entry_records_its_two_reviewers_and_the_curator_who_settled_it():
    payload = adjudicate(
        proposed_plan(), decisions(curator_of_last="sara"), TEXT, double_review=True
    )

    assert payload["double_review"] is True
    first, last = payload["entries"][0]["adjudication"], payload["entries"][-1]["adjudication"]
    assert first["reviewers"] == ["kari", "ola"] and "curator" not in first
    assert last["curator"] == "sara"
    assert payload["entries"][0]["adjudication"]["merged"][0]["adjudication"]["reviewers"] == [
        "kari",
        "ola",
    ]
    assert payload["rejected"][0]["adjudication"]["reviewers"] == ["kari", "ola"]


def test_a_double_reviewed_plan_replays_to_the_same_bodies_as_a_single_one():
    double = adjudicate(proposed_plan(), decisions(), TEXT, double_review=True)
    single = adjudicate(proposed_plan(), decisions(reviewers=()), TEXT)

    replayed = [body for _, body in slice_segments(TEXT, parse_segmentation_plan(double, TEXT))]
    assert replayed == [
        body for _, body in slice_segments(TEXT, parse_segmentation_plan(single, TEXT))
    ]
    assert "double_review" not in single


def test_replay_refuses_a_double_reviewed_plan_with_an_entry_one_person_settled():
    payload = adjudicate(proposed_plan(), decisions(), TEXT, double_review=True)
    tampered = copy.deepcopy(payload)
    del tampered["entries"][1]["adjudication"]["reviewers"]

    with pytest.raises(PlanError, match="one person settled this entry") as refused:
        parse_segmentation_plan(tampered, TEXT)
    assert "entry #2" in str(refused.value)


def test_replay_refuses_a_rejection_one_person_settled_in_a_double_reviewed_plan():
    payload = adjudicate(proposed_plan(), decisions(), TEXT, double_review=True)
    del payload["rejected"][0]["adjudication"]["reviewers"]

    with pytest.raises(PlanError, match="rejected record #1"):
        parse_segmentation_plan(payload, TEXT)


def test_the_same_reviewer_twice_is_refused():
    payload = adjudicate(proposed_plan(), decisions(), TEXT, double_review=True)
    payload["entries"][0]["adjudication"]["reviewers"] = ["ola", "ola"]

    with pytest.raises(PlanError, match="two different reviewers"):
        parse_segmentation_plan(payload, TEXT)


def test_a_curator_who_was_one_of_the_reviewers_is_refused():
    payload = adjudicate(proposed_plan(), decisions(), TEXT, double_review=True)
    payload["entries"][0]["adjudication"]["curator"] = "kari"

    with pytest.raises(PlanError, match="not one of the two reviewers"):
        parse_segmentation_plan(payload, TEXT)


def test_double_review_must_be_true_when_given():
    payload = adjudicate(proposed_plan(), decisions(), TEXT, double_review=True)
    payload["double_review"] = "yes"

    with pytest.raises(PlanError, match="must be true when given"):
        parse_segmentation_plan(payload, TEXT)
