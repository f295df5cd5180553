"""The JSON API's JSON-lines imports (cases, answers) and the decision log."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from review.models import Answer, Case
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.decisions import logged
from tests.builders.plans import row_counts

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Client:
    pipeline_user()
    return api_client()


def case_line(case_id: str = "c-1001", **overrides) -> dict:
    line = {
        "case_id": case_id,
        "content": {
            "text": "Go and report her account until it is gone.",
            "author": "u/stormchaser",
            "community": "r/localnews",
            "report_reason": "harassment",
        },
        "evidence": [
            {
                "tool": "policy_match",
                "status": "success",
                "summary": "Rule 2 matched",
                "latency_ms": 41,
                "data": {"rule": 2},
            },
        ],
        "rationale": {
            "text": "The comment calls for mass reporting of a named user [ev-1].",
            "cited_evidence_ids": ["ev-1"],
            "recommended_action": "remove",
            "model": "mod-1",
        },
    }
    line.update(overrides)
    return line


def answer_line(answer_id: str = "a-77", **overrides) -> dict:
    line = {
        "answer_id": answer_id,
        "question": "How fast does smoke fill a stairwell?",
        "text": "Smoke can fill an open stairwell within minutes [2].",
        "sources": [
            {"title": "Door Closers", "year": 2020},
            {"title": "Stairwell Smoke", "year": 2021},
        ],
        "model": "answer-1",
    }
    line.update(overrides)
    return line


def jsonl(*records) -> bytes:
    return "".join(
        (record if isinstance(record, str) else json.dumps(record)) + "\n" for record in records
    ).encode()


def post_lines(api: Client, url: str, body: bytes):
    return api.post(url, body, content_type="application/x-ndjson")


def test_posting_cases_imports_them_and_posting_them_again_creates_nothing(api: Client) -> None:
    body = jsonl(case_line("c-1"), case_line("c-2"))

    first = post_lines(api, f"{API}/cases", body)
    again = post_lines(api, f"{API}/cases", body)

    assert first.status_code == 200
    assert first.json() == {"created": 2, "unchanged": 0, "rejected": []}
    assert again.json() == {"created": 0, "unchanged": 2, "rejected": []}
    assert sorted(Case.objects.values_list("case_id", flat=True)) == ["c-1", "c-2"]


def test_posting_answers_imports_them_finalized(api: Client) -> None:
    response = post_lines(api, f"{API}/answers", jsonl(answer_line()))

    assert response.json() == {"created": 1, "unchanged": 0, "rejected": []}
    answer = Answer.objects.get()
    assert answer.raw_text == answer_line()["text"]
    assert "[1]" in answer.body and "[2]" not in answer.body.split("###")[0]


@pytest.mark.parametrize(
    ("url", "body", "expected"),
    [
        (f"{API}/cases", b"", ["the file has no lines"]),
        (f"{API}/cases", b'{"case_id": "c-1",\n', ["line 1: not valid JSON"]),
        (f"{API}/cases", b"[1, 2]\n", ["line 1: must be an object, not"]),
        (
            f"{API}/cases",
            jsonl(
                case_line(
                    evidence=[{"tool": "t", "status": "done", "summary": "s", "latency_ms": 3}]
                )
            ),
            ["line 1: evidence[0].status: 'done' is not one of"],
        ),
        (
            f"{API}/cases",
            jsonl(case_line("c-1"), case_line("c-1")),
            ["line 2: case_id 'c-1'"],
        ),
        (f"{API}/answers", b"\xff\xfe\n", ["line 1: not UTF-8: byte 0xff"]),
        (f"{API}/answers", jsonl(answer_line(sources="none")), ["line 1: sources"]),
    ],
    ids=[
        "empty",
        "malformed-json",
        "not-an-object",
        "unknown-evidence-status",
        "duplicate-ids",
        "undecodable",
        "wrong-type",
    ],
)
def test_a_bad_file_is_refused_whole_with_every_bad_line_named(api, url, body, expected) -> None:
    before = row_counts()

    response = post_lines(api, url, body)

    assert response.status_code == 422
    problems = response.json()["problems"]
    assert len(problems) == len(expected)
    for problem, start in zip(problems, expected, strict=True):
        assert problem.startswith(start), problem
    assert row_counts() == before


def test_skip_invalid_imports_the_good_lines_and_returns_the_bad_ones(api: Client) -> None:
    bad = '{"case_id": "c-9", "content": 7}'
    body = jsonl(case_line("c-1"), bad)

    response = post_lines(api, f"{API}/cases?skip_invalid=true", body)

    assert response.status_code == 200
    result = response.json()
    assert (result["created"], result["unchanged"]) == (1, 0)
    assert [(item["line"], item["raw"]) for item in result["rejected"]] == [(2, bad)]
    assert result["rejected"][0]["problem"]
    assert list(Case.objects.values_list("case_id", flat=True)) == ["c-1"]


def test_cases_cannot_be_posted_without_a_token() -> None:
    response = Client().post(
        f"{API}/cases", jsonl(case_line()), content_type="application/x-ndjson"
    )
    assert response.status_code == 401
    assert not Case.objects.exists()


# --- decisions ----------------------------------------------------------------------------------


def test_decisions_are_pulled_oldest_first_with_every_field(api: Client) -> None:
    later = logged(
        "case.overturn",
        "2026-12-02T10:00:00+00:00",
        note="context matters",
        before={"verdict": "proposed"},
        after={"verdict": "overturned"},
    )
    earlier = logged("case.uphold", "2026-12-01T10:00:00+00:00")
    undo = logged("case.undo", "2026-12-03T10:00:00+00:00", undoes=later)

    rows = api.get(f"{API}/decisions").json()["items"]

    assert [row["id"] for row in rows] == [earlier.pk, later.pk, undo.pk]
    assert rows[1] == {
        "id": later.pk,
        "at": "2026-12-02T10:00:00Z",
        "actor": "moderator",
        "action": "case.overturn",
        "object_type": "case",
        "object_id": "1",
        "before": {"verdict": "proposed"},
        "after": {"verdict": "overturned"},
        "note": "context matters",
        "undoes": None,
        "withheld": "",
    }
    assert rows[2]["undoes"] == later.pk


def test_decisions_since_a_moment_leave_out_what_came_before(api: Client) -> None:
    logged("case.uphold", "2026-12-01T10:00:00+00:00")
    kept = logged("case.overturn", "2026-12-02T00:00:00+00:00")

    by_date = api.get(f"{API}/decisions?since=2026-12-02").json()["items"]
    by_time = api.get(f"{API}/decisions", {"since": "2026-12-02T01:00:00+01:00"}).json()["items"]

    assert [row["id"] for row in by_date] == [kept.pk]
    assert [row["id"] for row in by_time] == [kept.pk]


def test_a_since_that_is_no_date_is_refused(api: Client) -> None:
    response = api.get(f"{API}/decisions?since=yesterday")

    assert response.status_code == 422
    assert response.json()["problems"] == [
        "since: 'yesterday' is not a date (2026-12-01) or an ISO-8601 date and time"
    ]
