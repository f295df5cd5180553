"""A job whose worker died is reaped: running, and not heard from (its start, its progress) for
JOB_HEARTBEAT_SECONDS, it is marked failed with that reason and can be retried. Whoever reads
its status reaps it, and so does the worker as it starts a job. tests/review/test_job_worker.py
kills a real worker mid-job."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from review.jobs import reap_dead_jobs, retry_job, start_job
from review.models import Job
from review.models.projects import default_project_id
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.cases_answers import case_line

pytestmark = pytest.mark.django_db

HEARTBEAT = 60


@pytest.fixture(autouse=True)
def heartbeat(settings):
    settings.JOB_HEARTBEAT_SECONDS = HEARTBEAT


def job_of(user, *, status=Job.Status.RUNNING, heard_seconds_ago=None, started_seconds_ago=None):
    """A job of `user` in `status`, last heard from (and started) that many seconds ago."""
    job = start_job(
        Job.Kind.IMPORT_CASES,
        user,
        project=default_project_id(),
        data=(case_line("c-1") + "\n").encode(),
    )
    now = timezone.now()
    ago = {
        "heartbeat_at": heard_seconds_ago,
        "started_at": started_seconds_ago if started_seconds_ago is not None else heard_seconds_ago,
    }
    changes = {name: now - timedelta(seconds=s) for name, s in ago.items() if s is not None}
    Job.objects.filter(pk=job.pk).update(status=status, **changes)
    return Job.objects.get(pk=job.pk)


def test_a_running_job_not_heard_from_for_the_heartbeat_is_failed_with_why_and_retried(editor):
    job = job_of(editor, heard_seconds_ago=HEARTBEAT + 5)

    assert reap_dead_jobs() == 1

    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and job.finished_at is not None
    assert job.error.startswith("the worker stopped: nothing was heard from this job for 60")
    assert job.problems == [job.error]
    retry_job(job)
    assert Job.objects.get(pk=job.pk).status == Job.Status.QUEUED


def test_a_job_heard_from_lately_or_not_running_is_left_alone(editor):
    lately = job_of(editor, heard_seconds_ago=HEARTBEAT - 5, started_seconds_ago=HEARTBEAT * 10)
    queued = job_of(editor, status=Job.Status.QUEUED)
    done = job_of(editor, status=Job.Status.SUCCEEDED, heard_seconds_ago=HEARTBEAT * 10)

    assert reap_dead_jobs() == 0

    statuses = [Job.objects.get(pk=job.pk).status for job in (lately, queued, done)]
    assert statuses == [Job.Status.RUNNING, Job.Status.QUEUED, Job.Status.SUCCEEDED]


def test_a_running_job_without_a_heartbeat_is_judged_by_its_start(editor):
    # A job started before heartbeats were kept.
    job = job_of(editor, started_seconds_ago=HEARTBEAT + 5)
    assert job.heartbeat_at is None

    assert reap_dead_jobs() == 1


@pytest.mark.parametrize("status", Job.Status.values)
@pytest.mark.parametrize("heard", [None, HEARTBEAT - 5, HEARTBEAT + 5])
@pytest.mark.parametrize("started", [None, HEARTBEAT - 5, HEARTBEAT + 5])
def test_a_job_and_its_queryset_twin_agree_on_what_is_unheard(editor, status, heard, started):
    job = job_of(editor, status=status, heard_seconds_ago=heard, started_seconds_ago=started)
    moment = timezone.now() - timedelta(seconds=HEARTBEAT)

    assert job.unheard_since(moment) == Job.objects.unheard_since(moment).filter(pk=job.pk).exists()


def test_the_job_page_reaps_the_job_it_shows_and_offers_the_retry(client, editor):
    job = job_of(editor, heard_seconds_ago=HEARTBEAT + 5)
    client.force_login(editor)

    body = client.get(f"/p/default/jobs/{job.pk}/", headers={"HX-Request": "true"}).content.decode()

    assert "<html" not in body
    assert "Failed: the worker stopped" in body
    assert f'action="/p/default/jobs/{job.pk}/retry/"' in body
    assert Job.objects.get(pk=job.pk).status == Job.Status.FAILED


def test_the_api_reaps_the_job_it_reports():
    job = job_of(pipeline_user(), heard_seconds_ago=HEARTBEAT + 5)

    status = api_client().get(f"{API}/jobs/{job.pk}").json()

    assert status["status"] == "failed"
    assert status["error"].startswith("the worker stopped")


def test_another_user_reading_a_job_reaps_nothing(client, editor, moderator):
    job = job_of(editor, heard_seconds_ago=HEARTBEAT + 5)
    client.force_login(moderator)

    assert client.get(f"/p/default/jobs/{job.pk}/").status_code == 404
    assert Job.objects.get(pk=job.pk).status == Job.Status.RUNNING
