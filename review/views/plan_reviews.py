"""Double review of a plan: the notice on the plan page, opening one's own review copy, and
the curation view of only the entries where the two reviews differ, side by side."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from review.actions.plan_reviews import (
    curate_entry,
    differing_entries,
    is_double_reviewed,
    open_review_copy,
    review_copies,
)
from review.decisions import ActionRefused, StaleVersion
from review.models import Entry, Plan
from review.permissions import can_curate, can_decide_plans


def may_see_copy(user, copy: Plan) -> bool:
    """Each editor sees only their own review; curators and staff once both are in."""
    if copy.reviewer_id == user.pk:
        return True
    submitted = [other for other in review_copies(copy.review_of) if not other.is_open]
    return (user.is_staff or can_curate(user)) and len(submitted) == 2


def review_notice(request: HttpRequest, plan: Plan, entries) -> dict:
    """What the plan page says about double review, for `plan` and the person looking."""
    if plan.is_review_copy:
        return {"review_copy": True}
    if not is_double_reviewed(plan, entries):
        return {}
    copies = review_copies(plan)
    return {
        "double_review": True,
        "reviewers_in": sum(not copy.is_open for copy in copies),
        "may_open_copy": can_decide_plans(request.user) and plan.is_open,
        "differences": len(differing_entries(plan)) if can_curate(request.user) else 0,
    }


@require_POST
def plan_review_copy(request: HttpRequest, pk: int) -> HttpResponse:
    if not can_decide_plans(request.user):
        raise PermissionDenied("Only editors review plans.")
    plan = get_object_or_404(Plan, pk=pk, review_of__isnull=True)
    try:
        copy = open_review_copy(plan, actor=request.user)
    except ActionRefused as refused:
        messages.error(request, str(refused))
        return redirect("plan", pk=plan.pk)
    return redirect("plan", pk=copy.pk)


def _get_plan_for_curator(request: HttpRequest, pk: int) -> Plan:
    if not can_curate(request.user):
        raise PermissionDenied("Only curators settle what two editors disagree on.")
    return get_object_or_404(Plan.objects.select_related("document"), pk=pk, review_of__isnull=True)


@require_GET
def plan_curation(request: HttpRequest, pk: int) -> HttpResponse:
    plan = _get_plan_for_curator(request, pk)
    text = plan.document.text
    copies = review_copies(plan)
    rows = [
        {
            "entry": entry,
            "sides": [
                (label, copy.reviewer.username, side, text[side.span_start : side.span_end])
                for label, copy, side in (("first", copies[0], a), ("second", copies[1], b))
            ],
        }
        for entry, a, b in differing_entries(plan)
    ]
    return render(request, "review/plans/curation.html", {"plan": plan, "rows": rows})


@require_POST
def plan_curate_entry(request: HttpRequest, pk: int, entry_pk: int) -> HttpResponse:
    plan = _get_plan_for_curator(request, pk)
    entry = get_object_or_404(Entry.objects.select_related("plan"), pk=entry_pk, plan=plan)
    try:
        version = int(request.POST.get("version", ""))
        curate_entry(
            entry, request.POST.get("pick", ""), actor=request.user, expected_version=version
        )
    except ValueError:
        messages.error(request, "The form did not say which version you saw; reload the page.")
    except (ActionRefused, StaleVersion) as refused:
        messages.error(request, str(refused))
    plan.refresh_from_db()
    if not plan.is_open:
        messages.success(request, "Every entry is settled: the plan is adjudicated.")
        return redirect("plan", pk=plan.pk)
    return redirect("plan-curation", pk=plan.pk)
