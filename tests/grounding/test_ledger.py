"""The rules' ledger: rule records, validator-reason records and the flag/verdict confusion."""

from __future__ import annotations

import pytest

from grounding.agreement import wilson_interval
from grounding.evidence import VALIDATION_REASONS
from grounding.ledger import (
    UNFLAGGED,
    LedgerError,
    ReasonRecord,
    RuleRecord,
    ValidationSettings,
    confusion,
)

# The normal quantile of a two-sided 95 % interval.
Z = 1.959963984540054


def rule(
    *,
    accepted: int = 0,
    edited: int = 0,
    merged: int = 0,
    rejected: int = 0,
    documents: int = 1,
    undecided: int = 0,
    settings: ValidationSettings | None = None,
) -> RuleRecord:
    decided = accepted + edited + merged + rejected
    return RuleRecord(
        rule="rule:numbered-heading",
        proposer_version="propose-segments 0.1.0",
        proposed=decided + undecided,
        decided=decided,
        accepted=accepted,
        edited=edited,
        merged=merged,
        rejected=rejected,
        documents=documents,
        **({"settings": settings} if settings else {}),
    )


# --- rules ----------------------------------------------------------------------------------


def test_a_rule_accepted_thirty_times_of_thirty_on_six_documents_is_validated():
    # All accepted: the Wilson lower bound is n / (n + z^2) = 30 / 33.84 = 0.886, over 0.8.
    record = rule(accepted=30, documents=6)
    assert record.acceptance.low == pytest.approx(30 / (30 + Z**2))
    assert record.validated
    assert record.why_not == ""


def test_fourteen_of_fourteen_accepted_is_not_enough_to_clear_the_threshold():
    # 14 / (14 + z^2) = 0.785: every entry accepted, yet the interval still reaches under 0.8.
    record = rule(accepted=14, documents=7)
    assert record.acceptance.share == 1.0
    assert record.acceptance.low == pytest.approx(14 / (14 + Z**2))
    assert not record.validated
    assert record.why_not == (
        "accepted 14 of 14, on 7 documents; the interval's lower bound 0.78 is under 0.80"
    )


def test_a_rule_decided_on_one_document_says_so():
    record = rule(accepted=12, rejected=2, documents=1)
    assert not record.validated
    assert record.why_not.startswith("accepted 12 of 14, on 1 document;")
    assert "needs decisions on 5 documents" in record.why_not


def test_a_rule_with_no_decisions_is_not_validated_and_has_no_share():
    record = rule(undecided=8, documents=0)
    assert record.acceptance.share is None
    assert not record.validated
    assert record.why_not == "none of its 8 proposed entries decided yet"


def test_edited_and_merged_entries_are_decided_but_not_accepted():
    record = rule(accepted=10, edited=3, merged=1, documents=6)
    assert record.acceptance.successes == 10
    assert record.acceptance.n == 14


def test_the_acceptance_interval_matches_newcombes_published_wilson_interval():
    # Newcombe (1998), table I, method 3: 81 of 263 gives 0.2553 to 0.3662.
    record = rule(accepted=81, rejected=182, documents=20)
    assert (round(record.acceptance.low, 4), round(record.acceptance.high, 4)) == (0.2553, 0.3662)
    assert "lower bound 0.26 is under 0.80" in record.why_not


def test_the_settings_decide_what_counts_as_validated():
    lenient = ValidationSettings(min_documents=1, min_lower_bound=0.5)
    assert rule(accepted=12, rejected=2, documents=1, settings=lenient).validated
    assert not rule(accepted=12, rejected=2, documents=1).validated


def test_a_lower_bound_exactly_at_the_threshold_is_validated():
    bound = wilson_interval(30, 30).low
    settings = ValidationSettings(min_documents=6, min_lower_bound=bound)
    assert rule(accepted=30, documents=6, settings=settings).validated


@pytest.mark.parametrize(
    ("settings", "message"),
    [({"min_documents": 0}, "min_documents"), ({"min_documents": True}, "min_documents"),
     ({"min_lower_bound": 80}, "min_lower_bound"), ({"min_lower_bound": "0.8"}, "min_lower_bound")],
)  # fmt: skip
def test_settings_refuse_values_that_cannot_be(settings, message):
    with pytest.raises(LedgerError, match=message):
        ValidationSettings(**settings)


def test_a_rule_record_refuses_outcomes_that_do_not_add_up_to_the_decided():
    with pytest.raises(LedgerError, match="add up to 9, not to the 10 decided"):
        RuleRecord("rule:heading", "0.1.0", 12, 10, 5, 2, 1, 1, 3)


def test_a_rule_record_refuses_more_decided_than_proposed():
    with pytest.raises(LedgerError, match="10 decided of only 8 proposed"):
        RuleRecord("rule:heading", "0.1.0", 8, 10, 10, 0, 0, 0, 3)


@pytest.mark.parametrize("documents", [0, 11])
def test_a_rule_record_refuses_a_document_count_its_decisions_cannot_have(documents):
    with pytest.raises(LedgerError, match=f"cannot come from {documents} documents"):
        RuleRecord("rule:heading", "0.1.0", 10, 10, 10, 0, 0, 0, documents)


def test_a_rule_record_refuses_a_negative_count_and_names_it():
    with pytest.raises(LedgerError, match="rule 'rule:heading' \\(0.1.0\\): merged"):
        RuleRecord("rule:heading", "0.1.0", 10, 10, 11, 0, -1, 0, 2)


def test_a_rule_record_names_its_rule():
    with pytest.raises(LedgerError, match="names its rule"):
        RuleRecord(" ", "0.1.0", 1, 1, 1, 0, 0, 0, 1)


def test_a_rule_record_reads_as_a_dict_for_the_api():
    data = rule(accepted=12, rejected=2, documents=1).to_dict()
    assert data["acceptance"]["successes"] == 12
    assert data["validated"] is False
    assert data["why_not"].startswith("accepted 12 of 14")
    assert (data["min_documents"], data["min_lower_bound"]) == (5, 0.8)


# --- validator reasons ----------------------------------------------------------------------


def test_moderators_agree_with_a_flag_by_overturning_or_asking_for_a_rewrite():
    # 60 overturned + 21 rewrites = 81 of 263: Newcombe's 0.2553 to 0.3662 again.
    record = ReasonRecord("uncited_claims", upheld=182, overturned=60, needs_rewrite=21)
    assert record.flagged
    assert record.decided == 263
    assert record.agreed.successes == 81
    assert (round(record.agreed.low, 4), round(record.agreed.high, 4)) == (0.2553, 0.3662)


def test_moderators_agree_with_an_unflagged_rationale_by_upholding_it():
    record = ReasonRecord(UNFLAGGED, upheld=9, overturned=1, needs_rewrite=2)
    assert not record.flagged
    assert record.agreed.successes == 9
    assert record.agreed.n == 12


def test_a_reason_with_no_verdicts_has_no_share():
    record = ReasonRecord("hallucinated_evidence_ids", 0, 0, 0)
    assert record.agreed.share is None
    assert record.to_dict()["agreed"]["reason_if_undefined"]


def test_every_reason_the_validator_gives_has_a_record():
    for reason in VALIDATION_REASONS:
        assert ReasonRecord(reason, 1, 1, 1).flagged


def test_a_reason_the_validator_never_gives_is_refused():
    with pytest.raises(LedgerError, match="'too_long' is not one of"):
        ReasonRecord("too_long", 1, 0, 0)


def test_a_reason_record_refuses_a_verdict_count_that_is_not_a_count():
    with pytest.raises(LedgerError, match="needs_rewrite"):
        ReasonRecord("uncited_claims", 1, 0, 2.0)


# --- the confusion of flags and verdicts ----------------------------------------------------


def cases(
    both: int, flagged_only: int, not_upheld_only: int, neither: int
) -> tuple[list, list, list]:
    flagged = [True] * (both + flagged_only) + [False] * (not_upheld_only + neither)
    not_upheld = (
        [True] * both + [False] * flagged_only + [True] * not_upheld_only + [False] * neither
    )
    return flagged, not_upheld, [f"case-{index}" for index in range(len(flagged))]


def test_the_confusion_of_the_fifty_item_example_counts_its_cells_and_gives_kappa_0_4():
    # Wikipedia, "Cohen's kappa", worked example: 20 / 5 / 10 / 15 gives kappa = 0.4.
    matrix = confusion(*cases(20, 5, 10, 15))
    assert (matrix.flagged_not_upheld, matrix.flagged_upheld) == (20, 5)
    assert (matrix.unflagged_not_upheld, matrix.unflagged_upheld) == (10, 15)
    assert matrix.cases == 50
    assert matrix.kappa.value == pytest.approx(0.4)
    assert matrix.kappa.low < 0.4 < matrix.kappa.high


def test_the_confusion_lists_the_disagreements_by_case_id():
    matrix = confusion(*cases(2, 1, 2, 3))
    assert matrix.flagged_but_upheld == ("case-2",)
    assert matrix.unflagged_but_not_upheld == ("case-3", "case-4")


def test_without_case_ids_the_disagreements_are_listed_by_position():
    matrix = confusion([True, False, True], [False, True, True])
    assert matrix.flagged_but_upheld == ("0",)
    assert matrix.unflagged_but_not_upheld == ("1",)


def test_the_confusion_of_no_cases_is_empty_with_kappa_undefined():
    matrix = confusion([], [])
    assert matrix.cases == 0
    assert matrix.kappa.value is None
    assert matrix.to_dict()["matrix"]["flagged"] == {"not_upheld": 0, "upheld": 0}


def test_when_every_case_is_flagged_and_not_upheld_kappa_is_undefined():
    matrix = confusion([True] * 6, [True] * 6)
    assert matrix.flagged_not_upheld == 6
    assert matrix.kappa.value is None
    assert "one category" in matrix.kappa.reason_if_undefined


def test_the_confusion_refuses_flags_and_verdicts_for_different_cases():
    with pytest.raises(LedgerError, match="3 flags for 2 verdicts"):
        confusion([True, False, True], [True, False])


def test_the_confusion_refuses_a_flag_that_is_not_a_boolean():
    with pytest.raises(LedgerError, match="case 1: flagged is True or False"):
        confusion([True, "yes"], [True, False])


@pytest.mark.parametrize("ids", [["a"], ["a", "a"], "ab"])
def test_the_confusion_refuses_case_ids_that_do_not_name_each_case_once(ids):
    with pytest.raises(LedgerError, match="case id"):
        confusion([True, False], [True, False], ids)
