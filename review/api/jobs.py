"""Long work in the background: the job an operation starts (202), and its status."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from django.http import HttpRequest
from django.urls import reverse
from ninja import Router, Schema, Status

from review.api.auth import ProjectSlug
from review.api.errors import answers
from review.jobs import job_status
from review.models import Job
from review.views.projects import current_project

router = Router()


class JobAccepted(Schema):
    job: int
    status_url: str


class JobOut(Schema):
    id: int
    kind: Literal["propose", "import_cases", "import_answers", "export_decisions"]
    status: Literal["queued", "running", "succeeded", "failed"]
    progress: int
    total: int
    unit: str
    result: dict
    error: str
    problems: list[str]
    attempts: int
    created_at: dt.datetime
    started_at: dt.datetime | None
    finished_at: dt.datetime | None


def accepted(job: Job) -> Status:
    url = reverse("api:job", kwargs={"project": job.project.slug, "job_id": job.pk})
    return Status(202, {"job": job.pk, "status_url": url})


@router.get(
    "/jobs/{job_id}",
    response=answers({200: JobOut}, 404, 422),
    url_name="job",
    summary="A background job: its status (queued, running, succeeded, failed), progress "
    "and result, or why it failed",
)
def get_job(request: HttpRequest, project: ProjectSlug, job_id: int):
    job = Job.objects.filter(pk=job_id, project=current_project(request)).first()
    if job is None or not job.visible_to(request.auth):
        missing = f"no job {job_id} of yours"
        return Status(404, {"detail": missing, "problems": [missing]})
    job = job_status(job)
    fields = JobOut.model_fields
    return {name: getattr(job, name) for name in fields}
