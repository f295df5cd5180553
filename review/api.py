"""The JSON API, for pipelines that push proposals and pull decisions.

Every operation needs `Authorization: Bearer <key>` (a key from `manage.py
create_api_token`); only the key's SHA-256 is stored. There is no session and so no CSRF.
The schema is at /api/openapi.json, open to all.

Roles are the web's own (`review.permissions`): pushing documents and plans and importing
answers needs an Editor, importing cases a Moderator; any token may read. Staff may do all.

Validation and error messages are the commands' own: both call `review.adapters`. Every
refusal answers {"detail": "...", "problems": ["...", ...]}: 400 for a request that cannot be
read (a NUL in the query), 401 without a valid token, 403 for a role that may not, 404 for
nothing there, 409 for a plan that cannot be exported yet, 413 for a body over the upload
limit (a JSON-lines import: over the job's limit, or a line over the upload limit), 422 for
input that cannot be imported.

Lists are read a page at a time: `?after=<the last id seen>&limit=`, with `next` the URL of
the following page (null on the last).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from typing import Literal

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET
from ninja import Field, File, NinjaAPI, Query, Schema, Status, UploadedFile
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.security import HttpBearer
from pydantic import ConfigDict, model_validator

from review.actions.revisions import add_revision
from review.adapters.answers import import_answers
from review.adapters.cases import import_cases
from review.adapters.decision_log import decision_as_dict, parse_since
from review.adapters.documents import store_document
from review.adapters.errors import ImportRefused, PlanNotAdjudicable
from review.adapters.jsonl import check_line_count, count_lines, line_longer_than
from review.adapters.plans import (
    export_plan,
    import_plan,
    propose_document,
)
from review.agreement import agreement
from review.decisions import decisions_since
from review.insights import Filters, insights
from review.jobs import import_summary, job_status, runs_in_background, start_job
from review.middleware import line_limit_message, upload_limit_message
from review.models import ApiToken, Decision, Document, Job, Plan
from review.permissions import (
    can_decide_answers,
    can_decide_cases,
    can_decide_plans,
    can_read_insights,
)


class ReviewAPI(NinjaAPI):
    """Token-authenticated: exempt from the site's LoginRequiredMiddleware, which would
    otherwise send a pipeline to the login page."""

    def _get_urls(self):
        patterns = super()._get_urls()
        for pattern in patterns:
            if pattern.name == "openapi-json":
                # django-ninja serves the schema to any method; a POST is a mistake.
                pattern.callback = require_GET(pattern.callback)
            login_not_required(pattern.callback)
        return patterns


class BearerKey(HttpBearer):
    """The key's active user; with `may`, only a user the web's permission function lets
    (403 otherwise), asked before the body is read, so a role that may not learns nothing
    from how its body would have been judged."""

    def __init__(self, may: Callable[[object], bool] | None = None, refusal: str = ""):
        super().__init__()
        self.may, self.refusal = may, refusal

    def authenticate(self, request: HttpRequest, token: str):
        digest = hashlib.sha256(token.encode()).hexdigest()
        found = ApiToken.objects.select_related("user").filter(key_sha256=digest).first()
        if found is None or not found.user.is_active:
            return None
        if self.may is not None and not self.may(found.user):
            raise PermissionDenied(self.refusal)
        return found.user


EDITORS_PUSH_DOCUMENTS = BearerKey(can_decide_plans, "only Editors push documents")
EDITORS_PROPOSE = BearerKey(can_decide_plans, "only Editors propose plans")
EDITORS_IMPORT_PLANS = BearerKey(can_decide_plans, "only Editors import plans")
MODERATORS_IMPORT_CASES = BearerKey(can_decide_cases, "only Moderators import cases")
EDITORS_IMPORT_ANSWERS = BearerKey(can_decide_answers, "only Editors import answers")
EDITORS_PUSH_REVISIONS = BearerKey(can_decide_plans, "only Editors push revisions")
AGREEMENT_READERS = BearerKey(
    can_read_insights, "the agreement figures are for editors, moderators and curators"
)
INSIGHTS_READERS = BearerKey(
    can_read_insights, "the insights are for editors, moderators and curators"
)


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
    action: str = Field(
        description='what was decided, as the log names it ("plan.adjudicate", "policy.set", '
        '...); "withheld" on a row withheld from you'
    )
    object_type: str
    object_id: str
    before: dict
    after: dict
    note: str
    undoes: int | None
    withheld: str = Field(
        "", description="why the row's action, actor, before, after and note are withheld from you"
    )


class PlanPage(Schema):
    items: list[PlanSummaryOut]
    next: str | None = Field(description="the following page's URL; null on the last page")


class DecisionPage(Schema):
    items: list[DecisionOut]
    next: str | None = Field(description="the following page's URL; null on the last page")


class PageIn(Schema):
    after: int | None = Field(None, description="the last id of the page before")
    limit: int = Field(100, ge=1, le=settings.REVIEW_API_PAGE_MAX)


def answers(ok: dict, *refusals: int) -> dict:
    """An operation's answers: what it returns, its own refusals, and those any operation
    may give (a request that cannot be read, no valid token, a body over the limit)."""
    return ok | {status: Refusal for status in (400, 401, 413, *refusals)}


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


@api.exception_handler(AuthenticationError)
def not_authenticated(request: HttpRequest, error: AuthenticationError) -> HttpResponse:
    return _refusal(
        request,
        ImportRefused(
            "a valid API key is required: send 'Authorization: Bearer <key>' with a key from "
            "manage.py create_api_token, of an active user"
        ),
        401,
    )


@api.exception_handler(PermissionDenied)
def not_permitted(request: HttpRequest, error: PermissionDenied) -> HttpResponse:
    return _refusal(request, ImportRefused(str(error)), 403)


@api.exception_handler(Http404)
def not_found(request: HttpRequest, error: Http404) -> HttpResponse:
    return _refusal(request, ImportRefused(str(error) or "not found"), 404)


@api.exception_handler(HttpError)
def http_error(request: HttpRequest, error: HttpError) -> HttpResponse:
    # What django-ninja refuses itself, e.g. a body that is not JSON.
    return _refusal(request, ImportRefused(str(error)), error.status_code)


@api.exception_handler(ValidationError)
def request_not_valid(request: HttpRequest, error: ValidationError) -> HttpResponse:
    # The same shape as every other refusal: one line per problem, naming where it is.
    problems = [
        f"{'.'.join(str(part) for part in item.get('loc', ()))}: "
        f"{item.get('msg', 'invalid').removeprefix('Value error, ')}"
        for item in error.errors
    ]
    return _refusal(request, ImportRefused(problems), 422)


# --- what exists ---------------------------------------------------------------------------


def _found(queryset, what: str, pk: int):
    found = queryset.filter(pk=pk).first()
    if found is None:
        raise Http404(f"there is no {what} {pk}")
    return found


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
        "revision": document.revision,
        "revision_of": document.revision_of_id,
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


# What a plan's summary reads: not the document's bytes or text, not the plan's payloads.
SUMMARY_FIELDS = (
    "document__name",
    *(
        field.name
        for field in Plan._meta.concrete_fields
        if field.name not in ("original_payload", "adjudicated_payload")
    ),
)


def _plans():
    # Double review: an editor's own review copy is theirs alone, not a plan of the API.
    return (
        Plan.objects.filter(review_of__isnull=True)
        .select_related("document", "adjudicated_by")
        .only(*SUMMARY_FIELDS, "adjudicated_by__username")
    )


def _page(request: HttpRequest, rows: list, page: PageIn) -> dict:
    """One page of `rows` (fetched one longer than the limit, to know whether more follow)."""
    more = len(rows) > page.limit
    rows = rows[: page.limit]
    following = None
    if more:
        query = request.GET.copy()
        query["after"] = str(rows[-1].pk)
        query["limit"] = str(page.limit)
        following = f"{request.path}?{query.urlencode()}"
    return {"rows": rows, "next": following}


@api.post(
    "/documents",
    auth=EDITORS_PUSH_DOCUMENTS,
    response=answers({200: DocumentOut, 201: DocumentOut}, 403, 422),
    summary="Store a document (multipart field 'file'); 200 when these bytes are already stored",
)
def post_document(request: HttpRequest, file: File[UploadedFile]):
    if file.size is not None and file.size > settings.REVIEW_MAX_UPLOAD_BYTES:
        raise HttpError(413, upload_limit_message(file.size))
    data = file.read()
    already = Document.objects.filter(sha256=hashlib.sha256(data).hexdigest()).exists()
    document = store_document(file.name or "", data)
    return Status(200 if already else 201, _document_out(document))


def _accepted(job: Job) -> Status:
    return Status(202, {"job": job.pk, "status_url": reverse("api:job", args=[job.pk])})


@api.post(
    "/documents/{document_id}/propose",
    auth=EDITORS_PROPOSE,
    response=answers({200: PlanOut, 201: PlanOut, 202: JobAccepted}, 403, 404, 422),
    summary="Run the proposer on a stored document; 200 when that plan already exists; "
    "202 with a job's status URL when the document is large",
)
def propose(request: HttpRequest, document_id: int, options: ProposeIn):
    document = _found(Document.objects.only("name", "data"), "document", document_id)
    data = bytes(document.data)
    if runs_in_background(Job.Kind.PROPOSE, document.name, data):
        return _accepted(
            start_job(
                Job.Kind.PROPOSE,
                request.auth,
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
    )
    return Status(201 if plan.created else 200, _plan_out(plan))


@api.post(
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
def post_plan(request: HttpRequest, document_id: int):
    document = _found(Document.objects.all(), "document", document_id)
    with transaction.atomic():
        plan = import_plan(document, request.body, actor=request.auth)
    return Status(201 if plan.created else 200, _plan_out(plan))


@api.post(
    "/documents/{document_id}/revisions",
    auth=EDITORS_PUSH_REVISIONS,
    response=answers({201: RevisionOut}, 403, 404, 422),
    summary="Store the next revision of a document (multipart field 'file') and carry its "
    "latest plan onto it",
)
def post_revision(request: HttpRequest, document_id: int, file: File[UploadedFile]):
    if file.size is not None and file.size > settings.REVIEW_MAX_UPLOAD_BYTES:
        raise HttpError(413, upload_limit_message(file.size))
    document = _found(Document.objects.all(), "document", document_id)
    revised = add_revision(document, file.name or "", file.read(), actor=request.auth)
    plan = revised.plan
    return Status(
        201,
        {
            "document": _document_out(revised.revision),
            "plan": _plan_summary(plan) if plan else None,
            "carried": len(revised.carried),
            "need_you": plan.counts.need_you if plan else 0,
            "gone": plan.options.get("gone", []) if plan else [],
        },
    )


@api.get(
    "/plans",
    response=answers({200: PlanPage}, 422),
    summary="Plans, newest first, a page at a time",
)
def list_plans(
    request: HttpRequest,
    page: Query[PageIn],
    document_id: int | None = None,
    status: Plan.Status | None = None,
):
    plans = _plans().order_by("-pk")
    if document_id is not None:
        plans = plans.filter(document_id=document_id)
    if status:
        plans = plans.filter(status=status)
    if page.after is not None:
        plans = plans.filter(pk__lt=page.after)
    shown = _page(request, list(plans[: page.limit + 1]), page)
    return {"items": [_plan_summary(plan) for plan in shown["rows"]], "next": shown["next"]}


@api.get(
    "/plans/{plan_id}",
    response=answers({200: PlanOut}, 404, 422),
    summary="A plan's entries",
)
def get_plan(request: HttpRequest, plan_id: int):
    return _plan_out(_found(_plans(), "plan", plan_id))


@api.get(
    "/plans/{plan_id}/export",
    response=answers({200: dict}, 404, 409, 422),
    summary="The adjudicated plan's JSON; 409 naming the undecided entries otherwise",
)
def get_plan_export(request: HttpRequest, plan_id: int):
    plan = _found(Plan.objects.defer("original_payload"), "plan", plan_id)
    # The frozen text itself, byte for byte, not a re-serialisation of it.
    return HttpResponse(export_plan(plan), content_type="application/json; charset=utf-8")


# --- cases, answers, decisions ------------------------------------------------------------

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


@api.post(
    "/cases",
    auth=MODERATORS_IMPORT_CASES,
    summary="Import moderation cases (JSON Lines body); whole or nothing unless skip_invalid",
    **_JSONL_IMPORT,
)
def post_cases(request: HttpRequest, skip_invalid: bool = False):
    return _import_jsonl(request, Job.Kind.IMPORT_CASES, import_cases, skip_invalid)


@api.post(
    "/answers",
    auth=EDITORS_IMPORT_ANSWERS,
    summary="Import answers (JSON Lines body); whole or nothing unless skip_invalid",
    **_JSONL_IMPORT,
)
def post_answers(request: HttpRequest, skip_invalid: bool = False):
    return _import_jsonl(request, Job.Kind.IMPORT_ANSWERS, import_answers, skip_invalid)


def _import_jsonl(request: HttpRequest, kind: str, adapter, skip_invalid: bool):
    """Import the body inline, or keep it for a job when it is large; a body of too many
    lines is refused first, before a line is parsed or a job made."""
    # Read from the stream: `request.body` would refuse a body past Django's
    # DATA_UPLOAD_MAX_MEMORY_SIZE, a bound for forms; this one was bounded before any view
    # ran, by REVIEW_MAX_JOB_UPLOAD_BYTES (review.middleware).
    body = request.read()
    check_line_count(count_lines(body))
    if too_long := line_longer_than(body, settings.REVIEW_MAX_UPLOAD_BYTES):
        raise HttpError(413, line_limit_message(*too_long))
    if runs_in_background(kind, data=body):
        options = {"skip_invalid": skip_invalid}
        return _accepted(start_job(kind, request.auth, data=body, options=options))
    return import_summary(adapter(body, skip_invalid=skip_invalid))


@api.get(
    "/jobs/{job_id}",
    response=answers({200: JobOut}, 404, 422),
    url_name="job",
    summary="A background job: its status (queued, running, succeeded, failed), progress "
    "and result, or why it failed",
)
def get_job(request: HttpRequest, job_id: int):
    job = Job.objects.filter(pk=job_id).first()
    if job is None or not job.visible_to(request.auth):
        missing = f"no job {job_id} of yours"
        return Status(404, {"detail": missing, "problems": [missing]})
    job = job_status(job)
    fields = JobOut.model_fields
    return {name: getattr(job, name) for name in fields}


@api.get(
    "/decisions",
    response=answers({200: DecisionPage}, 422),
    summary="The decision log, oldest first, a page at a time; since= a date or ISO date and "
    "time (inclusive)",
)
def list_decisions(request: HttpRequest, page: Query[PageIn], since: str | None = None):
    moment = parse_since(since) if since else None
    after = None
    if page.after is not None:
        after = Decision.objects.only("at").filter(pk=page.after).first()
        if after is None:
            raise ImportRefused(f"after: there is no decision {page.after}")
    # Blind review holds for the log too: what the pages keep from this reader, it withholds.
    rows = decisions_since(moment, after).blind_to(request.auth)
    shown = _page(request, list(rows[: page.limit + 1]), page)
    return {"items": [decision_as_dict(row) for row in shown["rows"]], "next": shown["next"]}


# --- insights -----------------------------------------------------------------------------


@api.get(
    "/insights",
    auth=INSIGHTS_READERS,
    response=answers({200: dict}, 403, 422),
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
    query = {"version": version, "model": model, "rule": rule, "weeks": str(weeks)}
    if document is not None:
        query["document"] = str(document)
    return insights(Filters.from_query(query)).to_dict()


# --- agreement (double review) ---------------------------------------------------------------


@api.get(
    "/agreement",
    auth=AGREEMENT_READERS,
    response=answers({200: dict}, 403),
    url_name="agreement",
    summary="How far reviewers agree under double review: κ and α with 95 % bootstrap "
    "intervals, per pair, per reviewer against the outcome, per validator reason, and curation",
)
def get_agreement(request: HttpRequest):
    return agreement().to_dict()
