"""Work queues: "Next" hands a reviewer the first item nobody else holds and holds it for
them (a lease), renewed while their page is open, released when they leave or decide, and
ended by itself after `settings.LEASE_IDLE_SECONDS` without a renewal.

A lease steers people apart; it does not guard a decision, which is still checked against
the item's version. Taking is safe under concurrency twice over: on PostgreSQL the candidate
row is locked with `SELECT ... FOR UPDATE SKIP LOCKED`, so two takers pass each other by; on
SQLite the whole take is one IMMEDIATE transaction (see settings), so takers queue up; and
on both the unique (queue, item) constraint refuses a second holder whatever happens.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from review.decisions import ActionRefused, record
from review.models import Answer, Case, Decision, Lease, Plan, Presence
from review.permissions import can_decide_answers, can_decide_cases, can_decide_plans, can_lead

Queue = Lease.Queue

# A page polls every few seconds; someone not heard from for this long has left.
PRESENCE_SECONDS = 20
# A take that loses a race for an item tries the next one; a few races in a row is a crowd.
TAKE_ATTEMPTS = 5
RELEASE = "lease.release"


@dataclass(frozen=True)
class QueueKind:
    """What one queue hands out, in which order, and who may take from it."""

    waiting: callable  # () -> QuerySet of the items still waiting for a person, in order
    may_take: callable  # (user) -> bool
    item_url_name: str


QUEUES = {
    Queue.PLANS: QueueKind(
        lambda: Plan.objects.filter(status=Plan.Status.OPEN).order_by("created_at", "pk"),
        can_decide_plans,
        "plan",
    ),
    # The cases list's order: flagged first, then the oldest.
    Queue.CASES: QueueKind(
        lambda: Case.objects.filter(verdict=Case.Verdict.PROPOSED).order_by(
            "-flagged", "created_at", "pk"
        ),
        can_decide_cases,
        "case",
    ),
    Queue.ANSWERS: QueueKind(
        lambda: Answer.objects.filter(state=Answer.State.PROPOSED).order_by("created_at", "pk"),
        can_decide_answers,
        "answer",
    ),
}


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


def waiting_count(queue: str) -> int:
    """Items waiting that nobody holds."""
    held = live_leases(queue).values("item_id")
    return QUEUES[queue].waiting().exclude(pk__in=held).count()


# --- taking, renewing, releasing -----------------------------------------------------------


def take_next(queue: str, user) -> Lease | None:
    """Hold the first waiting item that nobody else holds, and let go of the one `user` held
    in this queue (pressing Next moves on). None when nothing is left to take."""
    if not QUEUES[queue].may_take(user):
        raise ActionRefused(f"You do not review {Queue(queue).label.lower()}.")
    for _ in range(TAKE_ATTEMPTS):
        try:
            with transaction.atomic():
                return _take(queue, user)
        except IntegrityError:
            # Someone else's lease on the same item landed between our look and our insert.
            continue
    raise ActionRefused("Many reviewers are taking items at once; press Next again.")


def _take(queue: str, user) -> Lease | None:
    now = timezone.now()
    mine = Lease.objects.filter(queue=queue, holder=user)
    leaving = list(mine.values_list("item_id", flat=True))
    mine.delete()
    Lease.objects.filter(queue=queue, expires_at__lte=now).delete()
    free = (
        QUEUES[queue].waiting().exclude(pk__in=Lease.objects.filter(queue=queue).values("item_id"))
    )
    item = _first_unlocked(free.exclude(pk__in=leaving)) or _first_unlocked(free)
    if item is None:
        return None
    return Lease.objects.create(
        queue=queue, item_id=item.pk, holder=user, taken_at=now, expires_at=now + idle_limit()
    )


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
        if not retake or not QUEUES[queue].may_take(user):
            return None
        if not QUEUES[queue].waiting().filter(pk=item_id).exists():
            return None
        Lease.objects.filter(queue=queue, item_id=item_id, expires_at__lte=now).delete()
        if Lease.objects.filter(queue=queue, item_id=item_id).exists():
            return None
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
            return None


def release(queue: str, item_id: int, user) -> bool:
    """Let go of `user`'s own lease on the item (they left its page, or decided it)."""
    deleted, _ = Lease.objects.filter(queue=queue, item_id=item_id, holder=user).delete()
    return bool(deleted)


def release_for_holder(lease: Lease, *, actor) -> Decision:
    """A lead (or staff) ends someone else's lease, say on an item left open over lunch.
    Logged, since it takes work out of a person's hands."""
    if not can_lead(actor):
        raise ActionRefused("Only leads and staff may release another reviewer's lease.")
    with transaction.atomic():
        before = {
            "queue": lease.queue,
            "item_id": lease.item_id,
            "holder": lease.holder.username,
            "taken_at": lease.taken_at.isoformat(),
        }
        decision = record(
            actor=actor, action=RELEASE, obj=lease, before=before, after={"holder": None}
        )
        Lease.objects.filter(pk=lease.pk).delete()
    return decision


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
