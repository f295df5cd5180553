"""grounding.review_policy: the reproducible draw of items for a second opinion."""

from __future__ import annotations

import pytest

from grounding.review_policy import PolicyError, drawn_for_second_opinion

IDS = [f"c-{n}" for n in range(4000)]


def drawn(percent: int, seed: str = "s1") -> set[str]:
    return {i for i in IDS if drawn_for_second_opinion(i, seed=seed, percent=percent)}


def test_the_same_item_and_seed_are_always_drawn_the_same_way():
    assert drawn(30) == drawn(30)


def test_a_share_draws_about_that_share_of_items():
    assert 0.27 < len(drawn(30)) / len(IDS) < 0.33


def test_none_and_all_are_exact_at_zero_and_a_hundred_percent():
    assert drawn(0) == set() and drawn(100) == set(IDS)


def test_a_larger_share_keeps_every_item_a_smaller_one_drew():
    assert drawn(10) <= drawn(40)


def test_another_seed_draws_another_sample():
    assert drawn(30, "s1") != drawn(30, "s2")


@pytest.mark.parametrize("percent", [-1, 101, 2.5, True, "10"])
def test_a_share_outside_zero_to_a_hundred_whole_percent_is_refused(percent):
    with pytest.raises(PolicyError, match="0 to 100 percent"):
        drawn_for_second_opinion("c-1", seed="", percent=percent)


def test_an_empty_item_id_is_refused_by_name():
    with pytest.raises(PolicyError, match="item id"):
        drawn_for_second_opinion("", seed="", percent=50)


def test_a_seed_longer_than_its_bound_is_refused():
    with pytest.raises(PolicyError, match="seed"):
        drawn_for_second_opinion("c-1", seed="x" * 65, percent=50)
