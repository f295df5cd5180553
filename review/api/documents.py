"""Documents: storing one, proposing a plan for it, importing a plan for it, and its next
revision."""

from __future__ import annotations

import datetime as dt
import hashlib

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from ninja import File, Router, Schema, Status, UploadedFile
from ninja.errors import HttpError
from pydantic import ConfigDict, model_validator

from review.actions.documents import propose_document, store_document
from review.actions.imports import import_annotations, import_label_studio, import_plan
from review.actions.revisions import add_revision
from review.api.auth import (
    EDITORS_IMPORT_PLANS,
    EDITORS_PROPOSE,
    EDITORS_PUSH_DOCUMENTS,
    EDITORS_PUSH_REVISIONS,
    ProjectSlug,
)
from review.api.errors import answers, found
from review.api.jobs import JobAccepted, accepted
from review.api.plans import PlanOut, PlanSummaryOut, plan_out, plan_summary
from review.jobs import runs_in_background, start_job
from review.middleware import upload_limit_message
from review.models import Document, Job
from review.views.projects import current_project, in_current_project

router = Router()


class DocumentOut(Schema):
    id: int
    name: str
    media_type: str
    sha256: str
    extractor_id: str
    extractor_version: str
    text_chars: int
    revision: int
    revision_of: int | None
    created_at: dt.datetime


class ProposeIn(Schema):
    # An unknown key is a typo that would otherwise be ignored without a word.
    model_config = ConfigDict(extra="forbid")

    max_segment_chars: int = 0
    path_prefix: str = ""

    @model_validator(mode="before")
    @classmethod
    def _an_object(cls, value):
        if not isinstance(value, dict) and not hasattr(value, "__dict__"):
            raise ValueError("the body must be a JSON object")
        return value


class GoneOut(Schema):
    entry: int
    path: str
    title: str
    state: str


class RevisionOut(Schema):
    document: DocumentOut
    plan: PlanSummaryOut | None
    carried: int
    need_you: int
    gone: list[GoneOut]


def _document_out(document: Document) -> dict:
    return {
        "id": document.pk,
        "name": document.name,
        "media_type": document.media_type,
        "sha256": document.sha256,
        "extractor_id": document.extractor_id,
        "extractor_version": document.extractor_version,
        "text_chars": len(document.text),
        "revision": document.revision,
        "revision_of": document.revision_of_id,
        "created_at": document.created_at,
    }


@router.post(
    "/documents",
    auth=EDITORS_PUSH_DOCUMENTS,
    response=answers({200: DocumentOut, 201: DocumentOut}, 403, 422),
    summary="Store a document (multipart field 'file'); 200 when these bytes are already stored",
)
def post_document(request: HttpRequest, project: ProjectSlug, file: File[UploadedFile]):
    if file.size is not None and file.size > settings.REVIEW_MAX_UPLOAD_BYTES:
        raise HttpError(413, upload_limit_message(file.size))
    data = file.read()
    project = current_project(request)
    digest = hashlib.sha256(data).hexdigest()
    already = Document.objects.filter(project=project, sha256=digest).exists()
    document = store_document(file.name or "", data, actor=request.auth, project=project)
    return Status(200 if already else 201, _document_out(document))


@router.post(
    "/documents/{document_id}/propose",
    auth=EDITORS_PROPOSE,
    response=answers({200: PlanOut, 201: PlanOut, 202: JobAccepted}, 403, 404, 422),
    summary="Run the proposer on a stored document; 200 when that plan already exists; "
    "202 with a job's status URL when the document is large",
)
def propose(request: HttpRequest, project: ProjectSlug, document_id: int, options: ProposeIn):
    documents = in_current_project(request, Document.objects).only("project", "name", "data")
    document = found(documents, "document", document_id)
    data = bytes(document.data)
    if runs_in_background(Job.Kind.PROPOSE, document.name, data):
        return accepted(
            start_job(
                Job.Kind.PROPOSE,
                request.auth,
                project=document.project_id,
                name=document.name,
                data=data,
                options=options.dict(),
            )
        )
    # Nothing to propose is a refusal like any other here: 422, and nothing stored.
    plan = propose_document(
        document.name,
        bytes(document.data),
        max_segment_chars=options.max_segment_chars,
        path_prefix=options.path_prefix,
        actor=request.auth,
        project=document.project_id,
    )
    return Status(201 if plan.created else 200, plan_out(plan))


def _imported(request: HttpRequest, document_id: int, importer) -> Status:
    """The plan `importer` proposes on the document from the request's body, whatever its
    format: 201 when it is new, 200 when the same proposal was imported before."""
    document = found(in_current_project(request, Document.objects), "document", document_id)
    with transaction.atomic():
        plan = importer(document, request.body, actor=request.auth)
    return Status(201 if plan.created else 200, plan_out(plan))


@router.post(
    "/documents/{document_id}/plans",
    auth=EDITORS_IMPORT_PLANS,
    response=answers({200: PlanOut, 201: PlanOut}, 403, 404, 422),
    summary="Import a plan proposed elsewhere (the request body is the plan's JSON)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    },
)
def post_plan(request: HttpRequest, project: ProjectSlug, document_id: int):
    return _imported(request, document_id, import_plan)


@router.post(
    "/documents/{document_id}/annotations",
    auth=EDITORS_IMPORT_PLANS,
    response=answers({200: PlanOut, 201: PlanOut}, 403, 404, 422),
    summary="Import a W3C Web Annotation collection (JSON-LD) as a proposed plan; its "
    "decisions are never read",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/ld+json": {"schema": {"type": "object"}}},
        }
    },
)
def post_annotations(request: HttpRequest, project: ProjectSlug, document_id: int):
    return _imported(request, document_id, import_annotations)


@router.post(
    "/documents/{document_id}/label-studio",
    auth=EDITORS_IMPORT_PLANS,
    response=answers({200: PlanOut, 201: PlanOut}, 403, 404, 422),
    summary="Import a Label Studio JSON export: the labelling of the task whose text is the "
    "document's, as a proposed plan",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"type": "array", "items": {}}}},
        }
    },
)
def post_label_studio(request: HttpRequest, project: ProjectSlug, document_id: int):
    return _imported(request, document_id, import_label_studio)


@router.post(
    "/documents/{document_id}/revisions",
    auth=EDITORS_PUSH_REVISIONS,
    response=answers({201: RevisionOut}, 403, 404, 422),
    summary="Store the next revision of a document (multipart field 'file') and carry its "
    "latest plan onto it",
)
def post_revision(
    request: HttpRequest, project: ProjectSlug, document_id: int, file: File[UploadedFile]
):
    if file.size is not None and file.size > settings.REVIEW_MAX_UPLOAD_BYTES:
        raise HttpError(413, upload_limit_message(file.size))
    document = found(in_current_project(request, Document.objects), "document", document_id)
    revised = add_revision(document, file.name or "", file.read(), actor=request.auth)
    plan = revised.plan
    return Status(
        201,
        {
            "document": _document_out(revised.revision),
            "plan": plan_summary(plan) if plan else None,
            "carried": len(revised.carried),
            "need_you": plan.counts.need_you if plan else 0,
            "gone": plan.options.get("gone", []) if plan else [],
        },
    )
