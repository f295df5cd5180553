"""Work queues: "Next" hands a reviewer the first item nobody else holds and holds it for
them (a lease), renewed while their page is open, released when they leave or decide, and
ended by itself after `settings.LEASE_IDLE_SECONDS` without a renewal.

A lease steers people apart; it does not guard a decision, which is still checked against
the item's version. Taking is safe under concurrency twice over: on PostgreSQL the candidate
row is locked with `SELECT ... FOR UPDATE SKIP LOCKED`, so two takers pass each other by; on
SQLite the whole take is one IMMEDIATE transaction (see settings), so takers queue up; and
on both the unique (queue, item) constraint refuses a second holder whatever happens.

Under double review the same Next hands out first and second reviews alike, never to someone
who reviewed the item already, and disagreements to curators. A plan under double review is
held as the editor's own review copy (made when it is handed), so the second editor can be
handed the plan while the first still works on theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from review.actions import plan_reviews
from review.actions.reviews import needing_review_by, review_stages
from review.decisions import ActionRefused, decisions_on, delete_logged
from review.models import Answer, Case, Decision, Lease, Plan, Presence
from review.permissions import (
    can_curate,
    can_decide_answers,
    can_decide_cases,
    can_decide_plans,
    can_lead,
)

Queue = Lease.Queue

# A page polls every few seconds; someone not heard from for this long has left.
PRESENCE_SECONDS = 20
# A take that loses a race for an item tries the next one; a few races in a row is a crowd.
TAKE_ATTEMPTS = 5
RELEASE = "lease.release"


@dataclass(frozen=True)
class QueueKind:
    """What one queue hands out, to whom, in which order; and who may take from it."""

    model: type
    # (project) -> QuerySet of every item of the project still waiting for a person (progress)
    waiting: callable
    # (user, project) -> QuerySet of the project's items `user` may be handed: under double
    # review first and second reviews alike (never to someone who reviewed the item
    # already), and disagreements to curators (`actions.reviews`, `actions.plan_reviews`);
    # in the order handed when the queue has no `stages`.
    for_user: callable
    may_take: callable  # (user, project) -> bool
    # (item, user) -> the row the lease holds: the item, or a plan's review copy.
    to_hold: callable = lambda item, user: item
    # (ids held) -> the items they stand for (a review copy stands for its plan): what Next
    # moves on from.
    items_of: callable = lambda ids: ids
    # (user, project) -> the QuerySets Next takes from, one after the other, each in the
    # queue's order; by default `for_user` as one.
    stages: callable = None

    def stages_for(self, user, project) -> list[QuerySet]:
        return self.stages(user, project) if self.stages else [self.for_user(user, project)]


def _staged(model, may_decide, *order: str):
    return lambda user, project: [
        model.objects.filter(stage, project=project).order_by(*order)
        for stage in review_stages(user, model, may_decide(user, project), project)
    ]


def _plans_held(ids) -> list[int]:
    return [
        *ids,
        *Plan.objects.filter(pk__in=ids, review_of__isnull=False).values_list(
            "review_of", flat=True
        ),
    ]


def _in_order(items: QuerySet, *order: str) -> QuerySet:
    return items.order_by("review_order", *order)


QUEUES = {
    Queue.PLANS: QueueKind(
        Plan,
        lambda project: Plan.objects.waiting().filter(project=project).order_by("created_at", "pk"),
        lambda user, project: _in_order(
            plan_reviews.plans_needing_review_by(user, project), "created_at", "pk"
        ),
        lambda user, project: can_decide_plans(user, project) or can_curate(user, project),
        to_hold=plan_reviews.plan_to_hold,
        items_of=_plans_held,
    ),
    # The cases list's order: flagged first, then the oldest.
    Queue.CASES: QueueKind(
        Case,
        lambda project: Case.objects.filter(
            project=project, verdict=Case.Verdict.PROPOSED
        ).order_by("-flagged", "created_at", "pk"),
        lambda user, project: needing_review_by(
            user, Case, can_decide_cases(user, project), project
        ),
        lambda user, project: can_decide_cases(user, project) or can_curate(user, project),
        stages=_staged(Case, can_decide_cases, *Case.QUEUE_ORDER),
    ),
    Queue.ANSWERS: QueueKind(
        Answer,
        lambda project: Answer.objects.filter(
            project=project, state=Answer.State.PROPOSED
        ).order_by("created_at", "pk"),
        lambda user, project: needing_review_by(
            user, Answer, can_decide_answers(user, project), project
        ),
        lambda user, project: can_decide_answers(user, project) or can_curate(user, project),
        stages=_staged(Answer, can_decide_answers, "created_at", "pk"),
    ),
}


def item_project_id(queue: str, item_id: int) -> int | None:
    """The project of the item a lease of `queue` would hold (None when there is none)."""
    try:
        return Lease(queue=queue, item_id=item_id).decision_project_id
    except QUEUES[queue].model.DoesNotExist:
        return None


def idle_limit() -> timedelta:
    return timedelta(seconds=settings.LEASE_IDLE_SECONDS)


def live_leases(queue: str) -> QuerySet[Lease]:
    return Lease.objects.filter(queue=queue, expires_at__gt=timezone.now())


def with_holders(items: QuerySet, queue: str) -> QuerySet:
    """Each item annotated with its live lease: `lease_pk`, `holder_name`, `held_since` (None
    when nobody holds it). Subqueries, so a list page asks no more queries for them."""
    lease = live_leases(queue).filter(item_id=OuterRef("pk"))
    return items.annotate(
        lease_pk=Subquery(lease.values("pk")[:1]),
        holder_name=Subquery(lease.values("holder__username")[:1]),
        held_since=Subquery(lease.values("taken_at")[:1]),
    )


def waiting_count(queue: str, user, project) -> int:
    """Items of `project` waiting for `user` that nobody holds."""
    held = live_leases(queue).values("item_id")
    return QUEUES[queue].for_user(user, project).exclude(pk__in=held).count()


def may_hold(queue: str, item_id: int, user, project) -> bool:
    """Whether the item is one the queue would hand `user` in `project` (or, for a plan, their
    own copy of it, still open)."""
    kind = QUEUES[queue]
    if kind.for_user(user, project).filter(pk=item_id).exists():
        return True
    return (
        queue == Queue.PLANS
        and Plan.objects.filter(pk=item_id, reviewer=user, status=Plan.Status.OPEN).exists()
    )


# --- taking, renewing, releasing -----------------------------------------------------------


def take_next(queue: str, user, project) -> Lease | None:
    """Hold the first waiting item of `project` that nobody else holds, and let go of the one
    `user` held in this queue (pressing Next moves on). None when nothing is left to take."""
    if not QUEUES[queue].may_take(user, project):
        raise ActionRefused(f"You do not review {Queue(queue).label.lower()}.")
    for _ in range(TAKE_ATTEMPTS):
        try:
            with transaction.atomic():
                return _take(queue, user, project)
        except IntegrityError:
            # Someone else's lease on the same item landed between our look and our insert.
            continue
    raise ActionRefused("Many reviewers are taking items at once; press Next again.")


def _take(queue: str, user, project) -> Lease | None:
    kind = QUEUES[queue]
    now = timezone.now()
    mine = Lease.objects.filter(queue=queue, holder=user)
    leaving = kind.items_of(list(mine.values_list("item_id", flat=True)))
    mine.delete()
    Lease.objects.filter(queue=queue, expires_at__lte=now).delete()
    # A plan's review copy held by one editor leaves the plan free for the second.
    held = Lease.objects.filter(queue=queue).values("item_id")
    stages = [stage.exclude(pk__in=held) for stage in kind.stages_for(user, project)]
    # Moving on: the item just left comes back only when nothing else is free.
    item = _first_of(stage.exclude(pk__in=leaving) for stage in stages) or _first_of(stages)
    if item is None:
        return None
    held_row = kind.to_hold(kind.model.objects.get(pk=item.pk), user)
    return Lease.objects.create(
        queue=queue, item_id=held_row.pk, holder=user, taken_at=now, expires_at=now + idle_limit()
    )


def _first_of(stages):
    for stage in stages:
        item = _first_unlocked(stage)
        if item is not None:
            return item
    return None


def _first_unlocked(items: QuerySet):
    if connection.vendor == "postgresql":
        # Another taker's candidate is skipped, not waited for.
        items = items.select_for_update(skip_locked=True)
    return items.only("pk").first()


def renew(queue: str, item_id: int, user, *, retake: bool = False) -> Lease | None:
    """Extend `user`'s lease on the item while its page is open. With `retake`, a lease that
    ended (its page was reloaded, or the laptop slept) is taken again if nobody else holds
    it. None when `user` does not hold the item."""
    now = timezone.now()
    with transaction.atomic():
        mine = Lease.objects.filter(queue=queue, item_id=item_id, holder=user)
        if mine.update(expires_at=now + idle_limit()):
            return mine.get()
        if not retake:
            return None
        try:
            return take(queue, item_id, user)
        except ActionRefused:
            return None


def take(queue: str, item_id: int, user) -> Lease:
    """Hold this one item for `user` (their page offers it again after a lead released it):
    refused unless the queue would hand it to them and nobody else holds it."""
    kind = QUEUES[queue]
    noun = Queue(queue).label.lower()
    project = item_project_id(queue, item_id)
    if project is None or not kind.may_take(user, project):
        raise ActionRefused(f"You do not review {noun}.")
    if not may_hold(queue, item_id, user, project):
        raise ActionRefused(f"This {noun[:-1]} is no longer waiting for you.")
    now = timezone.now()
    with transaction.atomic():
        Lease.objects.filter(queue=queue, item_id=item_id, expires_at__lte=now).delete()
        held = Lease.objects.filter(queue=queue, item_id=item_id).select_related("holder").first()
        if held is not None and held.holder_id == user.pk:
            return held
        if held is not None:
            # Not named here: under blind review the holder may be the first reviewer, and
            # the strip beside this refusal names the holder where the viewer may know them.
            raise ActionRefused(f"Someone else holds this {noun[:-1]} now.")
        try:
            with transaction.atomic():
                return Lease.objects.create(
                    queue=queue,
                    item_id=item_id,
                    holder=user,
                    taken_at=now,
                    expires_at=now + idle_limit(),
                )
        except IntegrityError:
            raise ActionRefused(f"Someone else took this {noun[:-1]} a moment ago.") from None


def release(queue: str, item_id: int, user) -> bool:
    """Let go of `user`'s own lease on the item (they left its page, or decided it)."""
    deleted, _ = Lease.objects.filter(queue=queue, item_id=item_id, holder=user).delete()
    return bool(deleted)


def release_for_holder(lease: Lease, *, actor) -> Decision:
    """A lead (or staff) ends someone else's lease, say on an item left open over lunch.
    Logged, since it takes work out of a person's hands."""
    if not can_lead(actor, lease.decision_project_id):
        raise ActionRefused("Only leads and staff may release another reviewer's lease.")
    before = {
        "queue": lease.queue,
        "item_id": lease.item_id,
        "holder": lease.holder.username,
        "taken_at": lease.taken_at.isoformat(),
    }
    return delete_logged(lease, actor=actor, action=RELEASE, before=before, after={"holder": None})


def lead_release_of(queue: str, item_id: int, user, lease_id: int) -> Decision | None:
    """The log's row of a lead releasing `user`'s lease `lease_id` on the item, if that is how
    that lease ended; None when it expired or was never theirs. A page that held the lease
    asks this before taking it back, so a lead's release sticks.

    The log already says who released it and when, and a lease's id is never handed out
    twice, so the row names this very lease: no second record of the release to keep in
    step with the lease (made on release, cleared on taking again)."""
    released = decisions_on(Lease(pk=lease_id)).filter(
        action=RELEASE, before__queue=queue, before__item_id=item_id
    )
    return released.filter(before__holder=user.username).first()


# --- who is here ---------------------------------------------------------------------------


def mark_present(queue: str, item_id: int, user) -> None:
    # One row per page a person has open, give or take the ones just left: bounded.
    quiet = timezone.now() - timedelta(seconds=PRESENCE_SECONDS)
    Presence.objects.filter(user=user, seen_at__lt=quiet).delete()
    Presence.objects.update_or_create(
        queue=queue, item_id=item_id, user=user, defaults={"seen_at": timezone.now()}
    )


def mark_gone(queue: str, item_id: int, user) -> None:
    Presence.objects.filter(queue=queue, item_id=item_id, user=user).delete()


def others_here(queue: str, item_id: int, user) -> list[str]:
    """Usernames of the other people whose page on the item polled lately."""
    since = timezone.now() - timedelta(seconds=PRESENCE_SECONDS)
    rows = (
        Presence.objects.filter(queue=queue, item_id=item_id, seen_at__gt=since)
        .exclude(user=user)
        .order_by("user__username")
        .values_list("user__username", flat=True)
    )
    return list(rows)
