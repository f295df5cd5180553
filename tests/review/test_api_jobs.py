"""The JSON API for long work: 202 with a status URL for a large input, and GET
/api/projects/{project}/jobs/{id}."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from review.adapters.documents import store_document
from review.models import Case, Job
from review.models.projects import default_project_id
from tests.builders.api import API, api_client, pipeline_user

pytestmark = pytest.mark.django_db

DEMO_DATA = Path(__file__).resolve().parents[2] / "review" / "demo_data"


@pytest.fixture
def api(settings) -> Client:
    settings.JOB_INLINE_MAX_PDF_PAGES = 1
    settings.JOB_INLINE_MAX_LINES = 10
    pipeline_user()
    return api_client()


def test_proposing_a_long_pdf_answers_202_with_the_jobs_status_url(
    api, django_capture_on_commit_callbacks
) -> None:
    pdf = DEMO_DATA / "veileder-brannsikkerhet-bolig.pdf"
    document = store_document(pdf.name, pdf.read_bytes())
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            f"{API}/documents/{document.pk}/propose",
            '{"path_prefix": "veileder"}',
            content_type="application/json",
        )
    assert response.status_code == 202
    job = Job.objects.get()
    assert response.json() == {"job": job.pk, "status_url": f"{API}/jobs/{job.pk}"}
    status = api.get(response.json()["status_url"]).json()
    assert status["status"] == "succeeded"
    assert (status["progress"], status["total"], status["unit"]) == (2, 2, "pages extracted")
    assert api.get(f"{API}/plans/{status['result']['plan']}").json()["options"]["path_prefix"] == (
        "veileder"
    )


def test_a_large_cases_import_answers_202_and_its_job_reports_the_counts(
    api, django_capture_on_commit_callbacks
) -> None:
    body = (DEMO_DATA / "cases.jsonl").read_bytes()
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"{API}/cases", body, content_type="application/x-ndjson")
    assert response.status_code == 202
    status = api.get(response.json()["status_url"]).json()
    assert status["status"] == "succeeded"
    assert status["progress"] == status["total"] == len(body.splitlines())
    assert status["result"]["created"] == Case.objects.count() == len(body.splitlines())


def test_a_failed_job_reports_its_reasons(api, django_capture_on_commit_callbacks) -> None:
    body = b"not json\n" * 11
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"{API}/answers?skip_invalid=false", body, content_type="text/plain")
    status = api.get(response.json()["status_url"]).json()
    assert status["status"] == "failed"
    assert len(status["problems"]) == 11
    assert status["problems"][0].startswith("line 1: not valid JSON")
    assert status["error"] == "refused: 11 problems"


def test_a_small_import_still_answers_at_once(api) -> None:
    body = b"".join((DEMO_DATA / "cases.jsonl").read_bytes().splitlines(keepends=True)[:3])
    response = api.post(f"{API}/cases", body, content_type="application/x-ndjson")
    assert response.status_code == 200
    assert response.json()["created"] == 3
    assert not Job.objects.exists()


def test_another_users_job_is_not_found(api, django_user_model) -> None:
    other = django_user_model.objects.create_user("someone-else")
    job = Job.objects.create(
        project_id=default_project_id(), kind=Job.Kind.EXPORT_DECISIONS, created_by=other
    )
    response = api.get(f"{API}/jobs/{job.pk}")
    assert response.status_code == 404
    assert response.json()["detail"] == f"no job {job.pk} of yours"


def test_the_schema_declares_the_202_and_every_job_status(client: Client) -> None:
    schema = client.get("/api/openapi.json").json()
    paths = schema["paths"]
    assert (
        "202"
        in paths["/api/projects/{project}/documents/{document_id}/propose"]["post"]["responses"]
    )
    assert "202" in paths["/api/projects/{project}/cases"]["post"]["responses"]
    assert "202" in paths["/api/projects/{project}/answers"]["post"]["responses"]
    job = schema["components"]["schemas"]["JobOut"]["properties"]
    assert set(job["status"]["enum"]) == set(Job.Status.values)
    assert set(job["kind"]["enum"]) == set(Job.Kind.values)
