"""The JSON API, for pipelines that push proposals and pull decisions.

Every operation needs `Authorization: Bearer <key>` (a key from `manage.py
create_api_token`); only the key's SHA-256 is stored. There is no session and so no CSRF.
The schema is at /api/openapi.json, open to all.

Validation and error messages are the commands' own: both call `review.adapters`. A refusal
answers {"detail": "...", "problems": ["...", ...]}: 422 for input that cannot be imported,
409 for a plan that cannot be exported yet.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from django.contrib.auth.decorators import login_not_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import File, NinjaAPI, Schema, Status, UploadedFile
from ninja.errors import ValidationError
from ninja.security import HttpBearer

from review.adapters.answers import import_answers
from review.adapters.cases import import_cases
from review.adapters.decision_log import decision_as_dict, parse_since
from review.adapters.documents import store_document
from review.adapters.errors import ImportRefused, PlanNotAdjudicable
from review.adapters.jsonl import ImportResult
from review.adapters.plans import (
    export_plan,
    import_plan,
    propose_document,
)
from review.agreement import agreement
from review.decisions import decisions_since
from review.insights import Filters, insights
from review.models import ApiToken, Document, Plan
from review.permissions import can_read_insights


class ReviewAPI(NinjaAPI):
    """Token-authenticated: exempt from the site's LoginRequiredMiddleware, which would
    otherwise send a pipeline to the login page."""

    def _get_urls(self):
        patterns = super()._get_urls()
        for pattern in patterns:
            login_not_required(pattern.callback)
        return patterns


class BearerKey(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str):
        digest = hashlib.sha256(token.encode()).hexdigest()
        found = ApiToken.objects.select_related("user").filter(key_sha256=digest).first()
        if found is None or not found.user.is_active:
            return None
        return found.user


api = ReviewAPI(
    title="Grounding Review API",
    description="Push documents, plans, cases and answers; pull plans and decisions.",
    urls_namespace="api",
    openapi_url="/openapi.json",
    # Swagger UI would load its assets from a CDN; the schema is what pipelines need.
    docs_url=None,
    auth=BearerKey(),
)


# --- schemas ------------------------------------------------------------------------------


class Refusal(Schema):
    detail: str
    problems: list[str]


class DocumentOut(Schema):
    id: int
    name: str
    media_type: str
    sha256: str
    extractor_id: str
    extractor_version: str
    text_chars: int
    created_at: dt.datetime


class ProposeIn(Schema):
    max_segment_chars: int = 0
    path_prefix: str = ""


class AnchorOut(Schema):
    quote: str
    prefix: str
    suffix: str


class EntryOut(Schema):
    id: int
    position: int
    path: str
    title: str
    span: tuple[int, int]
    anchor: AnchorOut
    rules: list[str]
    anchor_status: str
    anchor_score: float
    anchor_confirmed: bool
    state: str
    decided_by: str | None
    decided_at: dt.datetime | None
    note: str
    version: int


class PlanSummaryOut(Schema):
    id: int
    document_id: int
    document_name: str
    status: str
    source_sha256: str
    extractor_id: str
    extractor_version: str
    proposed_by: str
    options: dict
    version: int
    created_at: dt.datetime
    adjudicated_by: str | None
    adjudicated_at: dt.datetime | None


class PlanOut(PlanSummaryOut):
    entries: list[EntryOut]


class RejectedLine(Schema):
    line: int
    raw: str
    problem: str


class ImportOut(Schema):
    created: int
    unchanged: int
    rejected: list[RejectedLine]


class DecisionOut(Schema):
    id: int
    at: dt.datetime
    actor: str
    action: str
    object_type: str
    object_id: str
    before: dict
    after: dict
    note: str
    undoes: int | None


# --- errors -------------------------------------------------------------------------------


def _refusal(request: HttpRequest, error: ImportRefused, status: int) -> HttpResponse:
    problems = error.problems
    detail = problems[0] if len(problems) == 1 else f"refused: {len(problems)} problems"
    return api.create_response(request, {"detail": detail, "problems": problems}, status=status)


@api.exception_handler(ImportRefused)
def import_refused(request: HttpRequest, error: ImportRefused) -> HttpResponse:
    return _refusal(request, error, 422)


@api.exception_handler(PlanNotAdjudicable)
def plan_not_adjudicable(request: HttpRequest, error: PlanNotAdjudicable) -> HttpResponse:
    return _refusal(request, error, 409)


@api.exception_handler(ValidationError)
def request_not_valid(request: HttpRequest, error: ValidationError) -> HttpResponse:
    # The same shape as every other refusal: one line per problem, naming where it is.
    problems = [
        f"{'.'.join(str(part) for part in item.get('loc', ()))}: {item.get('msg', 'invalid')}"
        for item in error.errors
    ]
    return _refusal(request, ImportRefused(problems), 422)


# --- documents and plans ------------------------------------------------------------------


def _document_out(document: Document) -> dict:
    return {
        "id": document.pk,
        "name": document.name,
        "media_type": document.media_type,
        "sha256": document.sha256,
        "extractor_id": document.extractor_id,
        "extractor_version": document.extractor_version,
        "text_chars": len(document.text),
        "created_at": document.created_at,
    }


def _plan_summary(plan: Plan) -> dict:
    return {
        "id": plan.pk,
        "document_id": plan.document_id,
        "document_name": plan.document.name,
        "status": plan.status,
        "source_sha256": plan.source_sha256,
        "extractor_id": plan.extractor_id,
        "extractor_version": plan.extractor_version,
        "proposed_by": plan.proposed_by,
        "options": plan.options,
        "version": plan.version,
        "created_at": plan.created_at,
        "adjudicated_by": plan.adjudicated_by.username if plan.adjudicated_by_id else None,
        "adjudicated_at": plan.adjudicated_at,
    }


def _plan_out(plan: Plan) -> dict:
    entries = plan.entries.select_related("decided_by").order_by("position")
    return {
        **_plan_summary(plan),
        "entries": [
            {
                "id": entry.pk,
                "position": entry.position,
                "path": entry.path,
                "title": entry.title,
                "span": (entry.span_start, entry.span_end),
                "anchor": {"quote": entry.quote, "prefix": entry.prefix, "suffix": entry.suffix},
                "rules": entry.rules,
                "anchor_status": entry.anchor_status,
                "anchor_score": entry.anchor_score,
                "anchor_confirmed": entry.anchor_confirmed,
                "state": entry.state,
                "decided_by": entry.decided_by.username if entry.decided_by_id else None,
                "decided_at": entry.decided_at,
                "note": entry.note,
                "version": entry.version,
            }
            for entry in entries
        ],
    }


def _plans() -> object:
    # Double review: an editor's own review copy is theirs alone, not a plan of the API.
    return Plan.objects.filter(review_of__isnull=True).select_related("document", "adjudicated_by")


@api.post(
    "/documents",
    response={200: DocumentOut, 201: DocumentOut, 422: Refusal},
    summary="Store a document (multipart field 'file'); 200 when these bytes are already stored",
)
def post_document(request: HttpRequest, file: File[UploadedFile]):
    data = file.read()
    already = Document.objects.filter(sha256=hashlib.sha256(data).hexdigest()).exists()
    document = store_document(file.name or "", data)
    return Status(200 if already else 201, _document_out(document))


@api.post(
    "/documents/{document_id}/propose",
    response={200: PlanOut, 201: PlanOut, 404: Refusal, 422: Refusal},
    summary="Run the proposer on a stored document; 200 when that plan already exists",
)
def propose(request: HttpRequest, document_id: int, options: ProposeIn):
    document = get_object_or_404(Document, pk=document_id)
    # Nothing to propose is a refusal like any other here: 422, and nothing stored.
    plan = propose_document(
        document.name,
        bytes(document.data),
        max_segment_chars=options.max_segment_chars,
        path_prefix=options.path_prefix,
        actor=request.auth,
    )
    return Status(201 if plan.created else 200, _plan_out(plan))


@api.post(
    "/documents/{document_id}/plans",
    response={200: PlanOut, 201: PlanOut, 404: Refusal, 422: Refusal},
    summary="Import a plan proposed elsewhere (the request body is the plan's JSON)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    },
)
def post_plan(request: HttpRequest, document_id: int):
    document = get_object_or_404(Document, pk=document_id)
    with transaction.atomic():
        plan = import_plan(document, request.body, actor=request.auth)
    return Status(201 if plan.created else 200, _plan_out(plan))


@api.get("/plans", response=list[PlanSummaryOut], summary="Plans, newest first")
def list_plans(request: HttpRequest, document_id: int | None = None, status: str | None = None):
    plans = _plans()
    if document_id is not None:
        plans = plans.filter(document_id=document_id)
    if status:
        plans = plans.filter(status=status)
    return [_plan_summary(plan) for plan in plans]


@api.get("/plans/{plan_id}", response={200: PlanOut, 404: Refusal}, summary="A plan's entries")
def get_plan(request: HttpRequest, plan_id: int):
    return _plan_out(get_object_or_404(_plans(), pk=plan_id))


@api.get(
    "/plans/{plan_id}/export",
    response={200: dict, 404: Refusal, 409: Refusal},
    summary="The adjudicated plan's JSON; 409 naming the undecided entries otherwise",
)
def get_plan_export(request: HttpRequest, plan_id: int):
    plan = get_object_or_404(Plan, pk=plan_id)
    # The frozen text itself, byte for byte, not a re-serialisation of it.
    return HttpResponse(export_plan(plan), content_type="application/json; charset=utf-8")


# --- cases, answers, decisions ------------------------------------------------------------

# What the two JSON-lines imports declare alike: their answers and their request body.
_JSONL_IMPORT = {
    "response": {200: ImportOut, 422: Refusal},
    "openapi_extra": {
        "requestBody": {
            "required": True,
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        }
    },
}


def _import_out(result: ImportResult) -> dict:
    return {
        "created": result.created,
        "unchanged": result.unchanged,
        "rejected": [
            {"line": number, "raw": raw, "problem": problem}
            for number, raw, problem in result.rejected
        ],
    }


@api.post(
    "/cases",
    summary="Import moderation cases (JSON Lines body); whole or nothing unless skip_invalid",
    **_JSONL_IMPORT,
)
def post_cases(request: HttpRequest, skip_invalid: bool = False):
    return _import_out(import_cases(request.body, skip_invalid=skip_invalid))


@api.post(
    "/answers",
    summary="Import answers (JSON Lines body); whole or nothing unless skip_invalid",
    **_JSONL_IMPORT,
)
def post_answers(request: HttpRequest, skip_invalid: bool = False):
    return _import_out(import_answers(request.body, skip_invalid=skip_invalid))


@api.get(
    "/decisions",
    response={200: list[DecisionOut], 422: Refusal},
    summary="The decision log, oldest first; since= a date or ISO date and time (inclusive)",
)
def list_decisions(request: HttpRequest, since: str | None = None):
    moment = parse_since(since) if since else None
    return [decision_as_dict(row) for row in decisions_since(moment)]


# --- insights -----------------------------------------------------------------------------


@api.get(
    "/insights",
    response={200: dict, 403: Refusal},
    url_name="insights",
    summary="What the decisions teach: the rules' ledger, the validator's reasons, "
    "finalization, week by week (the /insights/ page's figures)",
)
def get_insights(
    request: HttpRequest,
    document: int | None = None,
    version: str = "",
    model: str = "",
    rule: str = "",
    weeks: int = 12,
):
    if not can_read_insights(request.auth):
        refusal = "the insights are for editors, moderators and curators"
        return Status(403, {"detail": refusal, "problems": [refusal]})
    query = {"version": version, "model": model, "rule": rule, "weeks": str(weeks)}
    if document is not None:
        query["document"] = str(document)
    return insights(Filters.from_query(query)).to_dict()


# --- agreement (double review) ---------------------------------------------------------------


@api.get(
    "/agreement",
    response={200: dict, 403: Refusal},
    url_name="agreement",
    summary="How far reviewers agree under double review: κ and α with 95 % bootstrap "
    "intervals, per pair, per reviewer against the outcome, per validator reason, and curation",
)
def get_agreement(request: HttpRequest):
    if not can_read_insights(request.auth):
        refusal = "the agreement figures are for editors, moderators and curators"
        return Status(403, {"detail": refusal, "problems": [refusal]})
    return agreement().to_dict()
