"""People and progress: per reviewer, decisions today and this week, the median seconds
between one decision and the next, conflicts met and leases held; per queue, what is left
and how fast it goes. Leads and staff see everyone; a reviewer sees their own on the
dashboard.

Everything is counted in the database, a fixed number of queries whatever the log's size.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.core.exceptions import PermissionDenied
from django.db import connection
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from review.actions.leases import QUEUES
from review.actions.plan_reviews import AGREED
from review.actions.revisions import CARRY
from review.models import ConflictMet, Decision, Entry, Lease, Plan
from review.permissions import can_lead
from review.views.projects import current_project

# A pause longer than this between two decisions is a break, not time spent on a decision.
LONGEST_GAP_SECONDS = 600
# Log rows that are not a reviewer deciding something (a plan is superseded by an upload).
NOT_DECISIONS = ("lease.release", "plan.supersede")
# Decisions nobody timed: many logged at one stroke, not one a person took looking at an item.
# A carry (a revision's upload), an agreement (settled when the second copy came in), with
# the accepts of "accept all of a rule" (`Decision.rule_batch_q`) and the undos of all three.
UNTIMED = (CARRY, AGREED)
# What a queue's decisions are logged on.
QUEUE_OBJECTS = {
    Lease.Queue.PLANS: "entry",
    Lease.Queue.CASES: "case",
    Lease.Queue.ANSWERS: "answer",
}


@dataclass(frozen=True)
class ReviewerFigures:
    username: str
    today: int
    week: int
    median_seconds: float | None
    conflicts: int
    leases: int


def period_starts() -> tuple:
    now = timezone.localtime()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return today, today - timedelta(days=today.weekday())


def reviewer_figures(user=None, project=None) -> list[ReviewerFigures]:
    """Everyone's figures this week (or only `user`'s), busiest first; in `project` alone,
    or (a person's own, on the dashboard) in every project."""
    today, week = period_starts()
    decisions = Decision.objects.filter(actor__isnull=False, at__gte=week).exclude(
        action__in=NOT_DECISIONS
    )
    conflicts = ConflictMet.objects.filter(at__gte=week)
    leases = Lease.objects.filter(expires_at__gt=timezone.now())
    if project is not None:
        decisions, leases = decisions.filter(project=project), leases.filter(_held_in_q(project))
        conflicts = conflicts.filter(project=project)
    if user is not None:
        decisions = decisions.filter(actor=user)
        conflicts, leases = conflicts.filter(user=user), leases.filter(holder=user)
    counts = decisions.values("actor_id", "actor__username").annotate(
        today=Count("pk", filter=Q(at__gte=today)), week=Count("pk")
    )
    met = dict(conflicts.values_list("user_id").annotate(n=Count("pk")).order_by())
    held = dict(leases.values_list("holder_id").annotate(n=Count("pk")).order_by())
    names = dict(leases.values_list("holder_id", "holder__username").distinct())
    medians = median_gaps(week, user, project)
    rows = {row["actor_id"]: row for row in counts.order_by()}
    people = set(rows) | set(held) | set(met)
    if user is not None:
        people.add(user.pk)
        names[user.pk] = user.username
    figures = [
        ReviewerFigures(
            username=rows[pk]["actor__username"] if pk in rows else names.get(pk, f"user {pk}"),
            today=rows[pk]["today"] if pk in rows else 0,
            week=rows[pk]["week"] if pk in rows else 0,
            median_seconds=medians.get(pk),
            conflicts=met.get(pk, 0),
            leases=held.get(pk, 0),
        )
        for pk in people
    ]
    return sorted(figures, key=lambda row: (-row.week, row.username))


def untimed_q(prefix: str = "") -> Q:
    """Log rows no person timed (`UNTIMED`); with prefix "undoes__", the undos of them."""
    return Q(**{f"{prefix}action__in": UNTIMED}) | Decision.rule_batch_q(prefix)


def _held_in_q(project) -> Q:
    """The leases on items of `project`: a lease names its item by queue
    and id."""
    held = Q(pk__in=[])
    for queue, kind in QUEUES.items():
        items = kind.model.objects.filter(project=project).values("pk")
        held |= Q(queue=queue, item_id__in=items)
    return held


def timed_decisions(since, user=None, project=None):
    """The decisions of `since` on that a person took one at a time, by anyone (or `user`),
    in `project` (or in every one)."""
    rows = Decision.objects.filter(actor__isnull=False, at__gte=since)
    if project is not None:
        rows = rows.filter(project=project)
    rows = (
        rows.exclude(action__in=NOT_DECISIONS).exclude(untimed_q()).exclude(untimed_q("undoes__"))
    )
    return rows.filter(actor=user) if user is not None else rows


def median_gaps(since, user=None, project=None) -> dict[int, float]:
    """actor id -> the median seconds between one of their timed decisions and their next,
    breaks left out. Window functions, the same SQL on SQLite and PostgreSQL but for the
    seconds, over the rows `timed_decisions` picks."""
    if connection.vendor == "postgresql":
        seconds = 'EXTRACT(EPOCH FROM ("at" - prior))'
    else:
        seconds = '(julianday("at") - julianday(prior)) * 86400.0'
    timed, params = (
        timed_decisions(since, user, project)
        .order_by()
        .values("actor_id", "at", "id")
        .query.sql_with_params()
    )
    sql = f"""
        WITH ordered AS (
            SELECT actor_id, "at", LAG("at") OVER (PARTITION BY actor_id ORDER BY "at", id) AS prior
            FROM ({timed}) AS timed
        ),
        gaps AS (
            SELECT actor_id, {seconds} AS gap FROM ordered WHERE prior IS NOT NULL
        ),
        ranked AS (
            SELECT actor_id, gap,
                   ROW_NUMBER() OVER (PARTITION BY actor_id ORDER BY gap) AS n,
                   COUNT(*) OVER (PARTITION BY actor_id) AS total
            FROM gaps WHERE gap <= %s
        )
        SELECT actor_id, AVG(gap) FROM ranked
        WHERE n IN ((total + 1) / 2, (total + 2) / 2)
        GROUP BY actor_id
    """  # noqa: S608 - the query Django wrote and the vendor's expression; values are bound
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, LONGEST_GAP_SECONDS])
        return {actor_id: float(gap) for actor_id, gap in cursor.fetchall()}


@dataclass(frozen=True)
class QueueFigures:
    name: str
    left: int
    left_detail: str
    per_hour: float
    hours_left: float | None


def queue_figures(project) -> list[QueueFigures]:
    """Per queue of `project`: what is still waiting, and the pace of the last 24 hours."""
    day_ago = timezone.now() - timedelta(hours=24)
    paced = dict(
        Decision.objects.filter(project=project, at__gte=day_ago, actor__isnull=False)
        .exclude(action__in=NOT_DECISIONS)
        .exclude(action__endswith=".undo")
        .values_list("object_type")
        .annotate(n=Count("pk"))
        .order_by()
    )
    proposed_entries = Entry.objects.filter(
        plan__project=project, plan__status=Plan.Status.OPEN, state=Entry.State.PROPOSED
    ).count()
    figures = []
    for queue, kind in QUEUES.items():
        left = kind.waiting(project).count()
        work = proposed_entries if queue == Lease.Queue.PLANS else left
        detail = f"{proposed_entries} entries still proposed" if queue == Lease.Queue.PLANS else ""
        per_hour = paced.get(QUEUE_OBJECTS[queue], 0) / 24
        figures.append(
            QueueFigures(
                name=Lease.Queue(queue).label,
                left=left,
                left_detail=detail,
                per_hour=round(per_hour, 1),
                hours_left=round(work / per_hour, 1) if per_hour else None,
            )
        )
    return figures


@require_GET
def progress(request: HttpRequest) -> HttpResponse:
    project = current_project(request)
    if not can_lead(request.user, project):
        raise PermissionDenied("The progress page is for leads and staff.")
    context = {
        "reviewers": reviewer_figures(project=project),
        "queues": queue_figures(project),
        "longest_gap_minutes": LONGEST_GAP_SECONDS // 60,
    }
    return render(request, "review/progress.html", context)
