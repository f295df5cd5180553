"""Every size is bounded, at every door, with a refusal naming the limit: the body of a
request, a file given to a command, a proposer's cap, a plan's entries, an import's lines, how
deeply JSON nests, a page of a list. And what a list reads is what it shows."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from review.adapters.documents import store_document
from review.adapters.errors import ImportRefused
from review.adapters.plans import import_plan, propose_document
from review.models import Decision, Job, Plan
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.cases_answers import case_line
from tests.builders.decisions import logged
from tests.builders.plans import CODE_TEXT, payload_text, proposed_payload, row_counts
from tests.builders.urls import url_of

pytestmark = pytest.mark.django_db

LIMIT = 4096
# Sections of several paragraphs, so that each cap proposes a plan of its own.
LONG_TEXT = "".join(
    f"## {number} Avsnitt\n\n" + "".join(f"Ledd {n} om brann og romning.\n\n" for n in range(12))
    for number in range(1, 4)
)


@pytest.fixture
def small_uploads(settings):
    settings.REVIEW_MAX_UPLOAD_BYTES = LIMIT


@pytest.fixture
def api() -> Client:
    pipeline_user()
    return api_client()


def nested(depth: int) -> str:
    """A plan whose proposer name is a list `depth` levels deep (the plan object is level 1)."""
    payload = payload_text(proposed_payload())
    return payload.replace(
        '"proposed_by": "propose-segments 0.1.0"',
        '"proposed_by": ' + "[" * (depth - 1) + "]" * (depth - 1),
    )


# --- the size of a body ----------------------------------------------------------------------


def test_an_api_body_over_the_upload_limit_is_413_naming_the_limit(api, small_uploads) -> None:
    before = row_counts()
    big = SimpleUploadedFile("big.md", b"# Stor\n\n" + b"tekst " * LIMIT)

    response = api.post(f"{API}/documents", {"file": big})

    assert response.status_code == 413
    body = response.json()
    assert set(body) == {"detail", "problems"}
    assert "at most 4,096 bytes" in body["detail"]
    assert "REVIEW_MAX_UPLOAD_BYTES" in body["detail"]
    assert row_counts() == before


def test_an_upload_form_over_the_limit_is_413_and_stores_nothing(
    client, editor, small_uploads
) -> None:
    before = row_counts()
    big = SimpleUploadedFile("big.md", b"# Stor\n\n" + b"tekst " * LIMIT)

    response = client.post(url_of("plan-upload-document"), {"file": big})

    assert response.status_code == 413
    assert "at most 4,096 bytes" in response.content.decode()
    assert row_counts() == before


@pytest.mark.parametrize("form", ["plan-upload-document", "plan-upload-plan", "revision-upload"])
def test_an_upload_form_over_the_limit_answers_the_product_s_page_naming_the_limit(
    client, editor, small_uploads, form
) -> None:
    document = store_document("code.md", CODE_TEXT.encode())
    url = url_of(form, *([document.pk] if form == "revision-upload" else []))
    form_page = url_of("revision", document.pk)
    big = SimpleUploadedFile("big.md", b"# Stor\n\n" + b"tekst " * LIMIT)

    response = client.post(url, {"document": document.pk, "file": big}, HTTP_REFERER=form_page)

    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "<html" in page
    assert 'rel="stylesheet"' in page
    assert "at most 4,096 bytes" in page
    assert "REVIEW_MAX_UPLOAD_BYTES" in page
    assert f'href="{form_page}"' in page


def test_the_too_large_page_links_back_only_to_a_page_of_ours(client, editor, small_uploads):
    big = SimpleUploadedFile("big.md", b"# Stor\n\n" + b"tekst " * LIMIT)

    response = client.post(
        url_of("plan-upload-document"), {"file": big}, HTTP_REFERER="https://evil.example/x"
    )

    assert response.status_code == 413
    assert "evil.example" not in response.content.decode()
    assert f'href="{reverse("dashboard")}"' in response.content.decode()


def test_a_body_just_under_the_limit_is_read(api, small_uploads) -> None:
    response = api.post(
        f"{API}/documents",
        {"file": SimpleUploadedFile("small.md", CODE_TEXT.encode())},
    )

    assert response.status_code == 201


def test_a_command_refuses_a_file_over_the_limit_without_reading_it_all(
    tmp_path: Path, small_uploads
) -> None:
    big = tmp_path / "big.md"
    big.write_bytes(b"# Stor\n\n" + b"tekst " * LIMIT)
    before = row_counts()

    with pytest.raises(CommandError) as error:
        call_command("propose", str(big), stdout=StringIO(), stderr=StringIO())

    assert error.value.returncode == 2
    assert "larger than 4,096 bytes" in str(error.value)
    assert row_counts() == before


def cases_file(path: Path, count: int) -> Path:
    path.write_text("".join(case_line(f"c-{n}") + "\n" for n in range(count)))
    return path


def refuse_parsing(monkeypatch) -> None:
    """Make parsing any line fail the test: a refusal that comes first never gets there."""

    def parse(number, raw):
        raise AssertionError(f"line {number} was parsed")

    monkeypatch.setattr("review.adapters.jsonl._parse", parse)


def test_a_jsonl_command_imports_a_file_larger_than_the_upload_limit(
    tmp_path: Path, small_uploads
) -> None:
    # The command streams a local file: the upload limit of a web request is no bound on it.
    lines = cases_file(tmp_path / "cases.jsonl", 40)
    assert lines.stat().st_size > LIMIT
    out = StringIO()

    call_command("import_cases", str(lines), stdout=out, stderr=StringIO())

    assert "40 cases created" in out.getvalue()
    assert row_counts()["Case"] == 40


def test_a_jsonl_command_refuses_one_line_longer_than_the_upload_limit(
    tmp_path: Path, small_uploads
) -> None:
    lines = tmp_path / "cases.jsonl"
    lines.write_text(case_line("c-1") + "\n" + case_line("c-2", text="x" * LIMIT) + "\n")

    with pytest.raises(CommandError, match="line 2 of file .* is larger than 4,096 bytes"):
        call_command("import_cases", str(lines), stdout=StringIO(), stderr=StringIO())

    assert row_counts()["Case"] == 0


@pytest.mark.parametrize("command", ["import_cases", "import_answers"])
def test_a_jsonl_command_refuses_a_file_of_too_many_lines_before_parsing_any(
    tmp_path: Path, settings, monkeypatch, command: str
) -> None:
    settings.REVIEW_MAX_IMPORT_LINES = 3
    lines = cases_file(tmp_path / "lines.jsonl", 4)
    refuse_parsing(monkeypatch)
    before = row_counts()

    with pytest.raises(CommandError) as error:
        call_command(command, str(lines), stdout=StringIO(), stderr=StringIO())

    assert error.value.returncode == 2
    assert "more than 3 lines" in str(error.value) and "--max-lines" in str(error.value)
    assert row_counts() == before


def test_max_lines_raises_the_bound_for_one_import(tmp_path: Path, settings) -> None:
    settings.REVIEW_MAX_IMPORT_LINES = 3
    lines = cases_file(tmp_path / "cases.jsonl", 5)
    out = StringIO()

    call_command("import_cases", str(lines), "--max-lines", "5", stdout=out, stderr=StringIO())

    assert "5 cases created" in out.getvalue()
    with pytest.raises(CommandError, match="more than 4 lines"):
        call_command("import_cases", str(lines), "--max-lines", "4", stdout=StringIO())


def test_an_api_import_over_the_upload_limit_is_kept_for_a_job_up_to_the_job_limit(
    api, small_uploads, settings
) -> None:
    settings.REVIEW_MAX_JOB_UPLOAD_BYTES = LIMIT * 8
    # Past Django's bound for a form's body too: the import reads its body from the stream.
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = LIMIT
    body = "".join(case_line(f"c-{n}") + "\n" for n in range(40)).encode()
    assert LIMIT < len(body) <= LIMIT * 8

    response = api.post(f"{API}/cases", body, content_type="application/x-ndjson")

    assert response.status_code == 202
    assert bytes(Job.objects.get(pk=response.json()["job"]).input_data) == body
    assert row_counts()["Case"] == 0  # the worker imports it


def test_an_api_import_over_the_job_limit_is_413_naming_that_limit(
    api, small_uploads, settings
) -> None:
    settings.REVIEW_MAX_JOB_UPLOAD_BYTES = LIMIT * 2
    body = "".join(case_line(f"c-{n}") + "\n" for n in range(40)).encode()

    for path in (f"{API}/cases", f"{API}/answers"):
        response = api.post(path, body, content_type="application/x-ndjson")

        assert response.status_code == 413
        assert f"at most {LIMIT * 2:,} bytes" in response.json()["detail"]
        assert "REVIEW_MAX_JOB_UPLOAD_BYTES" in response.json()["detail"]
    assert not Job.objects.exists()


def test_an_api_import_with_one_line_longer_than_the_upload_limit_is_413_and_no_job(
    api, small_uploads
) -> None:
    body = (case_line("c-1") + "\n" + case_line("c-2", text="x" * LIMIT) + "\n").encode()

    response = api.post(f"{API}/answers", body, content_type="application/x-ndjson")

    assert response.status_code == 413
    assert response.json()["detail"].startswith("a line is too large: line 2 is ")
    assert "at most 4,096 bytes" in response.json()["detail"]
    assert not Job.objects.exists()


@pytest.mark.parametrize("inline_lines", [1000, 1], ids=["inline", "as-a-job"])
def test_an_api_import_of_too_many_lines_is_refused_before_parsing_or_a_job(
    api, settings, monkeypatch, inline_lines: int
) -> None:
    settings.REVIEW_MAX_IMPORT_LINES = 3
    settings.JOB_INLINE_MAX_LINES = inline_lines
    refuse_parsing(monkeypatch)
    body = "".join(case_line(f"c-{n}") + "\n" for n in range(4))
    before = row_counts()

    response = api.post(f"{API}/cases", body, content_type="application/x-ndjson")

    assert response.status_code == 422
    assert "more than 3 lines" in response.json()["detail"]
    assert row_counts() == before


# --- the proposer's cap and a plan's entries ---------------------------------------------------


@pytest.mark.parametrize("cap", [1, 199])
def test_a_cap_below_the_minimum_is_refused_at_every_door(api, cap: int) -> None:
    document = store_document("n500.md", CODE_TEXT.encode())
    before = row_counts()

    with pytest.raises(ImportRefused, match=f"at least 200, not {cap}"):
        propose_document("long.md", LONG_TEXT.encode(), max_segment_chars=cap)
    response = api.post(
        f"{API}/documents/{document.pk}/propose",
        json.dumps({"max_segment_chars": cap}),
        content_type="application/json",
    )

    assert response.status_code == 422
    assert response.json()["problems"] == [
        f"max-segment-chars must be 0 (no cap) or at least 200, not {cap}"
    ]
    assert row_counts() == before


def test_a_cap_of_the_minimum_or_none_is_taken() -> None:
    capped = propose_document("long.md", LONG_TEXT.encode(), max_segment_chars=200)
    uncapped = propose_document("long.md", LONG_TEXT.encode(), max_segment_chars=0)

    assert capped.created and uncapped.created
    assert capped.entries.count() > uncapped.entries.count()


def test_a_proposal_with_more_entries_than_the_limit_stores_nothing(settings) -> None:
    settings.REVIEW_MAX_PLAN_ENTRIES = 2
    before = row_counts()

    with pytest.raises(ImportRefused, match="the proposal has 4 entries; at most 2 are taken"):
        propose_document("n500.md", CODE_TEXT.encode())

    assert row_counts() == before


def test_an_imported_plan_with_more_entries_than_the_limit_is_refused(api, settings) -> None:
    settings.REVIEW_MAX_PLAN_ENTRIES = 2
    document = store_document("n500.md", CODE_TEXT.encode())
    before = row_counts()

    response = api.post(
        f"{API}/documents/{document.pk}/plans",
        payload_text(proposed_payload()),
        content_type="application/json",
    )

    assert response.status_code == 422
    assert response.json()["problems"][0].startswith("the plan has 3 entries; at most 2")
    assert row_counts() == before


def test_a_jsonl_import_with_more_lines_than_the_limit_is_refused_whole(api, settings) -> None:
    settings.REVIEW_MAX_IMPORT_LINES = 3
    body = "".join(case_line(f"c-{n}") + "\n" for n in range(4))

    response = api.post(f"{API}/cases", body, content_type="application/x-ndjson")

    assert response.status_code == 422
    assert "more than 3 lines" in response.json()["detail"]
    assert row_counts()["Case"] == 0


# --- how deeply JSON nests ------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [65, 5_000, 100_000], ids=["past-the-limit", "deep", "deepest"])
def test_a_deeply_nested_plan_is_refused_at_every_door(
    api, client, editor, tmp_path: Path, depth: int
) -> None:
    document = store_document("n500.md", CODE_TEXT.encode())
    body = nested(depth)
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(body)
    before = row_counts()

    by_api = api.post(
        f"{API}/documents/{document.pk}/plans",
        body,
        content_type="application/json",
    )
    by_form = client.post(
        url_of("plan-upload-plan"),
        {"document": document.pk, "file": SimpleUploadedFile("plan.json", body.encode())},
    )
    with pytest.raises(CommandError) as by_command:
        call_command(
            "import_plan", str(document.pk), str(plan_file), stdout=StringIO(), stderr=StringIO()
        )

    assert by_api.status_code == 422
    assert by_api.json()["problems"] == [
        "the plan is nested too deeply (at most 64 levels of lists and objects are taken)"
    ]
    assert by_form.status_code == 422
    assert "nested too deeply" in by_form.content.decode()
    assert by_command.value.returncode == 2
    assert "nested too deeply" in str(by_command.value)
    assert row_counts() == before


def test_a_plan_nested_to_the_limit_is_judged_on_its_fields_instead(api) -> None:
    document = store_document("n500.md", CODE_TEXT.encode())

    with pytest.raises(ImportRefused) as refused:
        import_plan(document, nested(64))

    assert "nested too deeply" not in str(refused.value)
    assert "proposed_by" in str(refused.value)


# --- pages ------------------------------------------------------------------------------------


def test_the_decision_log_is_read_a_page_at_a_time_following_next(api) -> None:
    rows = [logged("case.uphold", f"2026-12-0{day}T10:00:00+00:00") for day in (3, 1, 2, 1, 4)]
    in_order = sorted(rows, key=lambda row: (row.at, row.pk))

    seen, url, pages = [], f"{API}/decisions?limit=2", 0
    while url:
        page = api.get(url).json()
        seen += [row["id"] for row in page["items"]]
        url, pages = page["next"], pages + 1

    assert seen == [row.pk for row in in_order]
    assert pages == 3


def test_a_page_of_plans_follows_on_from_the_last_one_newest_first(api) -> None:
    for cap in (0, 200, 300):
        propose_document("long.md", LONG_TEXT.encode(), max_segment_chars=cap)

    first = api.get(f"{API}/plans?limit=2").json()
    second = api.get(first["next"]).json()

    ids = [plan["id"] for plan in first["items"] + second["items"]]
    assert ids == sorted(ids, reverse=True)
    assert len(set(ids)) == 3
    assert second["next"] is None


@pytest.mark.parametrize("limit", [0, 501])
def test_a_page_larger_than_the_most_or_empty_is_refused(api, limit: int) -> None:
    response = api.get(f"{API}/decisions?limit={limit}")

    assert response.status_code == 422
    assert response.json()["problems"][0].startswith("query.limit:")


def test_a_cursor_naming_no_decision_is_refused(api) -> None:
    response = api.get(f"{API}/decisions?after=999")

    assert response.status_code == 422
    assert response.json()["problems"] == ["after: there is no decision 999"]
    assert not Decision.objects.exists()


def test_listing_plans_reads_no_document_bytes_text_or_payloads(api) -> None:
    propose_document("n500.md", CODE_TEXT.encode())

    with CaptureQueriesContext(connection) as queries:
        assert api.get(f"{API}/plans").status_code == 200

    selected = " ".join(query["sql"] for query in queries if "review_plan" in query["sql"])
    for column in ('"data"', '"text"', "original_payload", "adjudicated_payload"):
        assert column not in selected


def test_the_dashboard_counts_plans_without_a_distinct_over_their_payloads(client, editor) -> None:
    for cap in (0, 200):
        propose_document("long.md", LONG_TEXT.encode(), max_segment_chars=cap)

    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("dashboard"))

    assert response.status_code == 200
    queue = next(q for q in response.context["queues"] if q["name"].startswith("Plans"))
    assert queue["count"] == 2
    distinct = [query["sql"] for query in queries if "DISTINCT" in query["sql"]]
    assert distinct
    assert not any("original_payload" in sql for sql in distinct)


# --- NUL in a JSON body -------------------------------------------------------------------------


def test_a_nul_in_the_path_prefix_is_refused_on_every_database_and_nothing_stored(api) -> None:
    document = store_document("n500.md", CODE_TEXT.encode())
    before = row_counts()

    response = api.post(
        f"{API}/documents/{document.pk}/propose",
        json.dumps({"path_prefix": "a\u0000b"}),
        content_type="application/json",
    )
    with pytest.raises(ImportRefused, match="path-prefix holds the NUL character"):
        propose_document("n500.md", CODE_TEXT.encode(), path_prefix="a\x00b")

    assert response.status_code == 422
    assert response.json()["problems"] == ["path-prefix holds the NUL character (\\u0000)"]
    assert row_counts() == before


@pytest.mark.parametrize("body", ["[]", "1", '"max_segment_chars"', "null"])
def test_a_propose_body_that_is_not_an_object_is_refused(api, body: str) -> None:
    document = store_document("n500.md", CODE_TEXT.encode())

    response = api.post(
        f"{API}/documents/{document.pk}/propose",
        body,
        content_type="application/json",
    )

    assert response.status_code == 422
    assert response.json()["problems"] == ["body.options: the body must be a JSON object"]
    assert not Plan.objects.exists()


def test_a_missing_plan_is_a_json_404_naming_it(api) -> None:
    response = api.get(f"{API}/plans/999")

    assert response.status_code == 404
    assert response.json() == {
        "detail": "there is no plan 999",
        "problems": ["there is no plan 999"],
    }
