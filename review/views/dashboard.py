"""The dashboard at "/" with the review queues and the user's own recent decisions.

Login and logout are Django's own views (templates/registration/login.html); logout is a POST.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from review.decisions import decisions_by
from review.models import Answer, Case, Decision, Entry, Plan
from review.permissions import can_decide_answers, can_decide_cases, can_decide_plans

RECENT_DECISIONS = 12


@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    open_plans = Plan.objects.filter(status=Plan.Status.OPEN, review_of__isnull=True)
    undecided_cases = Case.objects.filter(verdict=Case.Verdict.PROPOSED)
    queues = [
        {
            "name": "Plans awaiting decisions",
            "count": open_plans.filter(entries__state=Entry.State.PROPOSED).distinct().count(),
            "detail": f"{_proposed_entries()} entries still proposed",
            "url": reverse("plans") + "?status=open",
            "yours": can_decide_plans(request.user),
        },
        {
            "name": "Flagged cases",
            "count": undecided_cases.filter(flagged=True).count(),
            "detail": f"{undecided_cases.count()} cases undecided",
            "url": reverse("cases"),
            "yours": can_decide_cases(request.user),
        },
        {
            "name": "Answers",
            "count": Answer.objects.filter(state=Answer.State.PROPOSED).count(),
            "detail": "awaiting publication",
            "url": reverse("answers"),
            "yours": can_decide_answers(request.user),
        },
    ]
    recent = decisions_by(request.user, RECENT_DECISIONS)
    entry_plans = _entry_plans(recent)
    return render(
        request,
        "review/dashboard.html",
        {"queues": queues, "recent": [_described(row, entry_plans) for row in recent]},
    )


def _proposed_entries() -> int:
    return Entry.objects.filter(plan__status=Plan.Status.OPEN, state=Entry.State.PROPOSED).count()


def _entry_plans(decisions: list[Decision]) -> dict[str, tuple[int, str]]:
    """Entry id (as logged) -> (plan id, entry path), for linking entry decisions to their plan."""
    ids = [int(row.object_id) for row in decisions if row.object_type == "entry"]
    rows = Entry.objects.filter(pk__in=ids).values_list("pk", "plan_id", "path")
    return {str(pk): (plan_id, entry_path) for pk, plan_id, entry_path in rows}


def _described(decision: Decision, entry_plans: dict[str, tuple[int, str]]) -> dict:
    kind, key = decision.object_type, decision.object_id
    url, label = "", f"{kind} {key}"
    if kind == "entry" and key in entry_plans:
        plan_id, entry_path = entry_plans[key]
        url = f"{reverse('plan', args=[plan_id])}?entry={key}#entry-{key}"
        label = entry_path
    elif kind == "plan":
        url, label = reverse("plan", args=[key]), f"plan {key}"
    elif kind in ("case", "answer"):
        url = reverse(kind, args=[key])
    return {"decision": decision, "url": url, "label": label}
