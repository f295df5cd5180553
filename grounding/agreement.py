"""How far reviewers agree: Cohen's κ, Krippendorff's α (nominal), percent agreement, shares.

Pure functions over labels and counts; the review app aggregates decisions and hands them in.
Each figure comes with a 95 % interval, or with the reason it has none: a figure that is
undefined (one category only, too few items) is None with a sentence, never NaN.

Libraries where one fits: Wilson intervals are SciPy's `binomtest(...).proportion_ci`, α is the
`krippendorff` package, intervals for κ and α are SciPy's `bootstrap`. Cohen's κ itself is the
four-line formula (po - pe) / (1 - pe), tested against published worked values; statsmodels and
scikit-learn both have it, but either would bring a large dependency for four lines.

Bootstraps are seeded (BOOTSTRAP_SEED), so the page and the API print the same interval for the
same data, and bounded: BOOTSTRAP_RESAMPLES resamples over at most MAX_ITEMS items, computed for
many resamples at once (about a second for 10,000 items; some seconds at MAX_ITEMS).
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any

import krippendorff
import numpy as np
from scipy.stats import DegenerateDataWarning, binomtest, bootstrap

CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20260301
MAX_ITEMS = 100_000
MAX_CATEGORIES = 100
MAX_REVIEWERS = 50
# Cells of one vectorized batch of resamples (resamples x items, x labels for α), to bound memory.
_BATCH_CELLS = 4_000_000
# A few resamples may hold one label only, where κ and α are undefined; up to this share are left
# out of the interval (and counted in its note), beyond it the interval would describe other data.
MAX_UNDEFINED_RESAMPLES = 0.01

COHEN_KAPPA = "cohen_kappa"
KRIPPENDORFF_ALPHA = "krippendorff_alpha_nominal"
PERCENT_AGREEMENT = "percent_agreement"

Label = str | bool | int
# item -> {reviewer: label}; a reviewer who did not label the item is absent or None.
Units = Mapping[Hashable, Mapping[str, Label | None]]


class AgreementError(ValueError):
    """Labels or counts that no agreement figure can be computed from."""


@dataclass(frozen=True)
class Proportion:
    """`successes` of `n` as a share with its Wilson interval; None throughout when n is 0."""

    successes: int
    n: int
    share: float | None
    low: float | None
    high: float | None
    confidence: float = CONFIDENCE
    reason_if_undefined: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # every field, by its name


@dataclass(frozen=True)
class Agreement:
    """One agreement figure over `n_items` items with its interval.

    `value` is None when the figure is undefined; `low`/`high` are None when it has no interval.
    Either way `reason_if_undefined` says why in a sentence a reviewer can act on; `note` says
    how many bootstrap resamples were left out of an interval that was still given.
    """

    measure: str
    value: float | None
    low: float | None
    high: float | None
    n_items: int
    confidence: float = CONFIDENCE
    reason_if_undefined: str = ""
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # every field, by its name


def wilson_interval(successes: int, n: int, confidence: float = CONFIDENCE) -> Proportion:
    """The share successes/n with its Wilson score interval (Wilson 1927; Newcombe 1998)."""
    _check_count("successes", successes)
    _check_count("n", n)
    _check_confidence(confidence)
    if successes > n:
        raise AgreementError(f"successes ({successes}) cannot exceed n ({n})")
    if n == 0:
        return Proportion(
            successes, 0, None, None, None, confidence, "nothing counted yet (n is 0): no share"
        )
    interval = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return Proportion(
        successes, n, successes / n, float(interval.low), float(interval.high), confidence
    )


def percent_agreement(
    labels_a: Sequence[Label], labels_b: Sequence[Label], confidence: float = CONFIDENCE
) -> Agreement:
    """The share of items both reviewers labelled alike, with its Wilson interval."""
    _check_confidence(confidence)
    pairs = _paired_labels(labels_a, labels_b)
    same = sum(a == b for a, b in pairs)
    share = wilson_interval(same, len(pairs), confidence)
    reason = "no item labelled by both reviewers yet" if not pairs else ""
    return Agreement(
        PERCENT_AGREEMENT, share.share, share.low, share.high, len(pairs), confidence, reason
    )


def cohen_kappa(
    labels_a: Sequence[Label],
    labels_b: Sequence[Label],
    *,
    confidence: float = CONFIDENCE,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Agreement:
    """Cohen's κ between two reviewers over the same items, with a paired bootstrap interval."""
    _check_confidence(confidence)
    _check_resamples(resamples)
    pairs = _paired_labels(labels_a, labels_b)
    n = len(pairs)
    if n < 2:
        return _undefined(
            COHEN_KAPPA, n, f"κ needs at least 2 items both reviewers labelled; got {n}"
        )
    codes_a, codes_b, categories = _codes([a for a, _ in pairs], [b for _, b in pairs])
    if len(categories) == 1:
        return _undefined(
            COHEN_KAPPA,
            n,
            f"both reviewers labelled all {n} items {categories[0]!r}: with one category "
            "chance agreement is total and κ is undefined (percent agreement is 100 %)",
        )
    kappa = float(_kappa(codes_a, codes_b, len(categories)))
    batch = max(1, min(resamples, _BATCH_CELLS // n))

    def statistic(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        return _kappa(a, b, len(categories))

    distribution, low, high = _bootstrap(
        (codes_a, codes_b), statistic, confidence, resamples, seed, vectorized=True, batch=batch
    )
    return _with_interval(COHEN_KAPPA, kappa, distribution, low, high, n, confidence)


def cohen_kappa_of_table(
    table: Sequence[Sequence[int]],
    *,
    confidence: float = CONFIDENCE,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Agreement:
    """Cohen's κ from a square table of counts (row: the first rater's label, column: the
    second's), with the same percentile bootstrap as `cohen_kappa`.

    Resampling n items with replacement only changes how many fall in each cell, so each
    resample is one multinomial draw over the cells: the cost does not grow with n, which lets
    the insights bootstrap a million decisions counted in the database.
    """
    _check_confidence(confidence)
    _check_resamples(resamples)
    cells = np.asarray(table, dtype=np.int64)
    if cells.ndim != 2 or cells.shape[0] != cells.shape[1] or cells.shape[0] < 1:
        raise AgreementError(f"a κ table is square, one row and column per label; got {table!r}")
    if (cells < 0).any():
        raise AgreementError(f"a κ table holds counts of 0 or more; got {table!r}")
    n = int(cells.sum())
    if n < 2:
        return _undefined(COHEN_KAPPA, n, f"κ needs at least 2 items both raters labelled; got {n}")
    kappa = float(_kappa_of_tables(cells[np.newaxis])[0])
    if np.isnan(kappa):
        return _undefined(
            COHEN_KAPPA,
            n,
            f"both raters gave all {n} items one label: with one category chance agreement is "
            "total and κ is undefined",
        )
    draws = np.random.default_rng(seed).multinomial(n, cells.ravel() / n, size=resamples)
    distribution = _kappa_of_tables(draws.reshape(resamples, *cells.shape))
    tail = (1 - confidence) / 2
    defined = distribution[~np.isnan(distribution)]
    low, high = (
        (float(q) for q in np.quantile(defined, [tail, 1 - tail]))
        if defined.size
        else (
            float("nan"),
            float("nan"),
        )
    )
    return _with_interval(COHEN_KAPPA, kappa, distribution, low, high, n, confidence)


def _kappa_of_tables(tables: np.ndarray) -> np.ndarray:
    """κ of each (k x k) table along the first axis; NaN where chance agreement is total."""
    n = tables.sum(axis=(1, 2))
    observed = np.trace(tables, axis1=1, axis2=2)
    chance = (tables.sum(axis=2) * tables.sum(axis=1)).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (n * observed - chance) / (n * n - chance)
    return np.where(chance == n * n, np.nan, kappa)


def krippendorff_alpha_nominal(
    units: Units,
    *,
    confidence: float = CONFIDENCE,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Agreement:
    """Krippendorff's α for nominal labels across all reviewers, missing labels allowed.

    The interval resamples items (units). Items labelled by fewer than two reviewers carry no
    pairable values, so they count neither in α nor in `n_items`.
    """
    _check_confidence(confidence)
    _check_resamples(resamples)
    counts, categories = _value_counts(units)
    n = counts.shape[0]
    if n == 0:
        return _undefined(
            KRIPPENDORFF_ALPHA, 0, "α needs an item labelled by two reviewers or more"
        )
    if len(categories) == 1:
        return _undefined(
            KRIPPENDORFF_ALPHA,
            n,
            f"every label on the {n} items labelled twice or more is {categories[0]!r}: "
            "with one category there is no disagreement to expect and α is undefined",
        )
    alpha = _alpha(counts)
    batch = max(1, min(resamples, _BATCH_CELLS // (n * len(categories))))

    def statistic(items: np.ndarray, axis: int = -1) -> np.ndarray:
        return _nominal_alpha_of_resamples(counts, items)

    distribution, low, high = _bootstrap(
        (np.arange(n),), statistic, confidence, resamples, seed, vectorized=True, batch=batch
    )
    return _with_interval(KRIPPENDORFF_ALPHA, alpha, distribution, low, high, n, confidence)


@dataclass(frozen=True)
class ReviewerPair:
    """κ and percent agreement between two reviewers on the items both labelled."""

    reviewer_a: str
    reviewer_b: str
    kappa: Agreement
    percent: Agreement

    def to_dict(self) -> dict[str, Any]:
        return {
            "reviewers": [self.reviewer_a, self.reviewer_b],
            "kappa": self.kappa.to_dict(),
            "percent": self.percent.to_dict(),
        }


@dataclass(frozen=True)
class AgreementReport:
    """α across all reviewers, κ per pair, κ per reviewer against the final decision.

    Per validator reason or per proposer rule: build one report from that group's items.
    """

    alpha: Agreement
    pairs: tuple[ReviewerPair, ...]
    against_final: tuple[ReviewerPair, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha.to_dict(),
            "pairs": [pair.to_dict() for pair in self.pairs],
            "against_final": [pair.to_dict() for pair in self.against_final],
        }


FINAL = "final decision"


def agreement_report(
    units: Units, final: Mapping[Hashable, Label] | None = None
) -> AgreementReport:
    """Every agreement figure over `units`; `final` maps item -> the decision that stood."""
    reviewers = sorted(
        {reviewer for labels in _checked_units(units).values() for reviewer in labels}
    )
    if len(reviewers) > MAX_REVIEWERS:
        raise AgreementError(f"{len(reviewers)} reviewers; at most {MAX_REVIEWERS} are compared")
    pairs = tuple(_pair(a, b, *_labels_of(units, a, b)) for a, b in combinations(reviewers, 2))
    against_final: tuple[ReviewerPair, ...] = ()
    if final is not None:
        against_final = tuple(
            _pair(reviewer, FINAL, *_against_final(units, reviewer, final))
            for reviewer in reviewers
        )
    return AgreementReport(krippendorff_alpha_nominal(units), pairs, against_final)


@dataclass(frozen=True)
class Curation:
    """How many items were sent to curation, and what the curator decided on them."""

    items: int
    sent: Proportion
    outcomes: Mapping[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"items": self.items, "sent": self.sent.to_dict(), "outcomes": dict(self.outcomes)}


def curation(items: int, outcomes: Mapping[str, int]) -> Curation:
    """`outcomes` counts the curated items by the curator's decision (e.g. {"upheld": 3})."""
    _check_count("items", items)
    for decision, count in outcomes.items():
        if not isinstance(decision, str) or not decision:
            raise AgreementError(f"a curator's decision is named by text, not {decision!r}")
        _check_count(f"curated items decided {decision!r}", count)
    sent = sum(outcomes.values())
    if sent > items:
        raise AgreementError(
            f"{sent} items curated but only {items} reviewed; count each item once"
        )
    return Curation(items, wilson_interval(sent, items), dict(sorted(outcomes.items())))


# --- the statistics -------------------------------------------------------------------------


def _kappa(codes_a: np.ndarray, codes_b: np.ndarray, n_categories: int) -> np.ndarray:
    """κ along the last axis, NaN where chance agreement is total (one category in the sample).

    Counts stay integers, so "total" is an exact test and not a floating-point near miss.
    """
    n = codes_a.shape[-1]
    observed = (codes_a == codes_b).sum(axis=-1)
    marginal_a = _label_counts(codes_a, n_categories)
    marginal_b = _label_counts(codes_b, n_categories)
    chance = (marginal_a * marginal_b).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (n * observed - chance) / (n * n - chance)
    return np.where(chance == n * n, np.nan, kappa)


def _alpha(counts: np.ndarray) -> float:
    """α of a value-count matrix (items x categories); NaN where a resample is one category only."""
    with np.errstate(divide="ignore", invalid="ignore"):
        try:
            return float(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))
        except ValueError:
            return float("nan")


def _label_counts(codes: np.ndarray, n_categories: int) -> np.ndarray:
    """How often each label code occurs along the last axis: (..., n) -> (..., n_categories)."""
    rows = codes.reshape(-1, codes.shape[-1])
    # One bincount for all rows: row r's codes are shifted into their own block of the bins.
    shifted = rows + n_categories * np.arange(rows.shape[0])[:, np.newaxis]
    counted = np.bincount(shifted.ravel(), minlength=rows.shape[0] * n_categories)
    return counted.reshape(*codes.shape[:-1], n_categories)


def _nominal_alpha_of_resamples(counts: np.ndarray, items: np.ndarray) -> np.ndarray:
    """α of each resample (a row of item indices), NaN where a resample holds one label only.

    The package computes one α at a time, which made 2,000 resamples of 10,000 items take 15 s;
    this is its nominal formula for all resamples at once (a test holds the two equal):
    α = 1 - (n - 1) Σ_u D_u / (n² - Σ_c n_c²), where D_u = (m_u² - Σ_c n_uc²) / (m_u - 1) counts
    the disagreeing pairs within item u and n_c the values of label c in the resample.
    """
    values = counts.sum(axis=1)
    disagreeing = (values**2 - (counts**2).sum(axis=1)) / (values - 1)
    per_label = counts[items].sum(axis=-2)
    total = per_label.sum(axis=-1)
    expected = total**2 - (per_label**2).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - (total - 1) * disagreeing[items].sum(axis=-1) / expected
    return np.where(expected == 0, np.nan, alpha)


def _bootstrap(
    data: tuple[np.ndarray, ...],
    statistic: Any,
    confidence: float,
    resamples: int,
    seed: int,
    *,
    vectorized: bool,
    batch: int | None,
) -> tuple[np.ndarray, float, float]:
    """SciPy's percentile bootstrap, resampling items (pairs stay together).

    Percentile rather than SciPy's default BCa: BCa's jackknife leaves out one item at a time,
    and on the small sets a review produces that often removes the only item of a rare label.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateDataWarning)
        result = bootstrap(
            data,
            statistic,
            n_resamples=resamples,
            batch=batch,
            vectorized=vectorized,
            paired=len(data) > 1,
            confidence_level=confidence,
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    interval = result.confidence_interval
    return np.asarray(result.bootstrap_distribution), float(interval.low), float(interval.high)


def _with_interval(
    measure: str,
    value: float,
    distribution: np.ndarray,
    low: float,
    high: float,
    n: int,
    confidence: float,
) -> Agreement:
    undefined = int(np.isnan(distribution).sum())
    if 0 < undefined <= MAX_UNDEFINED_RESAMPLES * distribution.size:
        # The same percentile interval SciPy gives, over the resamples where the figure exists.
        tail = (1 - confidence) / 2
        low, high = (float(q) for q in np.nanquantile(distribution, [tail, 1 - tail]))
        note = f"{undefined} of {distribution.size} resamples held one label only and were left out"
        return Agreement(measure, value, low, high, n, confidence, note=note)
    if undefined:
        return Agreement(
            measure,
            value,
            None,
            None,
            n,
            confidence,
            f"no interval: {undefined} of {distribution.size} resamples of the {n} items held "
            "one label only, where the figure is undefined; it needs more items or a less rare "
            "label",
        )
    return Agreement(measure, value, low, high, n, confidence)


def _undefined(measure: str, n: int, reason: str) -> Agreement:
    return Agreement(measure, None, None, None, n, reason_if_undefined=reason)


# --- reading the input ----------------------------------------------------------------------


def _paired_labels(labels_a: Sequence[Label], labels_b: Sequence[Label]) -> list[tuple]:
    for name, labels in (("labels_a", labels_a), ("labels_b", labels_b)):
        if isinstance(labels, str | bytes) or not isinstance(labels, Sequence):
            raise AgreementError(f"{name} is a list of labels, one per item, not {labels!r:.40}")
    if len(labels_a) != len(labels_b):
        raise AgreementError(
            f"{len(labels_a)} labels from one reviewer and {len(labels_b)} from the other: "
            "give both reviewers' labels for the same items, in the same order"
        )
    if len(labels_a) > MAX_ITEMS:
        raise AgreementError(f"{len(labels_a)} items; at most {MAX_ITEMS} are compared at once")
    for index, (a, b) in enumerate(zip(labels_a, labels_b, strict=True)):
        _check_label(a, f"item {index}, first reviewer")
        _check_label(b, f"item {index}, second reviewer")
    return list(zip(labels_a, labels_b, strict=True))


def _codes(labels_a: list, labels_b: list) -> tuple[np.ndarray, np.ndarray, list]:
    categories = sorted(set(labels_a) | set(labels_b), key=repr)
    if len(categories) > MAX_CATEGORIES:
        raise AgreementError(f"{len(categories)} distinct labels; at most {MAX_CATEGORIES}")
    code = {label: index for index, label in enumerate(categories)}
    return (
        np.array([code[label] for label in labels_a]),
        np.array([code[label] for label in labels_b]),
        categories,
    )


def _checked_units(units: Units) -> Units:
    if not isinstance(units, Mapping):
        raise AgreementError(f"units map each item to {{reviewer: label}}, not {units!r:.40}")
    if len(units) > MAX_ITEMS:
        raise AgreementError(f"{len(units)} items; at most {MAX_ITEMS} are compared at once")
    for item, labels in units.items():
        if not isinstance(labels, Mapping):
            raise AgreementError(f"item {item!r} maps reviewers to labels, not {labels!r:.40}")
        for reviewer, label in labels.items():
            if not isinstance(reviewer, str) or not reviewer:
                raise AgreementError(
                    f"item {item!r}: a reviewer is named by text, not {reviewer!r}"
                )
            if label is not None:
                _check_label(label, f"item {item!r}, reviewer {reviewer!r}")
    return units


def _value_counts(units: Units) -> tuple[np.ndarray, list]:
    """Items x categories counts of the items labelled by two reviewers or more."""
    per_item = [
        Counter(label for label in labels.values() if label is not None)
        for labels in _checked_units(units).values()
    ]
    pairable = [counts for counts in per_item if counts.total() >= 2]
    categories = sorted({label for counts in pairable for label in counts}, key=repr)
    if len(categories) > MAX_CATEGORIES:
        raise AgreementError(f"{len(categories)} distinct labels; at most {MAX_CATEGORIES}")
    matrix = np.array(
        [[counts[label] for label in categories] for counts in pairable], dtype=float
    ).reshape(len(pairable), len(categories))
    return matrix, categories


def _labels_of(units: Units, a: str, b: str) -> tuple[list, list]:
    both = [
        (labels[a], labels[b])
        for labels in units.values()
        if labels.get(a) is not None and labels.get(b) is not None
    ]
    return [x for x, _ in both], [y for _, y in both]


def _against_final(
    units: Units, reviewer: str, final: Mapping[Hashable, Label]
) -> tuple[list, list]:
    if not isinstance(final, Mapping):
        raise AgreementError(f"final maps each item to its decision, not {final!r:.40}")
    unknown = [item for item in final if item not in units]
    if unknown:
        raise AgreementError(f"final decisions for items no reviewer labelled: {unknown[:5]!r}")
    both = [
        (labels[reviewer], final[item])
        for item, labels in units.items()
        if labels.get(reviewer) is not None and final.get(item) is not None
    ]
    return [x for x, _ in both], [y for _, y in both]


def _pair(a: str, b: str, labels_a: list, labels_b: list) -> ReviewerPair:
    return ReviewerPair(
        a, b, cohen_kappa(labels_a, labels_b), percent_agreement(labels_a, labels_b)
    )


def _check_label(label: Any, where: str) -> None:
    if not isinstance(label, Label) or (isinstance(label, str) and not label.strip()):
        raise AgreementError(f"{where}: a label is non-empty text, a bool or an int, not {label!r}")


def _check_count(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise AgreementError(f"{name} is a count (an int of 0 or more), not {value!r}")


def _check_confidence(confidence: Any) -> None:
    if not isinstance(confidence, float) or not 0 < confidence < 1:
        raise AgreementError(
            f"confidence is a level between 0 and 1 (e.g. 0.95), not {confidence!r}"
        )


def _check_resamples(resamples: Any) -> None:
    if (
        isinstance(resamples, bool)
        or not isinstance(resamples, int)
        or not 1 <= resamples <= 10_000
    ):
        raise AgreementError(f"resamples is an int from 1 to 10000, not {resamples!r}")
