"""A job's page: its progress while the worker runs it (htmx polls the status region), then
a link to what it made, or why it failed with a Retry button. Also starting the whole-log
export, and downloading it.

A job is its starter's (staff see every job): anyone else gets 404, as for a missing one.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from review.jobs import job_status, retry_job, start_job
from review.models import Job
from review.permissions import can_decide_plans, is_member
from review.views import HtmxHttpRequest
from review.views.projects import current_project, project_url


def _get_job_for_user(request: HttpRequest, pk: int) -> Job:
    job = get_object_or_404(Job.objects.select_related("created_by"), pk=pk)
    if not job.visible_to(request.user):
        raise Http404("No such job.")
    return job


def may_start(user, kind: str, project) -> bool:
    """Who may start (and so retry) a job of this kind in `project`: a proposal is an
    editor's; the log's export is every member's, as `GET /api/decisions` is; imports come
    from the API."""
    if kind == Job.Kind.PROPOSE:
        return can_decide_plans(user, project)
    return is_member(user, project)


@require_GET
def job_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    job = job_status(_get_job_for_user(request, pk))
    template = "review/job.html#job-status" if request.htmx else "review/job.html"
    return render(
        request,
        template,
        {
            "job": job,
            "can_retry": job.can_retry and may_start(request.user, job.kind, job.project_id),
        },
    )


@require_POST
def job_retry(request: HttpRequest, pk: int) -> HttpResponse:
    job = _get_job_for_user(request, pk)
    if not may_start(request.user, job.kind, job.project_id):
        raise PermissionDenied("You may not run this job.")
    if not job.can_retry:
        messages.error(request, f"Job {job.pk} has not failed: only a failed job is retried.")
        return redirect(project_url(request, "job", job.pk))
    retry_job(job)
    return redirect(project_url(request, "job", job.pk))


@require_GET
def job_download(request: HttpRequest, pk: int) -> HttpResponse:
    job = _get_job_for_user(request, pk)
    if job.kind != Job.Kind.EXPORT_DECISIONS or job.status != Job.Status.SUCCEEDED:
        raise Http404("This job has no file to download.")
    response = StreamingHttpResponse(
        job.output_chunks(), content_type="application/x-ndjson; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="decisions-job-{job.pk}.jsonl"'
    return response


@require_POST
def export_decisions(request: HttpRequest) -> HttpResponse:
    project = current_project(request)
    if not may_start(request.user, Job.Kind.EXPORT_DECISIONS, project):
        raise Http404("No such project.")
    job = start_job(Job.Kind.EXPORT_DECISIONS, request.user, project=project)
    return redirect(project_url(request, "job", job.pk))
