"""The two JSON-lines imports, cases and answers: alike in their body, their limits and their
answers, so one helper serves both."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from ninja import Router, Schema
from ninja.errors import HttpError

from review.actions.imports import import_answers, import_cases
from review.adapters.jsonl import check_line_count, count_lines, line_longer_than
from review.api.auth import EDITORS_IMPORT_ANSWERS, MODERATORS_IMPORT_CASES, ProjectSlug
from review.api.errors import answers
from review.api.jobs import JobAccepted, accepted
from review.jobs import import_summary, runs_in_background, start_job
from review.middleware import line_limit_message
from review.models import Job
from review.views.projects import current_project

router = Router()


class RejectedLine(Schema):
    line: int
    raw: str
    problem: str


class ImportOut(Schema):
    created: int
    unchanged: int
    rejected: list[RejectedLine]


# What the two JSON-lines imports declare alike: their answers and their request body.
_JSONL_IMPORT = {
    "response": answers({200: ImportOut, 202: JobAccepted}, 403, 422),
    "openapi_extra": {
        "requestBody": {
            "required": True,
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        }
    },
}


@router.post(
    "/cases",
    auth=MODERATORS_IMPORT_CASES,
    summary="Import moderation cases (JSON Lines body); whole or nothing unless skip_invalid",
    **_JSONL_IMPORT,
)
def post_cases(request: HttpRequest, project: ProjectSlug, skip_invalid: bool = False):
    return _import_jsonl(request, Job.Kind.IMPORT_CASES, import_cases, skip_invalid)


@router.post(
    "/answers",
    auth=EDITORS_IMPORT_ANSWERS,
    summary="Import answers (JSON Lines body); whole or nothing unless skip_invalid",
    **_JSONL_IMPORT,
)
def post_answers(request: HttpRequest, project: ProjectSlug, skip_invalid: bool = False):
    return _import_jsonl(request, Job.Kind.IMPORT_ANSWERS, import_answers, skip_invalid)


def _import_jsonl(request: HttpRequest, kind: str, action, skip_invalid: bool):
    """Import the body inline, or keep it for a job when it is large; a body of too many
    lines is refused first, before a line is parsed or a job made."""
    # Read from the stream: `request.body` would refuse a body past Django's
    # DATA_UPLOAD_MAX_MEMORY_SIZE, a bound for forms; this one was bounded before any view
    # ran, by REVIEW_MAX_JOB_UPLOAD_BYTES (review.middleware).
    body = request.read()
    check_line_count(count_lines(body))
    if too_long := line_longer_than(body, settings.REVIEW_MAX_UPLOAD_BYTES):
        raise HttpError(413, line_limit_message(*too_long))
    project = current_project(request)
    if runs_in_background(kind, data=body):
        options = {"skip_invalid": skip_invalid}
        return accepted(start_job(kind, request.auth, project=project, data=body, options=options))
    result = action(body, actor=request.auth, project=project, skip_invalid=skip_invalid)
    return import_summary(result)
