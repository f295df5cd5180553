"""Agreement figures against published worked examples, and their undefined cases."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from grounding import agreement
from grounding.agreement import (
    BOOTSTRAP_RESAMPLES,
    COHEN_KAPPA,
    FINAL,
    KRIPPENDORFF_ALPHA,
    MAX_ITEMS,
    AgreementError,
    agreement_report,
    cohen_kappa,
    curation,
    krippendorff_alpha_nominal,
    percent_agreement,
    wilson_interval,
)


def crossed(both_yes: int, a_only: int, b_only: int, both_no: int) -> tuple[list, list]:
    """Two reviewers' yes/no labels from the four cells of their 2x2 table."""
    labels_a = ["yes"] * (both_yes + a_only) + ["no"] * (b_only + both_no)
    labels_b = ["yes"] * both_yes + ["no"] * a_only + ["yes"] * b_only + ["no"] * both_no
    return labels_a, labels_b


def units_from_rows(rows: dict[str, list]) -> dict[int, dict]:
    """item -> {reviewer: label} from one row of labels per reviewer (None where missing)."""
    length = len(next(iter(rows.values())))
    return {item: {name: row[item] for name, row in rows.items()} for item in range(length)}


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: nominal data,
# four observers, twelve units, missing values; the published alpha is 0.743.
KRIPPENDORFF_C = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}
# The same paper, section A: binary data, two observers, ten units; the published alpha is 0.095.
KRIPPENDORFF_A = {
    "A": [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
    "B": [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
}


# --- Wilson intervals -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611),
     (1, 29, 0.0061, 0.1718)],
)  # fmt: skip
def test_wilson_intervals_match_newcombes_published_score_intervals(successes, n, low, high):
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Stat Med 17,
    # table I, method 3 (Wilson's score interval without continuity correction).
    share = wilson_interval(successes, n)
    assert share.share == pytest.approx(successes / n)
    assert (round(share.low, 4), round(share.high, 4)) == (low, high)


def test_a_share_of_nothing_counted_has_no_value_and_says_why():
    share = wilson_interval(0, 0)
    assert (share.share, share.low, share.high) == (None, None, None)
    assert "n is 0" in share.reason_if_undefined


def test_a_wider_confidence_gives_a_wider_wilson_interval():
    narrow, wide = wilson_interval(12, 14, 0.9), wilson_interval(12, 14, 0.99)
    assert wide.low < narrow.low < narrow.high < wide.high


@pytest.mark.parametrize(("successes", "n"), [(5, 4), (-1, 3), (1.5, 3), (True, 3)])
def test_a_wilson_interval_refuses_counts_that_cannot_be(successes, n):
    with pytest.raises(AgreementError, match="successes"):
        wilson_interval(successes, n)


def test_a_confidence_outside_zero_and_one_is_refused():
    with pytest.raises(AgreementError, match="confidence"):
        wilson_interval(3, 4, confidence=95.0)


# --- Cohen's kappa --------------------------------------------------------------------------


def test_kappa_of_the_fifty_applications_example_is_0_4():
    # Wikipedia, "Cohen's kappa", worked example: 20 both yes, 5 A-only yes, 10 B-only yes,
    # 15 both no: po = 0.7, pe = 0.5 x 0.6 + 0.5 x 0.4 = 0.5, so kappa = 0.2 / 0.5 = 0.4.
    kappa = cohen_kappa(*crossed(20, 5, 10, 15))
    assert kappa.measure == COHEN_KAPPA
    assert kappa.value == pytest.approx(0.4)
    assert kappa.n_items == 50
    assert kappa.low < kappa.value < kappa.high


@pytest.mark.parametrize(
    ("cells", "published"), [((45, 15, 25, 15), 0.1304), ((25, 35, 5, 35), 0.2593)]
)
def test_kappa_differs_for_the_same_percent_agreement_with_other_marginals(cells, published):
    # Wikipedia, "Cohen's kappa", "Same percentages but different numbers": both tables agree on
    # 60 of 100 items, yet kappa is 0.1304 and 0.2593.
    labels_a, labels_b = crossed(*cells)
    assert percent_agreement(labels_a, labels_b).value == pytest.approx(0.6)
    assert round(cohen_kappa(labels_a, labels_b).value, 4) == published


def test_kappa_of_krippendorffs_binary_example_is_computed_by_hand():
    # po = 6/10; A says 1 on 2 units, B on 4: pe = 0.2 x 0.4 + 0.8 x 0.6 = 0.56;
    # kappa = (0.6 - 0.56) / (1 - 0.56) = 1/11.
    kappa = cohen_kappa(KRIPPENDORFF_A["A"], KRIPPENDORFF_A["B"])
    assert kappa.value == pytest.approx(1 / 11)


def test_perfect_agreement_gives_kappa_one_with_its_interval_at_one():
    labels = ["accepted"] * 25 + ["rejected"] * 25
    kappa = cohen_kappa(labels, list(labels))
    assert (kappa.value, kappa.low, kappa.high) == (1.0, 1.0, 1.0)


def test_a_reviewer_who_gives_one_label_only_agrees_no_better_than_chance():
    kappa = cohen_kappa(["upheld"] * 10, ["upheld"] * 7 + ["overturned"] * 3)
    assert kappa.value == pytest.approx(0.0)


def test_kappa_is_undefined_when_both_reviewers_give_every_item_the_same_label():
    kappa = cohen_kappa(["accepted"] * 8, ["accepted"] * 8)
    assert (kappa.value, kappa.low, kappa.high) == (None, None, None)
    assert "one category" in kappa.reason_if_undefined
    assert "'accepted'" in kappa.reason_if_undefined


@pytest.mark.parametrize("n", [0, 1])
def test_kappa_needs_two_items(n):
    kappa = cohen_kappa(["a"] * n, ["b"] * n)
    assert kappa.value is None
    assert kappa.n_items == n
    assert f"got {n}" in kappa.reason_if_undefined


def test_kappa_on_three_items_gives_its_value_but_no_interval():
    # Many resamples of three items hold one label only, where kappa does not exist.
    kappa = cohen_kappa(["x", "y", "x"], ["x", "y", "y"])
    assert kappa.value == pytest.approx(0.4)
    assert (kappa.low, kappa.high) == (None, None)
    assert f"of {BOOTSTRAP_RESAMPLES} resamples" in kappa.reason_if_undefined


def test_a_few_undefined_resamples_are_left_out_of_the_interval_and_counted_in_its_note():
    kappa = cohen_kappa(KRIPPENDORFF_A["A"], KRIPPENDORFF_A["B"])
    assert kappa.low < kappa.value < kappa.high
    assert "left out" in kappa.note


def test_the_kappa_interval_is_the_same_twice_and_moves_with_the_seed():
    labels_a, labels_b = crossed(20, 5, 10, 15)
    first, again = cohen_kappa(labels_a, labels_b), cohen_kappa(labels_a, labels_b)
    other = cohen_kappa(labels_a, labels_b, seed=7)
    assert (first.low, first.high) == (again.low, again.high)
    assert (first.low, first.high) != (other.low, other.high)
    assert first.value == other.value


def test_the_kappa_interval_narrows_with_more_items_of_the_same_table():
    small = cohen_kappa(*crossed(20, 5, 10, 15))
    large = cohen_kappa(*crossed(80, 20, 40, 60))
    assert large.value == pytest.approx(small.value)
    assert large.high - large.low < small.high - small.low


def test_kappa_pairs_labels_by_position():
    # The same labels in another order for one reviewer only is another agreement.
    labels_a, labels_b = crossed(20, 5, 10, 15)
    assert cohen_kappa(labels_a, labels_b[::-1]).value != pytest.approx(0.4)


def test_kappa_refuses_label_lists_of_different_lengths():
    with pytest.raises(AgreementError, match="3 labels from one reviewer and 2"):
        cohen_kappa(["a", "b", "a"], ["a", "b"])


@pytest.mark.parametrize("bad", [None, "", 1.5, ("a",)])
def test_kappa_refuses_a_missing_or_odd_label_and_names_the_item(bad):
    with pytest.raises(AgreementError, match="item 1, second reviewer"):
        cohen_kappa(["a", "b"], ["a", bad])


def test_kappa_refuses_a_string_where_a_list_of_labels_belongs():
    with pytest.raises(AgreementError, match="labels_a is a list"):
        cohen_kappa("ab", ["a", "b"])


def test_kappa_refuses_more_items_than_it_compares():
    labels = ["a"] * (MAX_ITEMS + 1)
    with pytest.raises(AgreementError, match=f"at most {MAX_ITEMS}"):
        cohen_kappa(labels, labels)


@pytest.mark.parametrize("resamples", [0, 10_001, 2.5])
def test_kappa_refuses_an_unbounded_or_odd_number_of_resamples(resamples):
    with pytest.raises(AgreementError, match="resamples"):
        cohen_kappa(["a", "b"], ["a", "b"], resamples=resamples)


# --- percent agreement ----------------------------------------------------------------------


def test_percent_agreement_counts_the_items_labelled_alike_with_a_wilson_interval():
    agreement = percent_agreement(*crossed(20, 5, 10, 15))
    share = wilson_interval(35, 50)
    assert agreement.value == pytest.approx(0.7)
    assert (agreement.low, agreement.high) == (share.low, share.high)


def test_percent_agreement_on_no_items_has_no_value_and_says_why():
    agreement = percent_agreement([], [])
    assert agreement.value is None
    assert "no item" in agreement.reason_if_undefined


# --- Krippendorff's alpha -------------------------------------------------------------------


def test_alpha_of_krippendorffs_four_observer_example_is_0_743():
    alpha = krippendorff_alpha_nominal(units_from_rows(KRIPPENDORFF_C))
    assert alpha.measure == KRIPPENDORFF_ALPHA
    assert round(alpha.value, 3) == 0.743
    # Unit 12 has one value only (observer B's), so it is not pairable.
    assert alpha.n_items == 11
    assert alpha.low < alpha.value <= alpha.high


def test_alpha_of_krippendorffs_binary_example_is_0_095():
    # Section A: alpha = 1 - (n - 1) o01 / (n0 n1) = 1 - 19 x 4 / (14 x 6) = 0.095.
    alpha = krippendorff_alpha_nominal(units_from_rows(KRIPPENDORFF_A))
    assert alpha.value == pytest.approx(1 - 19 * 4 / (14 * 6))


def test_a_reviewer_absent_from_an_item_counts_as_a_missing_label():
    with_none = units_from_rows(KRIPPENDORFF_C)
    absent = {
        item: {name: label for name, label in labels.items() if label is not None}
        for item, labels in with_none.items()
    }
    assert krippendorff_alpha_nominal(absent) == krippendorff_alpha_nominal(with_none)


def test_the_bootstraps_alpha_of_each_resample_is_the_krippendorff_packages_alpha():
    # The bootstrap computes α for all resamples at once; each must be the package's α.
    counts, _ = agreement._value_counts(units_from_rows(KRIPPENDORFF_C))
    items = np.random.default_rng(3).integers(0, len(counts), size=(40, len(counts)))
    fast = agreement._nominal_alpha_of_resamples(counts, items)
    for resample, value in zip(items, fast, strict=True):
        expected = krippendorff.alpha(value_counts=counts[resample], level_of_measurement="nominal")
        assert value == pytest.approx(expected)


def test_alpha_reads_text_labels_as_nominal_categories():
    as_text = {
        item: {name: None if label is None else f"label {label}" for name, label in labels.items()}
        for item, labels in units_from_rows(KRIPPENDORFF_C).items()
    }
    assert krippendorff_alpha_nominal(as_text).value == pytest.approx(
        krippendorff_alpha_nominal(units_from_rows(KRIPPENDORFF_C)).value
    )


def test_alpha_is_undefined_without_an_item_labelled_twice():
    alpha = krippendorff_alpha_nominal({1: {"ann": "accepted"}, 2: {"bob": "rejected"}})
    assert (alpha.value, alpha.n_items) == (None, 0)
    assert "two reviewers" in alpha.reason_if_undefined


def test_alpha_is_undefined_when_every_label_is_the_same():
    units = {item: {"ann": "upheld", "bob": "upheld"} for item in range(6)}
    alpha = krippendorff_alpha_nominal(units)
    assert alpha.value is None
    assert "one category" in alpha.reason_if_undefined


def test_alpha_of_no_items_is_undefined():
    assert krippendorff_alpha_nominal({}).value is None


def test_the_alpha_interval_is_the_same_twice():
    units = units_from_rows(KRIPPENDORFF_C)
    first, again = krippendorff_alpha_nominal(units), krippendorff_alpha_nominal(units)
    assert (first.low, first.high) == (again.low, again.high)


def test_alpha_refuses_an_item_whose_labels_are_not_keyed_by_reviewer():
    with pytest.raises(AgreementError, match="item 'case-3' maps reviewers"):
        krippendorff_alpha_nominal({"case-3": ["upheld", "upheld"]})


def test_alpha_refuses_a_reviewer_without_a_name():
    with pytest.raises(AgreementError, match="a reviewer is named"):
        krippendorff_alpha_nominal({"case-3": {"": "upheld", "bob": "upheld"}})


# --- the report per pair and against the final decision -------------------------------------


def test_the_report_gives_kappa_for_every_pair_on_the_items_both_labelled():
    units = units_from_rows(KRIPPENDORFF_C)
    report = agreement_report(units)
    pairs = {(pair.reviewer_a, pair.reviewer_b): pair for pair in report.pairs}
    assert sorted(pairs) == [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"),
                             ("C", "D")]  # fmt: skip
    # A and C both labelled units 2 to 9 (A/C): 2/3 3/3 3/3 2/2 1/3 4/4 1/2 2/2, 5 alike.
    a_c = [(a, c) for a, c in zip(KRIPPENDORFF_C["A"], KRIPPENDORFF_C["C"], strict=True)
           if a is not None and c is not None]  # fmt: skip
    expected = cohen_kappa([a for a, _ in a_c], [c for _, c in a_c])
    assert pairs["A", "C"].kappa == expected
    assert pairs["A", "C"].percent.value == pytest.approx(5 / 8)
    assert report.alpha == krippendorff_alpha_nominal(units)


def test_the_report_sets_each_reviewer_against_the_final_decision():
    units = {item: {"ann": "accepted", "bob": "rejected" if item % 2 else "accepted"}
             for item in range(10)}  # fmt: skip
    final = {item: "rejected" if item % 2 else "accepted" for item in range(10)}
    report = agreement_report(units, final)
    against = {pair.reviewer_a: pair for pair in report.against_final}
    assert {pair.reviewer_b for pair in report.against_final} == {FINAL}
    assert against["bob"].kappa.value == pytest.approx(1.0)
    assert against["ann"].kappa.value == pytest.approx(0.0)
    assert against["ann"].percent.value == pytest.approx(0.5)


def test_the_report_refuses_a_final_decision_for_an_item_nobody_labelled():
    with pytest.raises(AgreementError, match="no reviewer labelled"):
        agreement_report({1: {"ann": "accepted"}}, {2: "accepted"})


def test_the_report_reads_as_a_dict_for_the_api():
    data = agreement_report(units_from_rows(KRIPPENDORFF_A), {0: 1}).to_dict()
    assert data["alpha"]["measure"] == KRIPPENDORFF_ALPHA
    assert data["pairs"][0]["reviewers"] == ["A", "B"]
    assert data["against_final"][0]["kappa"]["reason_if_undefined"]


# --- curation -------------------------------------------------------------------------------


def test_curation_gives_the_share_sent_and_how_the_curator_decided():
    curated = curation(40, {"upheld": 3, "overturned": 2})
    assert curated.sent.successes == 5
    assert curated.sent.share == pytest.approx(5 / 40)
    assert curated.outcomes == {"overturned": 2, "upheld": 3}
    assert curated.to_dict()["sent"]["n"] == 40


def test_curation_of_no_items_has_no_share():
    assert curation(0, {}).sent.share is None


def test_curation_refuses_more_curated_items_than_reviewed():
    with pytest.raises(AgreementError, match="6 items curated but only 5"):
        curation(5, {"upheld": 6})


# --- κ from a table of counts -----------------------------------------------------------------


def test_kappa_of_a_table_is_the_published_value_and_agrees_with_kappa_of_the_items():
    # Wikipedia's worked example: 20 yes-yes, 5 yes-no, 10 no-yes, 15 no-no; κ = 0.4.
    from grounding.agreement import cohen_kappa, cohen_kappa_of_table

    table = [[20, 5], [10, 15]]
    rater_a = ["yes"] * 25 + ["no"] * 25
    rater_b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15

    from_table = cohen_kappa_of_table(table)
    from_items = cohen_kappa(rater_a, rater_b)

    assert from_table.value == pytest.approx(0.4)
    assert from_items.value == pytest.approx(from_table.value)
    assert from_table.low < 0.4 < from_table.high
    # Two bootstraps of the same items: the same interval up to resampling noise.
    assert from_table.low == pytest.approx(from_items.low, abs=0.05)
    assert from_table.high == pytest.approx(from_items.high, abs=0.05)
    assert cohen_kappa_of_table(table) == from_table  # seeded: the same figures twice


def test_kappa_of_a_table_is_undefined_with_a_reason_for_one_label_or_too_few_items():
    from grounding.agreement import cohen_kappa_of_table

    assert cohen_kappa_of_table([[7, 0], [0, 0]]).value is None
    assert "one label" in cohen_kappa_of_table([[7, 0], [0, 0]]).reason_if_undefined
    assert "at least 2" in cohen_kappa_of_table([[1, 0], [0, 0]]).reason_if_undefined


def test_kappa_of_a_table_refuses_what_is_not_a_square_table_of_counts():
    from grounding.agreement import AgreementError, cohen_kappa_of_table

    for bad in ([[1, 2, 3], [4, 5, 6]], [[1, -1], [0, 2]], [1, 2]):
        with pytest.raises(AgreementError):
            cohen_kappa_of_table(bad)


def test_kappa_of_a_million_counted_items_has_a_tight_interval():
    from grounding.agreement import cohen_kappa_of_table

    big = cohen_kappa_of_table([[400_000, 100_000], [200_000, 300_000]])
    assert big.value == pytest.approx(0.4)
    assert big.high - big.low < 0.01  # a million items pin κ down
