"""A job's page: progress while it runs (polled by htmx), then the result or why it failed,
with a Retry button; the upload form sends a large document there."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from review.adapters.decision_log import decision_log_lines
from review.jobs import start_job
from review.models import Job, JobOutputPart, Membership, Plan
from review.models.projects import default_project_id
from tests.builders.cases_answers import case_line, make_case
from tests.builders.decisions import logged
from tests.builders.urls import url_of

pytestmark = pytest.mark.django_db

GUIDE_PDF = (
    Path(__file__).resolve().parents[2]
    / "review"
    / "demo_data"
    / "veileder-brannsikkerhet-bolig.pdf"
)


def test_a_large_upload_goes_to_its_job_page_and_then_links_the_plan(
    client, editor, settings, django_capture_on_commit_callbacks
) -> None:
    settings.JOB_INLINE_MAX_PDF_PAGES = 1
    upload = SimpleUploadedFile(GUIDE_PDF.name, GUIDE_PDF.read_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url_of("plan-upload-document"), {"file": upload, "path_prefix": "v"})
    job = Job.objects.get()
    assert response.status_code == 302
    assert response["Location"] == url_of("job", job.pk)
    page = client.get(response["Location"]).content.decode()
    plan = Plan.objects.get(pk=job.result["plan"])
    assert f'href="{url_of("plan", plan.pk)}"' in page
    assert "every 1s" not in page  # finished: nothing left to poll


def test_a_small_upload_still_proposes_inline(client, editor, settings) -> None:
    settings.JOB_INLINE_MAX_PDF_PAGES = 2
    upload = SimpleUploadedFile(GUIDE_PDF.name, GUIDE_PDF.read_bytes())
    response = client.post(url_of("plan-upload-document"), {"file": upload})
    assert response["Location"] == url_of("plan", Plan.objects.get().pk)
    assert not Job.objects.exists()


def test_a_queued_job_polls_every_second_and_offers_a_plain_link_too(client, editor) -> None:
    job = start_job(
        Job.Kind.EXPORT_DECISIONS, editor, project=default_project_id()
    )  # no commit, so it stays queued
    page = client.get(url_of("job", job.pk)).content.decode()
    url = url_of("job", job.pk)
    assert f'hx-get="{url}" hx-trigger="every 1s"' in page
    assert f'<a href="{url}">Refresh</a>' in page
    assert "Queued" in page


def test_polling_answers_only_the_status_region(client, editor) -> None:
    job = start_job(
        Job.Kind.IMPORT_CASES, editor, project=default_project_id(), data=b"{}\n{}\n{}\n"
    )
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, progress=2)
    response = client.get(url_of("job", job.pk), headers={"HX-Request": "true"})
    body = response.content.decode()
    assert "<html" not in body
    assert 'id="job-status"' in body
    assert '<progress max="3" value="2"' in body
    assert "2/3 lines read" in body


def test_a_failed_job_shows_why_and_a_retry_that_runs_it_again(
    client, editor, django_capture_on_commit_callbacks
) -> None:
    make_case("c-1", text="Stored first.")
    with django_capture_on_commit_callbacks(execute=True):
        job = start_job(
            Job.Kind.IMPORT_CASES,
            editor,
            project=default_project_id(),
            data=(case_line("c-1") + "\n").encode(),
        )
    page = client.get(url_of("job", job.pk)).content.decode()
    assert "Failed: line 1: case_id &#x27;c-1&#x27; was already imported" in page
    assert f'action="{url_of("job-retry", job.pk)}"' in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url_of("job-retry", job.pk))
    assert response["Location"] == url_of("job", job.pk)
    job.refresh_from_db()
    assert (job.status, job.attempts) == (Job.Status.FAILED, 2)


def test_retry_takes_only_posts(client, editor) -> None:
    job = start_job(Job.Kind.EXPORT_DECISIONS, editor, project=default_project_id())
    assert client.get(url_of("job-retry", job.pk)).status_code == 405


def test_another_persons_job_is_not_found(client, editor, reader) -> None:
    job = start_job(
        Job.Kind.PROPOSE, editor, project=default_project_id(), name="a.md", data=b"# A\n\ntext\n"
    )
    assert client.get(url_of("job", job.pk)).status_code == 404
    assert client.post(url_of("job-retry", job.pk)).status_code == 404


def test_staff_see_every_job(client, editor, django_user_model) -> None:
    job = start_job(Job.Kind.EXPORT_DECISIONS, editor, project=default_project_id())
    client.force_login(django_user_model.objects.create_user("boss", is_staff=True))
    assert client.get(url_of("job", job.pk)).status_code == 200


def test_one_who_may_no_longer_propose_may_not_retry_a_proposal(client, editor) -> None:
    job = start_job(
        Job.Kind.PROPOSE, editor, project=default_project_id(), name="a.md", data=b"# A\n\ntext\n"
    )
    Job.objects.filter(pk=job.pk).update(status=Job.Status.FAILED, error="broken")
    Membership.objects.filter(user=editor).update(editor=False)
    page = client.get(url_of("job", job.pk)).content.decode()
    assert "Failed: broken" in page
    assert "job-retry" not in page and "Retry" not in page
    assert client.post(url_of("job-retry", job.pk)).status_code == 403


def test_the_dashboard_offers_the_log_export(client, reader) -> None:
    page = client.get(reverse("dashboard")).content.decode()
    assert f'action="{url_of("job-export-decisions")}"' in page


def test_the_log_export_downloads_once_done_a_part_at_a_time(
    client, reader, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    for day in range(1, 8):
        logged("case.uphold", f"2026-11-0{day}T10:00:00+00:00")
    monkeypatch.setattr(JobOutputPart, "SIZE", 500)  # a few rows a part
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url_of("job-export-decisions"))
    job = Job.objects.get()
    assert response["Location"] == url_of("job", job.pk)

    download = client.get(url_of("job-download", job.pk))

    assert download["Content-Type"].startswith("application/x-ndjson")
    assert download.streaming
    assert job.output_parts.count() > 1
    assert b"".join(download.streaming_content).decode() == "".join(decision_log_lines())
    assert job.result["bytes"] == len("".join(decision_log_lines()).encode())


def test_an_unfinished_export_has_nothing_to_download(client, reader) -> None:
    job = start_job(Job.Kind.EXPORT_DECISIONS, reader, project=default_project_id())
    assert client.get(url_of("job-download", job.pk)).status_code == 404
