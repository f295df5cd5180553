"""Jobs: which inputs go to the background, and what a job records as it runs (progress,
its result, why it failed) and keeps (its input, for a retry). These run the jobs in the
test's thread (the immediate backend); tests/review/test_job_worker.py runs the real worker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from review.jobs import retry_job, runs_in_background, start_job
from review.models import Case, Job, Plan
from review.models.projects import default_project_id
from tests.builders.cases_answers import case_line, make_case
from tests.builders.decisions import logged
from tests.builders.plan_views import handbook_text

pytestmark = pytest.mark.django_db

DEMO_DATA = Path(__file__).resolve().parents[2] / "review" / "demo_data"
GUIDE_PDF = DEMO_DATA / "veileder-brannsikkerhet-bolig.pdf"
CASES = DEMO_DATA / "cases.jsonl"


@pytest.fixture
def small_limits(settings):
    settings.JOB_INLINE_MAX_BYTES = 4000
    settings.JOB_INLINE_MAX_PDF_PAGES = 1
    settings.JOB_INLINE_MAX_LINES = 10


def run(callbacks, kind, user, **kwargs) -> Job:
    with callbacks(execute=True):
        job = start_job(kind, user, project=default_project_id(), **kwargs)
    job.refresh_from_db()
    return job


# --- what goes to the background ---------------------------------------------------------


def test_a_document_over_the_byte_limit_runs_in_the_background(small_limits) -> None:
    big = handbook_text(40).encode()
    assert len(big) > 4000
    assert runs_in_background(Job.Kind.PROPOSE, "handbook.md", big)
    assert not runs_in_background(Job.Kind.PROPOSE, "handbook.md", handbook_text(2).encode())


def test_a_pdf_over_the_page_limit_runs_in_the_background(small_limits, settings) -> None:
    data = GUIDE_PDF.read_bytes()
    assert runs_in_background(Job.Kind.PROPOSE, GUIDE_PDF.name, data)
    settings.JOB_INLINE_MAX_PDF_PAGES = 2
    assert not runs_in_background(Job.Kind.PROPOSE, GUIDE_PDF.name, data)


def test_an_unreadable_pdf_stays_inline_where_its_refusal_is_seen_at_once(small_limits) -> None:
    assert not runs_in_background(Job.Kind.PROPOSE, "broken.pdf", b"%PDF-1.4 not really")


def test_a_jsonl_file_over_the_line_limit_runs_in_the_background(small_limits, settings) -> None:
    settings.JOB_INLINE_MAX_BYTES = 1024 * 1024
    lines = CASES.read_bytes().splitlines(keepends=True)
    assert runs_in_background(Job.Kind.IMPORT_CASES, data=b"".join(lines[:11]))
    assert not runs_in_background(Job.Kind.IMPORT_CASES, data=b"".join(lines[:10]))


def test_the_whole_log_export_always_runs_in_the_background() -> None:
    assert runs_in_background(Job.Kind.EXPORT_DECISIONS)


# --- running -----------------------------------------------------------------------------


def test_a_proposal_job_counts_the_pdf_pages_and_links_the_plan(
    editor, django_capture_on_commit_callbacks
) -> None:
    job = run(
        django_capture_on_commit_callbacks,
        Job.Kind.PROPOSE,
        editor,
        name=GUIDE_PDF.name,
        data=GUIDE_PDF.read_bytes(),
        options={"max_segment_chars": 0, "path_prefix": "veileder-bolig"},
    )
    assert job.status == Job.Status.SUCCEEDED
    assert (job.progress, job.total) == (2, 2)
    plan = Plan.objects.get(pk=job.result["plan"])
    assert plan.document.name == GUIDE_PDF.name
    assert plan.options["path_prefix"] == "veileder-bolig"
    assert job.result["entries"] == plan.entries.count() > 0
    assert job.attempts == 1 and job.finished_at is not None


def test_an_import_job_counts_every_line_and_keeps_the_summary(
    editor, django_capture_on_commit_callbacks
) -> None:
    data = CASES.read_bytes()
    job = run(django_capture_on_commit_callbacks, Job.Kind.IMPORT_CASES, editor, data=data)
    assert job.status == Job.Status.SUCCEEDED
    assert job.progress == job.total == len(data.splitlines())
    assert job.result == {"created": Case.objects.count(), "unchanged": 0, "rejected": []}


def test_an_export_job_keeps_the_same_lines_the_command_writes(
    reader, django_capture_on_commit_callbacks, tmp_path
) -> None:
    logged("accept", "2026-11-02T10:00:00+00:00")
    logged("reject", "2026-11-03T10:00:00+00:00")
    job = run(django_capture_on_commit_callbacks, Job.Kind.EXPORT_DECISIONS, reader)
    call_command("export_decisions", out=str(tmp_path / "log.jsonl"))
    assert b"".join(job.output_chunks()) == (tmp_path / "log.jsonl").read_bytes()
    assert (job.progress, job.total, job.result["decisions"]) == (2, 2, 2)


def test_a_refused_import_fails_with_its_reasons_and_keeps_its_input(
    editor, django_capture_on_commit_callbacks
) -> None:
    make_case("c-1001", text="What was stored first.")
    data = (case_line("c-1001") + "\n" + case_line("c-1002") + "\n").encode()
    job = run(django_capture_on_commit_callbacks, Job.Kind.IMPORT_CASES, editor, data=data)
    assert job.status == Job.Status.FAILED
    assert "line 1: case_id 'c-1001' was already imported with different content" in job.error
    assert bytes(job.input_data) == data
    assert not Case.objects.filter(case_id="c-1002").exists()


def test_a_failed_job_is_retried_with_its_kept_input_after_the_fix(
    editor, django_capture_on_commit_callbacks
) -> None:
    make_case("c-1001", text="What was stored first.")
    data = (case_line("c-1001") + "\n").encode()
    job = run(django_capture_on_commit_callbacks, Job.Kind.IMPORT_CASES, editor, data=data)
    assert job.status == Job.Status.FAILED
    Case.objects.filter(case_id="c-1001").delete()  # the fix: the stale record goes
    with django_capture_on_commit_callbacks(execute=True):
        retry_job(job)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED
    assert (job.attempts, job.error, job.problems) == (2, "", [])
    assert job.result["created"] == 1
    stored = Case.objects.get(case_id="c-1001")
    assert stored.content_text == json.loads(data)["content"]["text"]


def test_only_a_failed_job_is_retried(editor, django_capture_on_commit_callbacks) -> None:
    job = run(django_capture_on_commit_callbacks, Job.Kind.EXPORT_DECISIONS, editor)
    with pytest.raises(ValueError, match="only a failed job is retried"):
        retry_job(job)
