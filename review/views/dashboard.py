"""The dashboard at "/" with the review queues and the user's own recent decisions.

Login and logout are Django's own views (templates/registration/login.html); logout is a POST.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from grounding.segmentation import shown_number
from review.decisions import decisions_by
from review.models import Answer, Case, Decision, Entry, Plan
from review.permissions import can_decide_answers, can_decide_cases, can_decide_plans, can_lead
from review.views.decision_words import in_words
from review.views.leasing import stays_after_deciding
from review.views.progress import reviewer_figures

RECENT_DECISIONS = 12


@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    plans, proposed = _plans_awaiting_decisions()
    counted = _cached("dashboard:queues", _queue_counts)
    queues = [
        {
            "name": "Plans awaiting decisions",
            "count": plans,
            "detail": f"{proposed} entries still proposed",
            "url": reverse("plans") + "?status=open",
            "yours": can_decide_plans(request.user),
            "next_url": reverse("plans-next"),
        },
        {
            "name": "Flagged cases",
            "count": counted["flagged_cases"],
            "detail": f"{counted['undecided_cases']} cases undecided",
            "url": reverse("cases"),
            "yours": can_decide_cases(request.user),
            "next_url": reverse("cases-next"),
        },
        {
            "name": "Answers",
            "count": counted["proposed_answers"],
            "detail": "awaiting publication",
            "url": reverse("answers"),
            "yours": can_decide_answers(request.user),
            "next_url": reverse("answers-next"),
        },
    ]
    recent = decisions_by(request.user, RECENT_DECISIONS)
    subjects = _subjects(recent)
    return render(
        request,
        "review/dashboard.html",
        {
            "queues": queues,
            "recent": [_described(row, subjects) for row in recent],
            "decides": any(queue["yours"] for queue in queues),
            "figures": _cached(
                f"dashboard:figures:{request.user.pk}", lambda: reviewer_figures(request.user)[0]
            ),
            "can_lead": can_lead(request.user),
            "stays": stays_after_deciding(request.user),
        },
    )


def _plans_awaiting_decisions() -> tuple[int, int]:
    """The plans waiting (`PlanQuerySet.waiting`, what /progress/ counts too) and their
    entries still proposed, in one query over the plans' stored counters (never over their
    entries)."""
    totals = Plan.objects.waiting().aggregate(plans=Count("pk"), entries=Sum("count_proposed"))
    return totals["plans"], totals["entries"] or 0


def _queue_counts() -> dict[str, int]:
    undecided_cases = Case.objects.filter(verdict=Case.Verdict.PROPOSED)
    return {
        "flagged_cases": undecided_cases.filter(flagged=True).count(),
        "undecided_cases": undecided_cases.count(),
        "proposed_answers": Answer.objects.filter(state=Answer.State.PROPOSED).count(),
    }


def _cached(key: str, count):
    """`count()`, kept for DASHBOARD_CACHE_SECONDS (0: counted on every request)."""
    seconds = settings.DASHBOARD_CACHE_SECONDS
    if not seconds:
        return count()
    found = cache.get(key)
    if found is None:
        found = count()
        cache.set(key, found, seconds)
    return found


def _subjects(decisions: list[Decision]) -> dict[tuple[str, str], dict]:
    """(kind, id as logged) -> where it is and what it is called: an entry by its number and
    plan, a case and an answer by their own ids (c-1012, a-114). One query per kind."""
    keys: dict[str, set[int]] = {}
    for row in decisions:
        if row.object_id.isdigit():
            keys.setdefault(row.object_type, set()).add(int(row.object_id))
    subjects = {}
    entries = Entry.objects.filter(pk__in=keys.get("entry", ())).values_list(
        "pk", "plan_id", "position", "path"
    )
    for pk, plan_id, position, entry_path in entries:
        subjects["entry", str(pk)] = {
            "label": f"entry #{shown_number(position)} ({entry_path}) of plan {plan_id}",
            "url": f"{reverse('plan', args=[plan_id])}?entry={pk}#entry-{pk}",
            "number": shown_number(position),
        }
    for kind, model, field in (("case", Case, "case_id"), ("answer", Answer, "answer_id")):
        for pk, name in model.objects.filter(pk__in=keys.get(kind, ())).values_list("pk", field):
            subjects[kind, str(pk)] = {"label": name, "url": reverse(kind, args=[pk])}
    for pk in keys.get("plan", ()):
        subjects["plan", str(pk)] = {"label": f"plan {pk}", "url": reverse("plan", args=[pk])}
    return subjects


def _described(decision: Decision, subjects: dict) -> dict:
    kind, key = decision.object_type, decision.object_id
    subject = subjects.get((kind, key), {"label": f"{kind} {key}", "url": ""})
    words = in_words(decision, subject["label"], number=subject.get("number"))
    return {"decision": decision, "url": subject["url"], "words": words}
