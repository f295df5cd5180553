"""What the plan page and the views that redraw parts of it share: the plan and entry the
person may see or decide (`get_plan_for_user`, `get_entry_for_user`), the template, and what
every row and region needs to know (`row_context`). Not a page itself."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404

from review.models import Entry, Plan
from review.permissions import can_decide_plans, is_member
from review.views.presenters import PlanUrls
from review.views.projects import current_project, project_url

PLAN_TEMPLATE = "review/plans/plan.html"


def get_plan_for_user(request: HttpRequest, pk: int, *, decide: bool = False) -> Plan:
    """The plan `pk` as `request.user` may see it (404 otherwise), or decide it with
    `decide` (403 with `Plan.decide_refusal`'s reason otherwise)."""
    plans = (
        Plan.objects.select_related("document", "adjudicated_by")
        .defer("document__data", "original_payload", "adjudicated_payload")
        .with_review_policy()
    )
    # Found only in the project its address names: another project's plan is not there,
    # whatever they ask of it.
    plan = get_object_or_404(plans, pk=pk, project=current_project(request))
    if not is_member(request.user, plan.project_id):
        raise Http404("No such plan.")
    if decide and not can_decide_plans(request.user, plan.project_id):
        raise PermissionDenied("Only editors decide plans.")
    if not plan.visible_to(request.user):
        raise Http404("No such plan.")
    if decide and (refusal := plan.decide_refusal(request.user)):
        raise PermissionDenied(refusal)
    return plan


def get_entry_for_user(request: HttpRequest, pk: int, entry_pk: int) -> Entry:
    """An entry of plan `pk` that the user may decide (403 otherwise, 404 if not there, or on
    a review copy not theirs)."""
    # Not the document: a decision that moves no boundary never reads its text.
    entries = Entry.objects.select_related("plan").defer(
        "plan__original_payload", "plan__adjudicated_payload"
    )
    entry = get_object_or_404(entries, pk=entry_pk, plan_id=pk)
    # Another project's entry, or a review copy not theirs, is not there for them.
    if not is_member(request.user, entry.plan.project_id):
        raise Http404("No such entry.")
    if entry.plan.is_review_copy and entry.plan.reviewer_id != request.user.pk:
        raise Http404("No such entry.")
    if not can_decide_plans(request.user, entry.plan.project_id):
        raise PermissionDenied("Only editors decide plan entries.")
    if refusal := entry.plan.decide_refusal(request.user):
        raise PermissionDenied(refusal)
    return entry


def plan_url(request: HttpRequest, plan_id: int) -> str:
    return project_url(request, "plan", plan_id)


def annotations_address(request: HttpRequest, plan: Plan) -> str:
    """The absolute address of the plan's Web Annotation download: the collection's id, the
    same from the page and the API (the API's own address is a key's, not the plan's)."""
    return request.build_absolute_uri(project_url(request, "plan-annotations", plan.pk))


def entry_url(request: HttpRequest, entry: Entry) -> str:
    return f"{plan_url(request, entry.plan_id)}?entry={entry.pk}#entry-{entry.pk}"


def row_context(request: HttpRequest, plan: Plan) -> dict:
    """What every row and region needs to know about the plan and the person looking."""
    return {
        "plan": plan,
        "can_decide": can_decide_plans(request.user, plan.project_id),
        "plan_open": plan.is_open,
        "urls": PlanUrls(current_project(request).slug, plan.pk),
    }
