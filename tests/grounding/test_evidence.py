"""Evidence, sentences and the pass/fail verdict on a moderation rationale."""

from __future__ import annotations

import dataclasses

import pytest

from grounding.evidence import (
    EVIDENCE_STATUSES,
    MIN_CLAIM_WORDS,
    VALIDATION_REASONS,
    EvidenceAccumulator,
    EvidenceError,
    SentenceKind,
    ToolResult,
    ValidationResult,
    contains_ev_reference,
    is_substantive,
    parse_ev_references,
    sentence_kind,
    split_sentences,
    uncited_substantive_sentences,
    validate_citations,
)


def evidence(
    status: str = "success", tool: str = "report_velocity", summary: str = ""
) -> ToolResult:
    return ToolResult(tool=tool, status=status, summary=summary or f"{tool} {status}", latency_ms=7)


def gathered(*statuses: str) -> EvidenceAccumulator:
    """Evidence ev-1, ev-2, ... with the given statuses."""
    return EvidenceAccumulator(
        evidence(status, tool=f"tool_{n}") for n, status in enumerate(statuses, 1)
    )


# --- Tool results and the accumulator --------------------------------------------


def test_a_tool_result_with_an_unheard_of_status_is_refused_with_the_allowed_ones_named() -> None:
    with pytest.raises(EvidenceError) as refused:
        evidence(status="ok", tool="user_history")
    message = str(refused.value)
    assert "user_history" in message and "'ok'" in message
    assert all(status in message for status in EVIDENCE_STATUSES)


def test_a_tool_result_cannot_be_altered_once_made() -> None:
    result = evidence()
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.status = "failure"  # type: ignore[misc]


def test_only_a_successful_result_counts_as_succeeded() -> None:
    assert [evidence(status).succeeded for status in EVIDENCE_STATUSES] == [
        True,
        False,
        False,
        False,
    ]


def test_evidence_ids_count_from_one_in_the_order_results_arrive() -> None:
    accumulator = EvidenceAccumulator()
    first, second = evidence(tool="policy_match"), evidence("timeout", tool="thread_context")
    assert accumulator.append(first) == "ev-1"
    assert accumulator.append(second) == "ev-2"
    assert accumulator.get("ev-1") is first and accumulator.get("ev-2") is second
    assert accumulator.items() == [("ev-1", first), ("ev-2", second)]


def test_the_accumulator_answers_like_a_dict_of_ids() -> None:
    accumulator = gathered("success", "failure", "skipped")
    assert len(accumulator) == 3
    assert list(accumulator) == ["ev-1", "ev-2", "ev-3"]
    assert "ev-3" in accumulator and "ev-4" not in accumulator
    assert accumulator.get("ev-4") is None


def test_an_accumulator_built_from_results_numbers_them_as_appending_would() -> None:
    results = [evidence(tool="a"), evidence("failure", tool="b")]
    appended = EvidenceAccumulator()
    for result in results:
        appended.append(result)
    assert EvidenceAccumulator(results).items() == appended.items()


def test_the_accumulator_refuses_anything_but_a_tool_result() -> None:
    with pytest.raises(TypeError, match="ToolResult"):
        EvidenceAccumulator().append({"tool": "policy_match", "status": "success"})  # type: ignore[arg-type]


# --- Citations ------------------------------------------------------------------------


def test_every_cited_id_is_found_once_however_often_it_is_cited() -> None:
    rationale = "Spam links [ev-2] in five threads [ev-12][ev-2], reported twice [ev-1]."
    assert parse_ev_references(rationale) == {"ev-1", "ev-2", "ev-12"}


@pytest.mark.parametrize("text", ["(ev-1)", "[ev 1]", "[Ev-1]", "[ev-x1]", "ev-3", "[ev-]"])
def test_only_the_exact_bracketed_form_counts_as_a_citation(text: str) -> None:
    assert parse_ev_references(text) == set()
    assert contains_ev_reference(text) is False


def test_a_single_citation_anywhere_means_the_text_cites() -> None:
    assert contains_ev_reference("the author was warned before [ev-4] and kept posting")


# --- Sentences -----------------------------------------------------------------------


def test_sentences_end_at_full_stops_question_marks_and_exclamation_marks() -> None:
    text = "Was it spam? It was! Three reports arrived. Then the thread was locked"
    assert split_sentences(text) == [
        "Was it spam?",
        "It was!",
        "Three reports arrived.",
        "Then the thread was locked",
    ]


def test_a_full_stop_inside_a_number_or_a_run_of_dots_ends_nothing_early() -> None:
    text = "Velocity rose 2.5 times... Then it fell."
    assert split_sentences(text) == ["Velocity rose 2.5 times...", "Then it fell."]


def test_a_citation_after_the_full_stop_stays_with_the_sentence_it_closes() -> None:
    text = "The author posted spam.[ev-1] Reports came fast. [ev-2][ev-3] Removal follows."
    assert split_sentences(text) == [
        "The author posted spam.[ev-1]",
        "Reports came fast. [ev-2][ev-3]",
        "Removal follows.",
    ]


def test_a_line_break_ends_a_sentence_even_without_punctuation() -> None:
    text = "Verdict: REMOVE\nThe author has two prior bans [ev-1]\n\n\nAction: lock"
    assert split_sentences(text) == [
        "Verdict: REMOVE",
        "The author has two prior bans [ev-1]",
        "Action: lock",
    ]


def test_list_markers_are_layout_and_not_part_of_the_sentence() -> None:
    text = (
        "Findings:\n- Posted the same link ten times [ev-1]\n  * Reported by four users\n2) Locked."
    )
    assert split_sentences(text) == [
        "Findings:",
        "Posted the same link ten times [ev-1]",
        "Reported by four users",
        "Locked.",
    ]


def test_blank_text_has_no_sentences() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\t\n ") == []


# --- Claims and what is not a claim -------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "In summary, the record speaks for itself.",
        "in conclusion: removal is the right call",
        "TO SUMMARIZE, this user keeps coming back.",
        "Overall, the pattern is consistent across the week.",
        "Based on   the above, a ban is proportionate.",
        "Given the above, the thread should be locked now.",
        "Considering the evidence, no exception applies here.",
        "**In summary,** everything points the same way here.",
    ],
)
def test_a_sentence_that_opens_by_summing_up_is_framing(sentence: str) -> None:
    assert sentence_kind(sentence) is SentenceKind.FRAMING
    assert not is_substantive(sentence)


def test_a_framing_word_without_its_comma_opens_an_ordinary_claim() -> None:
    assert (
        sentence_kind("Overall engagement on this account tripled after the ban")
        is SentenceKind.CLAIM
    )
    assert (
        sentence_kind("Given the warnings, the author still posted the link again")
        is SentenceKind.CLAIM
    )


@pytest.mark.parametrize(
    "sentence",
    [
        "Recommend: remove the post and warn the author.",
        "Recommendation: temporary ban for seven days, then review.",
        "Verdict: APPROVE",
        "action : escalate",
        "Suggested action: lock the thread until tomorrow morning.",
        "**Decision:** remove",
        "## Verdict: remove",
    ],
)
def test_a_labelled_proposal_of_what_to_do_is_a_recommendation(sentence: str) -> None:
    assert sentence_kind(sentence) is SentenceKind.RECOMMENDATION
    assert not is_substantive(sentence)


def test_a_sentence_needs_six_words_to_be_a_claim() -> None:
    five = "Author deleted four replies yesterday"
    six = five + " afternoon"
    assert MIN_CLAIM_WORDS == 6
    assert sentence_kind(five) is SentenceKind.FRAGMENT
    assert sentence_kind(six) is SentenceKind.CLAIM


def test_citations_dashes_and_bullets_do_not_count_as_words() -> None:
    padded = "Flagged twice \u2014 see - [ev-1] [ev-2] [ev-3] [ev-4]"
    assert sentence_kind(padded) is SentenceKind.FRAGMENT


def test_each_kind_has_a_label_a_reviewer_can_read() -> None:
    assert SentenceKind.CLAIM.label == "claim"
    assert SentenceKind.FRAGMENT.label.startswith("fragment")
    assert str(MIN_CLAIM_WORDS) in SentenceKind.FRAGMENT.label
    assert {kind.value for kind in SentenceKind} == {
        "claim",
        "framing",
        "recommendation",
        "fragment",
    }


def test_only_claims_that_cite_nothing_are_uncited() -> None:
    rationale = (
        "The author reposted the removed link within the hour [ev-1]. "
        "Moderators had warned this account about the same link before. "
        "Overall, removal is consistent. Verdict: remove. Clear case. "
        "The post also mentions a competitor's product by name [ev-9]."
    )
    assert uncited_substantive_sentences(rationale) == [
        "Moderators had warned this account about the same link before."
    ]


# --- The verdict -----------------------------------------------------------------------

CITED_THROUGHOUT = (
    "The same link appeared in nine threads within ten minutes [ev-1]. "
    "Four different users reported the post as spam [ev-2]. "
    "In summary, this is a coordinated campaign. "
    "Recommend: remove and ban."
)


def test_a_rationale_citing_successful_evidence_for_every_claim_passes() -> None:
    verdict = validate_citations(CITED_THROUGHOUT, gathered("success", "success", "failure"))
    assert verdict == ValidationResult.ok()


@pytest.mark.parametrize("rationale", ["", "   ", "\n\t \n"])
def test_a_blank_rationale_fails_as_empty(rationale: str) -> None:
    assert validate_citations(rationale, gathered("success")).reason == "empty_rationale"


def test_a_rationale_without_a_single_citation_fails_even_with_no_claims() -> None:
    verdict = validate_citations("Verdict: remove. Clear case.", gathered("success"))
    assert (verdict.passed, verdict.reason) == (False, "no_citations")


def test_invented_ids_are_all_named_in_order_of_first_citation() -> None:
    rationale = "Posted spam [ev-7] after a warning [ev-1], twice [ev-3][ev-7]. Verdict: remove."
    verdict = validate_citations(rationale, gathered("success", "success"))
    assert verdict.reason == "hallucinated_evidence_ids"
    assert verdict.details == {"ids": ["ev-7", "ev-3"]}


def test_citing_evidence_that_did_not_succeed_names_each_id_and_its_status() -> None:
    rationale = (
        "Thread context shows escalating insults [ev-2]. "
        "The account history lists three bans [ev-4]. "
        "The policy matcher flagged rule two [ev-1]."
    )
    verdict = validate_citations(rationale, gathered("success", "timeout", "success", "skipped"))
    assert verdict.reason == "cited_non_success_evidence"
    assert verdict.details == {
        "ids": ["ev-2", "ev-4"],
        "statuses": {"ev-2": "timeout", "ev-4": "skipped"},
    }


@pytest.mark.parametrize("status", [s for s in EVIDENCE_STATUSES if s != "success"])
def test_every_status_other_than_success_is_unfit_to_cite(status: str) -> None:
    rationale = "Four users reported this post within a minute [ev-1]."
    assert validate_citations(rationale, gathered(status)).reason == "cited_non_success_evidence"


def test_uncited_claims_fail_and_are_quoted_for_the_moderator() -> None:
    rationale = (
        "Four users reported this post within a minute [ev-1]. "
        "The author runs several sockpuppet accounts on this forum. "
        "Verdict: remove.\n"
        "The linked site hosts malware according to moderators"
    )
    verdict = validate_citations(rationale, gathered("success"))
    assert verdict.reason == "uncited_claims"
    assert verdict.details == {
        "sentences": [
            "The author runs several sockpuppet accounts on this forum.",
            "The linked site hosts malware according to moderators",
        ]
    }


def test_declared_ids_must_match_the_cited_ones_and_the_difference_is_shown() -> None:
    accumulator = gathered("success", "success", "success")
    verdict = validate_citations(CITED_THROUGHOUT, accumulator, cited_evidence_ids=["ev-2", "ev-3"])
    assert verdict.reason == "cited_field_mismatch"
    assert verdict.details == {"missing": ["ev-1"], "extra": ["ev-3"]}


def test_declared_ids_in_another_order_or_repeated_still_match() -> None:
    declared = ["ev-2", "ev-1", "ev-2"]
    assert validate_citations(CITED_THROUGHOUT, gathered("success", "success"), declared).passed


def test_declared_ids_given_as_one_string_are_refused_rather_than_misread() -> None:
    with pytest.raises(TypeError, match="list of ids"):
        validate_citations(CITED_THROUGHOUT, gathered("success", "success"), "ev-1")  # type: ignore[arg-type]


def test_checks_run_in_the_published_order_and_the_first_failure_is_reported() -> None:
    # One defect per check, added from the last check to the first: each time
    # the newly added, earlier defect must take over the reported reason.
    accumulator = gathered("success", "failure")
    claim_with_good_evidence = "Four users reported this post within a minute [ev-1]. "
    uncited_claim = "The author runs several sockpuppet accounts here. "
    bad_status = "The user history lookup shows earlier bans [ev-2]. "
    invented = "The thread context shows a brigade [ev-8]. "
    steps = [
        (claim_with_good_evidence, ["ev-5"], "cited_field_mismatch"),
        (claim_with_good_evidence + uncited_claim, ["ev-5"], "uncited_claims"),
        (
            claim_with_good_evidence + uncited_claim + bad_status,
            ["ev-5"],
            "cited_non_success_evidence",
        ),
        (invented + bad_status + uncited_claim, ["ev-5"], "hallucinated_evidence_ids"),
        (uncited_claim, ["ev-5"], "no_citations"),
        ("  ", ["ev-5"], "empty_rationale"),
    ]
    reported = [
        validate_citations(text, accumulator, declared).reason for text, declared, _ in steps
    ]
    assert reported == [reason for _, _, reason in steps]
    assert reported == list(reversed(VALIDATION_REASONS))


def test_a_passing_result_carries_no_reason_and_no_details() -> None:
    passing = ValidationResult.ok()
    assert (passing.passed, passing.reason, passing.details) == (True, "", {})


def test_a_failed_result_keeps_its_reason_and_details_and_round_trips() -> None:
    result = ValidationResult.failed("uncited_claims", sentences=["The author lied."])
    assert not result.passed
    assert ValidationResult.from_dict(result.to_dict()) == result
    assert ValidationResult.from_dict(ValidationResult.ok().to_dict()) == ValidationResult.ok()


def test_a_validation_result_cannot_be_altered_once_made() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        ValidationResult.ok().reason = "no_citations"  # type: ignore[misc]
