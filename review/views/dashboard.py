"""The dashboard at "/" with the review queues, the projects the user works in with what
waits for them in each, and the user's own recent decisions.

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
from review.actions.plan_reviews import plans_in_curation_for
from review.actions.reviews import in_curation_for
from review.context_processors import project_home_url, project_url
from review.decisions import decisions_by
from review.models import Answer, Case, Decision, Entry, Membership, Plan, Project, ReviewPolicy
from review.permissions import (
    can_curate,
    can_decide_answers,
    can_decide_cases,
    can_decide_plans,
    can_lead,
    is_member,
)
from review.views.decision_words import in_words, plan_label
from review.views.leasing import stays_after_deciding
from review.views.progress import reviewer_figures
from review.views.projects import current_project, home_project

RECENT_DECISIONS = 12
# A lease's queue -> the kind of item it held, as the log names it.
LEASE_KINDS = {"plans": "plan", "cases": "case", "answers": "answer"}


@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    # The queues lead into the person's home project (Default, or their only one).
    project = home_project(request.user) or current_project(request)
    queues = _queues(request.user, project)
    curation = []
    if can_curate(request.user, project):
        curation = _cached(
            f"dashboard:curation:{project.pk}:{request.user.pk}",
            lambda: _curation_queues(request.user, project),
        )
    recent = decisions_by(request.user, RECENT_DECISIONS)
    subjects = _subjects(recent)
    return render(
        request,
        "review/dashboard.html",
        {
            "queues": queues,
            "curation": curation,
            "recent": [_described(row, subjects) for row in recent],
            "decides": bool(curation) or any(queue["yours"] for queue in queues),
            "figures": _cached(
                f"dashboard:figures:{request.user.pk}", lambda: reviewer_figures(request.user)[0]
            ),
            "project": project,
            "can_lead": can_lead(request.user, project),
            "stays": stays_after_deciding(request.user),
            "projects": _your_projects(request.user),
        },
    )


def _queues(user, project) -> list[dict]:
    """The three queues of `project` as the dashboard lists them: what waits, and whether it
    is `user`'s. A person who is no member of it is shown nothing waiting."""
    if is_member(user, project):
        plans, proposed = _plans_awaiting_decisions(project)
        counted = _cached(f"dashboard:queues:{project.pk}", lambda: _queue_counts(project))
    else:
        plans, proposed = 0, 0
        counted = dict.fromkeys(("flagged_cases", "undecided_cases", "proposed_answers"), 0)
    return [
        {
            "name": "Plans awaiting decisions",
            "count": plans,
            "detail": f"{proposed} entries still proposed",
            "url": reverse("plans", args=[project.slug]) + "?status=open",
            "yours": can_decide_plans(user, project),
            "next_url": reverse("plans-next", args=[project.slug]),
        },
        {
            "name": "Flagged cases",
            "count": counted["flagged_cases"],
            "detail": f"{counted['undecided_cases']} cases undecided",
            "url": reverse("cases", args=[project.slug]),
            "yours": can_decide_cases(user, project),
            "next_url": reverse("cases-next", args=[project.slug]),
        },
        {
            "name": "Answers",
            "count": counted["proposed_answers"],
            "detail": "awaiting publication",
            "url": reverse("answers", args=[project.slug]),
            "yours": can_decide_answers(user, project),
            "next_url": reverse("answers-next", args=[project.slug]),
        },
    ]


def _your_projects(user) -> list[dict]:
    """The projects `user` works in, each with their roles there and what waits for them."""
    projects = list(Project.objects.of_member(user))
    roles = {m.project_id: m for m in Membership.objects.filter(user=user, project__in=projects)}
    # Keyed by the projects themselves: someone added to a project sees it at once, and
    # nobody is handed figures of a project they are not in.
    key = "dashboard:projects:" + ",".join(str(project.pk) for project in projects)
    counted = _cached(key, lambda: _waiting_per_project(projects))
    return [
        {
            "project": project,
            "url": project_home_url(project),
            "roles": "Staff" if user.is_staff else roles[project.pk].role_label,
            "waiting": waiting_for(user, project, counted.get(project.pk, {})),
            "manages": project.members_managed_by(user),
        }
        for project in projects
    ]


def waiting_for(user, project: Project, counted: dict[str, int]) -> list[dict]:
    """What waits in `project` for `user` to decide, by queue, from the project's `counted`
    figures (`_waiting_per_project`): only the queues `user` may decide there."""
    queues = (
        ("plans", "plans waiting", can_decide_plans(user, project), "?status=open"),
        ("cases", "cases undecided", can_decide_cases(user, project), ""),
        ("answers", "answers awaiting publication", can_decide_answers(user, project), ""),
    )
    return [
        {
            "queue": queue,
            "name": name,
            "count": counted.get(queue, 0),
            "url": project_url(project, queue) + query,
            "next_url": project_url(project, f"{queue}-next"),
        }
        for queue, name, yours, query in queues
        if yours
    ]


def _waiting_per_project(projects: list[Project]) -> dict[int, dict[str, int]]:
    """project id -> queue -> how many wait there for a person: one query per queue, however
    many projects."""
    waiting = {
        "plans": Plan.objects.waiting(),
        "cases": Case.objects.filter(verdict=Case.Verdict.PROPOSED),
        "answers": Answer.objects.filter(state=Answer.State.PROPOSED),
    }
    counted: dict[int, dict[str, int]] = {}
    for queue, items in waiting.items():
        rows = items.filter(project__in=projects).values_list("project_id")
        for project_id, count in rows.annotate(n=Count("pk")).order_by():
            counted.setdefault(project_id, {})[queue] = count
    return counted


def _plans_awaiting_decisions(project) -> tuple[int, int]:
    """The plans waiting (`PlanQuerySet.waiting`, what /progress/ counts too) and their
    entries still proposed, in one query over the plans' stored counters (never over their
    entries)."""
    totals = (
        Plan.objects.waiting()
        .filter(project=project)
        .aggregate(plans=Count("pk"), entries=Sum("count_proposed"))
    )
    return totals["plans"], totals["entries"] or 0


def _curation_queues(user, project) -> list[dict]:
    """What waits for `user` to curate, per queue: the items whose two reviews differ (none
    they reviewed themselves), each with the queue's Next, which hands curators these."""
    waiting = (
        ("plans", "Plans", plans_in_curation_for(user, project)),
        ("cases", "Cases", in_curation_for(user, Case, project)),
        ("answers", "Answers", in_curation_for(user, Answer, project)),
    )
    return [
        {
            "name": f"{label} to curate",
            "count": items.count(),
            "detail": "two reviews differ",
            "url": reverse(queue, args=[project.slug]),
            "yours": True,
            "next_url": reverse(f"{queue}-next", args=[project.slug]),
        }
        for queue, label, items in waiting
    ]


def _queue_counts(project) -> dict[str, int]:
    undecided_cases = Case.objects.filter(project=project, verdict=Case.Verdict.PROPOSED)
    return {
        "flagged_cases": undecided_cases.filter(flagged=True).count(),
        "undecided_cases": undecided_cases.count(),
        "proposed_answers": Answer.objects.filter(
            project=project, state=Answer.State.PROPOSED
        ).count(),
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
    plan, a case and an answer by their own ids (c-1012, a-114), a lease by the item it held,
    a review policy by its queue. One query per kind."""
    keys: dict[str, set[int]] = {}
    held = {}  # a lease's row -> (kind, id) of the item it held; the lease itself is gone
    for row in decisions:
        if row.object_type == "lease" and str(row.before.get("item_id", "")).isdigit():
            kind = LEASE_KINDS.get(row.before.get("queue"))
            if kind:
                held[row.object_id] = (kind, str(row.before["item_id"]))
                keys.setdefault(kind, set()).add(int(row.before["item_id"]))
        elif row.object_id.isdigit():
            keys.setdefault(row.object_type, set()).add(int(row.object_id))
    subjects = {}
    entries = Entry.objects.filter(pk__in=keys.get("entry", ())).values_list(
        "pk", "plan_id", "plan__review_of_id", "position", "path", "plan__project__slug"
    )
    for pk, plan_id, review_of_id, position, entry_path, slug in entries:
        subjects["entry", str(pk)] = {
            "label": f"entry #{shown_number(position)} ({entry_path}) of "
            + plan_label(plan_id, review_of_id),
            "url": f"{reverse('plan', args=[slug, plan_id])}?entry={pk}#entry-{pk}",
            "number": shown_number(position),
        }
    for kind, model, field in (("case", Case, "case_id"), ("answer", Answer, "answer_id")):
        items = model.objects.filter(pk__in=keys.get(kind, ()))
        for pk, name, slug in items.values_list("pk", field, "project__slug"):
            subjects[kind, str(pk)] = {"label": name, "url": reverse(kind, args=[slug, pk])}
    plans = Plan.objects.filter(pk__in=keys.get("plan", ()))
    for pk, review_of_id, slug in plans.values_list("pk", "review_of_id", "project__slug"):
        label = plan_label(pk, review_of_id)
        subjects["plan", str(pk)] = {"label": label, "url": reverse("plan", args=[slug, pk])}
    policies = ReviewPolicy.objects.filter(pk__in=keys.get("reviewpolicy", ()))
    for pk, queue, slug in policies.values_list("pk", "queue", "project__slug"):
        subjects["reviewpolicy", str(pk)] = {
            "label": ReviewPolicy.Queue(queue).label.lower(),
            "url": reverse("policy", args=[slug, queue]),
        }
    for lease_key, item in held.items():
        if item in subjects:
            subjects["lease", lease_key] = subjects[item]
    return subjects


def _described(decision: Decision, subjects: dict) -> dict:
    kind, key = decision.object_type, decision.object_id
    # A lease is gone once released, and its id names nothing a person knows.
    unknown = "an item no longer here" if kind == "lease" else f"{kind} {key}"
    subject = subjects.get((kind, key), {"label": unknown, "url": ""})
    words = in_words(decision, subject["label"], number=subject.get("number"))
    return {"decision": decision, "url": subject["url"], "words": words}
