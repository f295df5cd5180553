"""The rationale report: verdict, sentences and ignored evidence in one storable value."""

from __future__ import annotations

import dataclasses
import json

import pytest

from grounding.evidence import (
    EvidenceAccumulator,
    RationaleReport,
    RationaleReportError,
    SentenceStatus,
    ToolResult,
    assess_rationale,
    assess_sentences,
    uncited_evidence,
    validate_citations,
)


def gathered() -> EvidenceAccumulator:
    return EvidenceAccumulator(
        [
            ToolResult(
                "policy_match", "success", "rule 2 matched", 12, data={"rule": 2, "score": 0.93}
            ),
            ToolResult(
                "user_history", "success", "3 earlier removals", 40, data=["r1", "r2", "r3"]
            ),
            ToolResult("thread_context", "timeout", "no answer in 5s", 5000),
            ToolResult("report_velocity", "success", "4 reports in 3 minutes", 8),
        ]
    )


FAILING = (
    "The account has three earlier removals for the same link [ev-2]. "
    "Its post matches rule two word for word [ev-1][ev-9]. "
    "The thread around it is hostile and escalating quickly. "
    "Verdict: remove."
)
PASSING = (
    "Four users reported the post within three minutes [ev-4]. "
    "The account has three earlier removals for the same link [ev-2]. "
    "Recommend: remove."
)


def through_json(report: RationaleReport) -> RationaleReport:
    return RationaleReport.from_dict(json.loads(json.dumps(report.to_dict())))


def test_the_report_gathers_what_the_separate_checks_say() -> None:
    accumulator = gathered()
    report = assess_rationale(FAILING, accumulator)
    assert report.validation == validate_citations(FAILING, accumulator)
    assert report.sentences == assess_sentences(FAILING, accumulator)
    assert report.uncited_evidence == uncited_evidence(FAILING, accumulator)


def test_the_report_lists_cited_ids_in_order_of_first_citation() -> None:
    report = assess_rationale(FAILING, gathered())
    assert report.cited_ids == ("ev-2", "ev-1", "ev-9")


def test_the_report_keeps_the_declared_ids_only_when_there_were_some() -> None:
    assert assess_rationale(PASSING, gathered()).declared_ids is None
    declared = assess_rationale(PASSING, gathered(), cited_evidence_ids=["ev-4", "ev-2"])
    assert declared.declared_ids == ("ev-4", "ev-2")
    assert declared.validation.passed


def test_a_mismatched_declaration_shows_up_in_the_report_verdict() -> None:
    report = assess_rationale(PASSING, gathered(), cited_evidence_ids=["ev-4"])
    assert report.validation.reason == "cited_field_mismatch"
    assert report.validation.details == {"missing": ["ev-2"], "extra": []}


def test_the_report_cannot_be_altered_once_made() -> None:
    report = assess_rationale(PASSING, gathered())
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.cited_ids = ()  # type: ignore[misc]


@pytest.mark.parametrize(
    ("rationale", "declared"),
    [
        (FAILING, None),
        (PASSING, ["ev-2", "ev-4"]),
        (PASSING, ["ev-3"]),
        ("", None),
        ("Verdict: remove", []),
    ],
)
def test_a_report_survives_a_trip_through_json_unchanged(
    rationale: str, declared: list[str] | None
) -> None:
    report = assess_rationale(rationale, gathered(), declared)
    assert through_json(report) == report


def test_a_report_read_back_has_enum_statuses_and_tool_results_again() -> None:
    restored = through_json(assess_rationale(FAILING, gathered()))
    assert [s.status for s in restored.sentences] == [
        SentenceStatus.SUPPORTED,
        SentenceStatus.UNKNOWN_ID,
        SentenceStatus.UNCITED_CLAIM,
        SentenceStatus.NOT_A_CLAIM,
    ]
    ignored_id, ignored = restored.uncited_evidence[0]
    assert ignored_id == "ev-4" and isinstance(ignored, ToolResult)
    assert ignored.summary == "4 reports in 3 minutes"


def test_the_stored_form_is_plain_json_a_template_can_read() -> None:
    stored = assess_rationale(FAILING, gathered()).to_dict()
    assert stored["validation"] == {
        "passed": False,
        "reason": "hallucinated_evidence_ids",
        "details": {"ids": ["ev-9"]},
    }
    second = stored["sentences"][1]
    assert FAILING[second["start"] : second["end"]] == second["text"]
    assert (second["status"], second["kind"], second["offending_ids"]) == (
        "cites_unknown_id",
        "claim",
        ["ev-9"],
    )
    assert stored["uncited_evidence"][0]["id"] == "ev-4"
    assert json.loads(json.dumps(stored)) == stored


def test_reading_a_report_without_its_verdict_names_the_missing_key() -> None:
    stored = assess_rationale(PASSING, gathered()).to_dict()
    del stored["validation"]
    with pytest.raises(RationaleReportError, match="'validation' is missing"):
        RationaleReport.from_dict(stored)


def test_reading_a_report_with_an_unknown_status_names_the_sentence() -> None:
    stored = assess_rationale(PASSING, gathered()).to_dict()
    stored["sentences"][1]["status"] = "probably_fine"
    with pytest.raises(RationaleReportError, match="sentence 1.*probably_fine"):
        RationaleReport.from_dict(stored)


def test_reading_a_report_with_shifted_offsets_is_refused() -> None:
    stored = assess_rationale(PASSING, gathered()).to_dict()
    stored["sentences"][0]["end"] += 3
    with pytest.raises(RationaleReportError, match="sentence 0"):
        RationaleReport.from_dict(stored)
