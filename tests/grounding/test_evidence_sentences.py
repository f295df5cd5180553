"""Sentence by sentence: what each sentence of a rationale cites and whether it holds."""

from __future__ import annotations

import pytest

from grounding.evidence import (
    EvidenceAccumulator,
    SentenceAssessment,
    SentenceKind,
    SentenceStatus,
    ToolResult,
    assess_sentences,
    uncited_evidence,
    uncited_substantive_sentences,
    validate_citations,
)


def gathered(*statuses: str) -> EvidenceAccumulator:
    """Evidence ev-1, ev-2, ... with the given statuses."""
    return EvidenceAccumulator(
        ToolResult(tool=f"tool_{n}", status=status, summary=f"finding {n}", latency_ms=n)
        for n, status in enumerate(statuses, 1)
    )


def status_of(sentence: str, accumulator: EvidenceAccumulator) -> SentenceStatus:
    (only,) = assess_sentences(sentence, accumulator)
    return only.status


MESSY = (
    "  In summary, the account is a spam source:\n"
    "- The same link appeared in nine threads [ev-1][ev-1]\n"
    "  * Reports arrived from four users within minutes. [ev-2] It kept going!\n"
    "\n"
    "2) Velocity   stayed at 2.5 reports a minute [ev-9].\t"
    "The user history lookup timed out [ev-3]\r\n"
    "**Verdict:** remove... High risk.   "
)


def test_each_sentence_is_exactly_the_text_between_its_offsets() -> None:
    sentences = assess_sentences(MESSY, gathered("success", "success", "timeout"))
    assert [s.text for s in sentences] == [
        "In summary, the account is a spam source:",
        "The same link appeared in nine threads [ev-1][ev-1]",
        "Reports arrived from four users within minutes. [ev-2]",
        "It kept going!",
        "Velocity   stayed at 2.5 reports a minute [ev-9].",
        "The user history lookup timed out [ev-3]",
        "**Verdict:** remove...",
        "High risk.",
    ]
    assert all(MESSY[s.start : s.end] == s.text for s in sentences)
    ends_then_starts = [(a.end, b.start) for a, b in zip(sentences, sentences[1:], strict=False)]
    assert all(end <= start for end, start in ends_then_starts)


def test_each_sentence_lists_its_own_ids_once_in_citation_order() -> None:
    rationale = (
        "Reported [ev-3] and flagged [ev-1] and reported again [ev-3]. Four bans earlier [ev-2]."
    )
    first, second = assess_sentences(rationale, gathered("success", "success", "success"))
    assert first.cited_ids == ("ev-3", "ev-1")
    assert second.cited_ids == ("ev-2",)


def test_the_messy_rationale_gets_one_status_and_kind_per_sentence() -> None:
    sentences = assess_sentences(MESSY, gathered("success", "success", "timeout"))
    assert [(s.status, s.kind) for s in sentences] == [
        (SentenceStatus.NOT_A_CLAIM, SentenceKind.FRAMING),
        (SentenceStatus.SUPPORTED, SentenceKind.CLAIM),
        (SentenceStatus.SUPPORTED, SentenceKind.CLAIM),
        (SentenceStatus.NOT_A_CLAIM, SentenceKind.FRAGMENT),
        (SentenceStatus.UNKNOWN_ID, SentenceKind.CLAIM),
        (SentenceStatus.NON_SUCCESS, SentenceKind.CLAIM),
        (SentenceStatus.NOT_A_CLAIM, SentenceKind.RECOMMENDATION),
        (SentenceStatus.NOT_A_CLAIM, SentenceKind.FRAGMENT),
    ]


def test_a_claim_backed_only_by_successful_evidence_is_supported() -> None:
    claim = "The account posted the same link in nine threads [ev-1][ev-2]."
    assert status_of(claim, gathered("success", "success")) is SentenceStatus.SUPPORTED


def test_a_claim_citing_nothing_is_an_uncited_claim() -> None:
    claim = "The account posted the same link in nine threads."
    assert status_of(claim, gathered("success")) is SentenceStatus.UNCITED_CLAIM


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("Overall, a clear pattern of abuse emerges here.", SentenceKind.FRAMING),
        ("Recommendation: ban for thirty days and notify the author.", SentenceKind.RECOMMENDATION),
        ("Clear spam.", SentenceKind.FRAGMENT),
    ],
)
def test_an_uncited_sentence_that_is_no_claim_is_left_alone_with_its_reason(
    sentence: str, kind: SentenceKind
) -> None:
    (assessed,) = assess_sentences(sentence, gathered("success"))
    assert (assessed.status, assessed.kind) == (SentenceStatus.NOT_A_CLAIM, kind)


def test_framing_that_cites_good_evidence_is_supported() -> None:
    sentence = "In summary, the spam matches rule two [ev-1]."
    (assessed,) = assess_sentences(sentence, gathered("success"))
    assert (assessed.status, assessed.kind) == (SentenceStatus.SUPPORTED, SentenceKind.FRAMING)


def test_an_invented_id_condemns_the_sentence_even_beside_good_evidence() -> None:
    sentence = "Nine threads carried the link [ev-1], and four users complained [ev-6]."
    (assessed,) = assess_sentences(sentence, gathered("success"))
    assert assessed.status is SentenceStatus.UNKNOWN_ID
    assert assessed.offending_ids == ("ev-6",)


def test_an_invented_id_outranks_evidence_that_failed() -> None:
    sentence = "The thread context shows insults [ev-1] and the history shows bans [ev-4]."
    (assessed,) = assess_sentences(sentence, gathered("failure"))
    assert assessed.status is SentenceStatus.UNKNOWN_ID
    assert assessed.offending_ids == ("ev-4",)


def test_evidence_that_did_not_succeed_outranks_good_evidence_beside_it() -> None:
    sentence = "Rule two matched [ev-1] and the account has earlier bans [ev-2][ev-3]."
    (assessed,) = assess_sentences(sentence, gathered("success", "skipped", "timeout"))
    assert assessed.status is SentenceStatus.NON_SUCCESS
    assert assessed.offending_ids == ("ev-2", "ev-3")


def test_a_supported_or_uncited_sentence_has_no_offending_ids() -> None:
    rationale = (
        "Rule two matched the post text exactly [ev-1]. The account is new and unverified here."
    )
    assert [s.offending_ids for s in assess_sentences(rationale, gathered("success"))] == [(), ()]


def test_statuses_read_as_the_contract_spells_them() -> None:
    spelled = {status.value: status.label for status in SentenceStatus}
    assert spelled == {
        "supported": "supported",
        "cites_unknown_id": "cites unknown id",
        "cites_non_success_evidence": "cites non-success evidence",
        "uncited_claim": "uncited claim",
        "not_a_claim": "not a claim",
    }
    assert SentenceStatus("uncited_claim") is SentenceStatus.UNCITED_CLAIM
    assert SentenceStatus.SUPPORTED == "supported"


@pytest.mark.parametrize(
    "rationale",
    [
        MESSY,
        "Nine threads carried the link. Four users complained about it loudly. Overall, bad.",
        "Rule two matched [ev-1]. The author has done this before, many times.\nVerdict: ban",
        "",
    ],
)
def test_the_sentence_view_and_the_verdict_agree_on_uncited_claims(rationale: str) -> None:
    accumulator = gathered("success", "success", "timeout")
    flagged = [
        s.text
        for s in assess_sentences(rationale, accumulator)
        if s.status is SentenceStatus.UNCITED_CLAIM
    ]
    assert flagged == uncited_substantive_sentences(rationale)


def test_the_sentence_view_and_the_verdict_agree_on_invented_ids() -> None:
    accumulator = gathered("success", "success", "timeout")
    verdict = validate_citations(MESSY, accumulator)
    offending = [i for s in assess_sentences(MESSY, accumulator) for i in s.offending_ids]
    assert verdict.reason == "hallucinated_evidence_ids"
    assert set(verdict.details["ids"]) == {i for i in offending if i not in accumulator}


def test_an_assessment_whose_text_does_not_fit_its_span_is_refused() -> None:
    with pytest.raises(ValueError, match="span"):
        SentenceAssessment("Clear spam.", 0, 4, (), SentenceStatus.NOT_A_CLAIM)


def test_an_assessment_built_without_a_kind_works_it_out_from_the_text() -> None:
    built = SentenceAssessment("Verdict: remove", 3, 18, [], "not_a_claim")
    assert built.kind is SentenceKind.RECOMMENDATION
    assert built.status is SentenceStatus.NOT_A_CLAIM and built.cited_ids == ()


# --- Evidence the rationale ignored -----------------------------------------------------


def test_successful_evidence_never_cited_is_returned_in_id_order() -> None:
    accumulator = gathered("success", "failure", "success", "success", "skipped")
    ignored = uncited_evidence("Rule two matched the post text [ev-3].", accumulator)
    assert [evidence_id for evidence_id, _ in ignored] == ["ev-1", "ev-4"]
    assert all(result is accumulator.get(evidence_id) for evidence_id, result in ignored)


def test_evidence_that_did_not_succeed_is_never_reported_as_ignored() -> None:
    accumulator = gathered("failure", "timeout", "skipped")
    assert uncited_evidence("Nothing is cited in this rationale at all.", accumulator) == ()


def test_citing_every_successful_result_leaves_nothing_ignored() -> None:
    accumulator = gathered("success", "failure", "success")
    assert uncited_evidence("Matched [ev-1]. History [ev-3] and [ev-7].", accumulator) == ()
