"""Plans: a page of them, one with its entries, and the adjudicated plan's JSON, also as W3C
Web Annotations and as a Label Studio task."""

from __future__ import annotations

import datetime as dt

from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema

from grounding.web_annotation import MEDIA_TYPE as ANNOTATIONS_MEDIA_TYPE
from review.adapters.annotations import export_annotations
from review.adapters.label_studio import export_label_studio
from review.adapters.plans import export_plan
from review.api.auth import ProjectSlug
from review.api.errors import answers, found
from review.api.paging import PageIn, page_of
from review.models import Plan
from review.views.plan_context import annotations_address
from review.views.projects import in_current_project

router = Router()


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


class PlanPage(Schema):
    items: list[PlanSummaryOut]
    next: str | None = Field(description="the following page's URL; null on the last page")


def plan_summary(plan: Plan) -> dict:
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


def plan_out(plan: Plan) -> dict:
    entries = plan.entries.select_related("decided_by").order_by("position")
    return {
        **plan_summary(plan),
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


def _plans(request: HttpRequest):
    """The plans the API shows the key's holder in the address's project: those
    `in_current_project` lets them see, but no review copy (an editor's own copy is theirs
    alone, not a plan of the API)."""
    return (
        in_current_project(request, Plan.objects)
        .filter(review_of__isnull=True)
        .select_related("document", "adjudicated_by")
        .only(*SUMMARY_FIELDS, "adjudicated_by__username")
    )


@router.get(
    "/plans",
    response=answers({200: PlanPage}, 422),
    summary="Plans, newest first, a page at a time",
)
def list_plans(
    request: HttpRequest,
    project: ProjectSlug,
    page: Query[PageIn],
    document_id: int | None = None,
    status: Plan.Status | None = None,
):
    plans = _plans(request).order_by("-pk")
    if document_id is not None:
        plans = plans.filter(document_id=document_id)
    if status:
        plans = plans.filter(status=status)
    if page.after is not None:
        plans = plans.filter(pk__lt=page.after)
    shown = page_of(request, list(plans[: page.limit + 1]), page)
    return {"items": [plan_summary(plan) for plan in shown["rows"]], "next": shown["next"]}


@router.get(
    "/plans/{plan_id}",
    response=answers({200: PlanOut}, 404, 422),
    summary="A plan's entries",
)
def get_plan(request: HttpRequest, project: ProjectSlug, plan_id: int):
    return plan_out(found(_plans(request), "plan", plan_id))


@router.get(
    "/plans/{plan_id}/export",
    response=answers({200: dict}, 404, 409, 422),
    summary="The adjudicated plan's JSON; 409 naming the undecided entries otherwise",
)
def get_plan_export(request: HttpRequest, project: ProjectSlug, plan_id: int):
    plans = in_current_project(request, Plan.objects).defer("original_payload")
    plan = found(plans, "plan", plan_id)
    # The frozen text itself, byte for byte, not a re-serialisation of it.
    return HttpResponse(export_plan(plan), content_type="application/json; charset=utf-8")


@router.get(
    "/plans/{plan_id}/annotations",
    response=answers({200: dict}, 404, 409, 422),
    summary="The adjudicated plan as a W3C Web Annotation collection (JSON-LD); 409 naming "
    "the undecided entries otherwise",
    # JSON-LD, as the Web Annotation Protocol serves it (ninja declares only JSON).
    openapi_extra={
        "responses": {200: {"content": {"application/ld+json": {"schema": {"type": "object"}}}}}
    },
)
def get_plan_annotations(request: HttpRequest, project: ProjectSlug, plan_id: int):
    plans = in_current_project(request, Plan.objects).defer("original_payload")
    plan = found(plans, "plan", plan_id)
    # Identified by the page's download address, so both doors give the same collection.
    collection = export_annotations(plan, annotations_address(request, plan))
    return HttpResponse(collection, content_type=ANNOTATIONS_MEDIA_TYPE)


@router.get(
    "/plans/{plan_id}/label-studio",
    response=answers({200: list[dict]}, 404, 409, 422),
    summary="The adjudicated plan as a Label Studio task with one annotation, to import into "
    "a Label Studio project; 409 naming the undecided entries otherwise",
)
def get_plan_label_studio(request: HttpRequest, project: ProjectSlug, plan_id: int):
    plans = in_current_project(request, Plan.objects).defer("original_payload")
    plan = found(plans, "plan", plan_id)
    return HttpResponse(export_label_studio(plan), content_type="application/json; charset=utf-8")
