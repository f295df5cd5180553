"""Importing moderation cases from JSON lines: whole file or nothing, every bad line named."""

from __future__ import annotations

import json

import pytest

from grounding.evidence import SentenceStatus
from review.adapters.cases import import_cases, report_for
from review.adapters.errors import ImportRefused
from review.models import Case, Evidence

pytestmark = pytest.mark.django_db


def make_case(case_id: str = "c-1001", **overrides) -> dict:
    case = {
        "case_id": case_id,
        "content": {
            "text": "Everyone in this thread should go and report her account until it is gone.",
            "author": "u/stormchaser",
            "community": "r/localnews",
            "report_reason": "harassment",
        },
        "evidence": [
            {
                "tool": "policy_match",
                "status": "success",
                "summary": "Rule 2 (targeted harassment) matched",
                "latency_ms": 41,
                "data": {"rule": 2},
            },
            {
                "tool": "user_history",
                "status": "timeout",
                "summary": "History service did not answer in 5 s",
                "latency_ms": 5000,
            },
        ],
        "rationale": {
            "text": "The comment calls on readers to mass-report a named user [ev-1].",
            "cited_evidence_ids": ["ev-1"],
            "recommended_action": "remove",
            "model": "mod-llm-2",
        },
    }
    case.update(overrides)
    return case


def jsonl(*records) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def refusal(data) -> list[str]:
    with pytest.raises(ImportRefused) as caught:
        import_cases(data)
    return caught.value.problems


def test_a_good_file_creates_each_case_with_its_evidence_in_order():
    result = import_cases(jsonl(make_case("c-1"), make_case("c-2")))

    assert (result.created, result.unchanged, result.rejected) == (2, 0, [])
    case = Case.objects.get(case_id="c-1")
    assert case.author == "u/stormchaser"
    assert case.community == "r/localnews"
    assert case.report_reason == "harassment"
    assert case.recommended_action == "remove"
    assert case.declared_ids == ["ev-1"]
    evidence = list(case.evidence.values_list("ev_id", "tool", "status", "latency_ms", "data"))
    assert evidence == [
        ("ev-1", "policy_match", "success", 41, {"rule": 2}),
        ("ev-2", "user_history", "timeout", 5000, {}),
    ]


def test_the_validators_report_is_stored_at_import_and_read_back():
    import_cases(jsonl(make_case("c-1")))

    case = Case.objects.get()
    report = report_for(case)
    assert case.flagged is False
    assert case.validator_reason == ""
    assert report.validation.passed
    assert [s.status for s in report.sentences] == [SentenceStatus.SUPPORTED]
    assert report.cited_ids == ("ev-1",)
    assert report.declared_ids == ("ev-1",)


def test_a_rationale_citing_evidence_that_does_not_exist_is_flagged_with_its_reason():
    rationale = {"text": "The account posted the same slur in five threads today [ev-7]."}
    import_cases(jsonl(make_case("c-1", rationale=rationale)))

    case = Case.objects.get()
    assert case.flagged is True
    assert case.validator_reason == "hallucinated_evidence_ids"
    assert report_for(case).sentences[0].status is SentenceStatus.UNKNOWN_ID


def test_a_rationale_without_declared_ids_is_not_held_to_a_declared_list():
    rationale = {"text": "The comment calls on readers to mass-report a named user [ev-1]."}
    import_cases(jsonl(make_case("c-1", rationale=rationale)))

    case = Case.objects.get()
    assert case.declared_ids is None
    assert case.validator_reason == ""
    assert report_for(case).declared_ids is None


def test_an_empty_rationale_is_imported_and_flagged_rather_than_refused():
    import_cases(jsonl(make_case("c-1", rationale={"text": ""})))

    assert Case.objects.get().validator_reason == "empty_rationale"


def test_importing_the_same_file_twice_creates_nothing_twice():
    data = jsonl(make_case("c-1"), make_case("c-2"))
    import_cases(data)

    again = import_cases(data)

    assert (again.created, again.unchanged) == (0, 2)
    assert Case.objects.count() == 2
    assert Evidence.objects.count() == 4


def test_key_order_and_spacing_do_not_make_a_case_different():
    case = make_case("c-1")
    import_cases(json.dumps(case))

    reordered = json.dumps(dict(reversed(list(case.items()))), indent=None, separators=(",", ":"))
    assert import_cases(reordered).unchanged == 1


def test_the_same_case_id_with_different_content_is_a_bad_line():
    import_cases(jsonl(make_case("c-1")))
    changed = make_case("c-1", rationale={"text": "Changed my mind [ev-1]."})

    problems = refusal(jsonl(changed))

    assert problems == [
        "line 1: case_id 'c-1' was already imported with different content; "
        "give the changed case a new case_id"
    ]
    assert Case.objects.get().rationale_text.startswith("The comment calls")


def test_an_unknown_evidence_status_names_the_line_the_item_and_the_allowed_values():
    bad = make_case("c-3")
    bad["evidence"][1]["status"] = "done"

    problems = refusal(jsonl(make_case("c-1"), make_case("c-2"), bad))

    assert problems == [
        "line 3: evidence[1].status: 'done' is not one of success, failure, timeout, skipped"
    ]


def test_malformed_json_is_reported_with_its_line_number():
    problems = refusal(jsonl(make_case("c-1"), '{"case_id": "c-2", "content": '))

    assert len(problems) == 1
    assert problems[0].startswith("line 2: not valid JSON: ")


def test_a_line_that_is_json_but_not_an_object_is_refused():
    assert refusal(jsonl("[1, 2]")) == ["line 1: must be an object, not a list"]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"case_id": 1001}, "case_id: must be a string, not a number"),
        ({"case_id": "c 1"}, "case_id: 'c 1' must be one word, without spaces"),
        ({"case_id": "c" * 101}, "case_id: is 101 characters long; the most allowed is 100"),
        ({"evidence": {"tool": "x"}}, "evidence: must be a list, not an object"),
        ({"content": "just text"}, "content: must be an object, not a string"),
        ({"content": None}, "content: must be an object, not null"),
        ({"content": {"text": 12}}, "content.text: must be a string, not a number"),
        ({"content": {"text": "  "}}, "content.text: must not be empty"),
        ({"rationale": {"text": None}}, "rationale.text: must be a string, not null"),
        (
            {"rationale": {"text": "x", "cited_evidence_ids": "ev-1"}},
            "rationale.cited_evidence_ids: must be a list, not a string",
        ),
    ],
)
def test_wrong_types_are_named_by_their_path(change, expected):
    case = make_case("c-1")
    case.update(change)
    assert refusal(jsonl(case)) == [f"line 1: {expected}"]


def test_wrong_types_inside_evidence_are_each_reported():
    case = make_case("c-1")
    case["evidence"][0].update(latency_ms="41", summary=None)
    case["evidence"][1].update(latency_ms=True, data=[1])

    assert refusal(jsonl(case)) == [
        "line 1: evidence[0].summary: must be a string, not null",
        "line 1: evidence[0].latency_ms: must be an integer, not a string",
        "line 1: evidence[1].latency_ms: must be an integer, not true/false",
        "line 1: evidence[1].data: must be an object",
    ]


def test_missing_and_unknown_keys_are_refused():
    case = make_case("c-1", verdict="remove")
    del case["content"]
    case["evidence"][0]["confidence"] = 0.9
    del case["evidence"][1]["latency_ms"]

    problems = refusal(jsonl(case))

    assert problems == [
        "line 1: content: is required",
        "line 1: verdict: unknown key (expected case_id, content, evidence, rationale)",
        "line 1: evidence[0].confidence: unknown key "
        "(expected data, id, latency_ms, status, summary, tool)",
        "line 1: evidence[1].latency_ms: is required",
    ]


def test_evidence_ids_given_in_the_file_must_follow_list_order():
    case = make_case("c-1")
    case["evidence"][0]["id"] = "ev-1"
    case["evidence"][1]["id"] = "ev-3"

    assert refusal(jsonl(case)) == [
        "line 1: evidence[1].id: 'ev-3' should be 'ev-2' (ids follow list order)"
    ]


def test_a_case_id_twice_in_one_file_names_the_first_line():
    problems = refusal(jsonl(make_case("c-1"), make_case("c-2"), make_case("c-1")))

    assert problems == ["line 3: case_id 'c-1' is already on line 1"]


def test_undecodable_bytes_are_reported_with_their_offset():
    good = jsonl(make_case("c-1")).encode()
    bad = b'{"case_id": "c-2", "content": {"text": "caf\xe9"}}\n'

    problems = refusal(good + bad)

    offset_in_line = bad.index(b"\xe9")
    assert problems == [
        f"line 2: not UTF-8: byte 0xe9 at byte {offset_in_line} of the line "
        f"(byte offset {len(good) + offset_in_line} in the file)"
    ]


@pytest.mark.parametrize("data", ["", b"", "\n\n  \n", b"\xef\xbb\xbf\n"])
def test_an_empty_file_is_refused(data):
    assert refusal(data) == ["the file has no lines"]


def test_an_empty_file_is_refused_even_when_skipping_invalid_lines():
    with pytest.raises(ImportRefused, match="the file has no lines"):
        import_cases("", skip_invalid=True)


def test_blank_lines_are_ignored_but_still_counted_in_line_numbers():
    bad = make_case("c-2", evidence="none")

    problems = refusal("\n" + jsonl(make_case("c-1")) + "\n   \n" + jsonl(bad))

    assert problems == ["line 5: evidence: must be a list, not a string"]


def test_windows_line_endings_and_a_byte_order_mark_are_accepted():
    data = ("\ufeff" + jsonl(make_case("c-1"), make_case("c-2")).replace("\n", "\r\n")).encode()

    assert import_cases(data).created == 2


def test_every_bad_line_is_reported_and_nothing_is_written():
    unknown_status = make_case("c-2")
    unknown_status["evidence"][0]["status"] = "pending"
    data = jsonl(make_case("c-1"), unknown_status, "not json", make_case("c-4"), make_case("c-1"))

    problems = refusal(data)

    assert [problem.split(":")[0] for problem in problems] == ["line 2", "line 3", "line 5"]
    assert Case.objects.count() == 0
    assert Evidence.objects.count() == 0


def test_a_refused_file_leaves_earlier_imports_as_they_were():
    import_cases(jsonl(make_case("c-1")))
    before = list(Case.objects.values_list("case_id", "source_sha256", "version"))

    refusal(jsonl(make_case("c-1"), make_case("c-2"), make_case("c-3", evidence=None)))

    assert list(Case.objects.values_list("case_id", "source_sha256", "version")) == before
    assert Evidence.objects.count() == 2


def test_skipping_invalid_lines_imports_the_good_ones_and_returns_the_bad_ones():
    bad = make_case("c-2")
    bad["evidence"][1]["status"] = "done"
    bad_line = json.dumps(bad)

    result = import_cases(jsonl(make_case("c-1"), bad_line, make_case("c-3")), skip_invalid=True)

    assert (result.created, result.unchanged) == (2, 0)
    assert result.rejected == [
        (2, bad_line, "evidence[1].status: 'done' is not one of success, failure, timeout, skipped")
    ]
    assert sorted(Case.objects.values_list("case_id", flat=True)) == ["c-1", "c-3"]


def test_skipping_invalid_lines_rejects_a_conflicting_case_and_keeps_the_stored_one():
    import_cases(jsonl(make_case("c-1")))
    changed = make_case("c-1", rationale={"text": "Changed [ev-1]."})

    result = import_cases(jsonl(changed, make_case("c-2")), skip_invalid=True)

    assert result.created == 1
    assert [number for number, _raw, _message in result.rejected] == [1]
    assert Case.objects.get(case_id="c-1").rationale_text.startswith("The comment calls")


@pytest.mark.parametrize(
    ("fragment", "expected"),
    [
        ('"data": {"score": NaN}', "not valid JSON: NaN is not a JSON number"),
        ('"data": {"score": 1e999}', "not valid JSON: 1e999 is too large a number"),
        ('"data": {"note": "a\\u0000b"}', "a string contains the NUL character (\\u0000)"),
        (
            '"data": {"note": "\\ud800"}',
            "a string contains an unpaired surrogate escape (such as \\ud800)",
        ),
    ],
)
def test_values_no_database_can_store_are_refused_alike_on_every_database(fragment, expected):
    case = make_case("c-1")
    line = json.dumps(case).replace('"data": {"rule": 2}', fragment)
    assert fragment in line

    assert refusal(jsonl(line)) == [f"line 1: {expected}"]


def test_json_nested_beyond_reason_is_refused_not_crashed_on():
    deep = '{"case_id": "c-1", "content": ' + "[" * 100_000 + "]" * 100_000 + "}"

    (problem,) = refusal(jsonl(deep))
    assert problem.startswith("line 1: nested too deeply (at most ")


def test_json_nested_past_the_depth_limit_but_within_the_parsers_is_refused(settings):
    settings.REVIEW_MAX_JSON_DEPTH = 8
    within = '{"case_id": "c-1", "content": ' + "[" * 6 + "]" * 6 + "}"
    beyond = '{"case_id": "c-1", "content": ' + "[" * 8 + "]" * 8 + "}"

    assert "nested too deeply" not in " ".join(refusal(jsonl(within)))
    (problem,) = refusal(jsonl(beyond))
    assert problem == "line 1: nested too deeply (at most 8 levels of lists and objects are taken)"
