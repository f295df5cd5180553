"""What an item's page asks of its lease: the "Also here" strip (and, when the page polls,
recording that the person is here and renewing their lease), moving on to the next item
once a decision finished this one, and the way back: the next page's offer to undo it."""

from __future__ import annotations

from datetime import timedelta

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import timezone

from review.actions import leases
from review.decisions import decisions_by, last_undoable
from review.models import Answer, Case, Lease, Plan, ReviewerSettings, SecondOpinions
from review.views import HtmxHttpRequest
from review.views.projects import project_url

Queue = Lease.Queue


ITEM_PAGES = {Queue.PLANS: "plan", Queue.CASES: "case", Queue.ANSWERS: "answer"}


def item_url(request: HttpRequest, queue: str, item_id: int) -> str:
    """The page of a held item; a plan handed to be curated opens on its curation page."""
    if queue == Queue.PLANS:
        plan = Plan.objects.filter(pk=item_id).first()
        if plan is not None and plan.in_curation:
            return project_url(request, "plan-curation", item_id)
    return project_url(request, ITEM_PAGES[queue], item_id)


def stays_after_deciding(user) -> bool:
    return ReviewerSettings.objects.filter(user=user, stay_after_deciding=True).exists()


def after_deciding(request: HtmxHttpRequest, queue: str, item_id: int, response) -> HttpResponse:
    """Once a decision that finishes an item landed (a verdict, a publication, an
    adjudication) on an item the reviewer took from the queue: let it go and open the next
    one, unless they chose to stay. An item opened from a list is not moved on from."""
    landed = response.status_code == 302 or (request.htmx and response.status_code == 200)
    if not landed or not leases.release(queue, item_id, request.user):
        return response
    if stays_after_deciding(request.user):
        return response
    _remember_moved_on(request, queue, item_id)
    # Next goes on in the project of the item just decided.
    lease = leases.take_next(queue, request.user, leases.item_project_id(queue, item_id))
    if lease:
        url = item_url(request, queue, lease.item_id)
    else:
        url = project_url(request, f"{queue}-next")
    if request.htmx:
        response["HX-Redirect"] = url
        return response
    return redirect(url)


# --- the way back after moving on ------------------------------------------------------------

# What the next page offers to undo, per queue: the item's model, its undo (the action the
# item's own Undo posts to), the log's undo action, and what the decision is called.
UNDOABLE_QUEUES = {
    Queue.CASES: (Case, "case-undo", "case.undo", "verdict"),
    Queue.ANSWERS: (Answer, "answer-undo", "answer.undo", "decision"),
}
MOVED_ON = "moved_on"
# How long the next page offers the undo, at most; it goes sooner, at the person's next
# decision. A slip is seen on the next page within moments; after minutes, or once they have
# decided something else, an undo reaching back would take a verdict back from a page they
# no longer look at, and the item's own page (or the dashboard's list) has its Undo.
UNDO_AFTER_MOVING_ON = timedelta(minutes=5)


def _remember_moved_on(request: HttpRequest, queue: str, item_id: int) -> None:
    if queue not in UNDOABLE_QUEUES:
        return
    latest = decisions_by(request.user, 1)
    model = UNDOABLE_QUEUES[queue][0]
    if not latest or (latest[0].object_type, latest[0].object_id) != (
        model._meta.model_name,
        str(item_id),
    ):
        return
    request.session[MOVED_ON] = {"queue": queue, "item": item_id, "decision": latest[0].pk}


def undo_offer(request: HttpRequest, queue: str) -> dict:
    """The page after Next moved on: "Undo your verdict on c-1004", while that verdict is
    still the person's latest decision, still the item's latest (nobody decided it since),
    and younger than UNDO_AFTER_MOVING_ON. It posts to the item's own undo, which keeps the
    log, the versions and whose opinion may be taken back."""
    moved = request.session.get(MOVED_ON)
    if not moved or moved["queue"] != queue:
        return {}
    model, undo_url, undo_action, called = UNDOABLE_QUEUES[queue]
    item = model.objects.filter(pk=moved["item"]).first()
    latest = decisions_by(request.user, 1)
    undoable = last_undoable(item, undo_action) if item is not None else None
    if (
        not latest
        or latest[0].pk != moved["decision"]
        or undoable is None
        or undoable.pk != moved["decision"]
        or timezone.now() - undoable.at > UNDO_AFTER_MOVING_ON
    ):
        del request.session[MOVED_ON]
        return {}
    name = item.case_id if queue == Queue.CASES else item.answer_id
    return {
        "undo_offer": {
            "label": f"Undo your {called} on {name}",
            "url": project_url(request, undo_url, item.pk),
            "version": item.version,
        }
    }


def after_undoing(request: HttpRequest, queue: str, item_id: int, response) -> HttpResponse:
    """An undo sent from the next page's offer takes the item back (if nobody else holds it),
    so deciding it again moves on as it did the first time."""
    if response.status_code == 302 and request.POST.get("retake") == "1":
        leases.renew(queue, item_id, request.user, retake=True)
    return response


def presence_strip(request: HttpRequest, queue: str, item_id: int) -> dict:
    """What the page draws of the "Also here" strip before its first poll fills it in (no
    query: the page's own queries stay as few as they were)."""
    return {
        "presence_queue": queue,
        "here_url": project_url(request, "item-here", queue, item_id),
        "leave_url": project_url(request, "item-leave", queue, item_id),
        "next_url": project_url(request, f"{queue}-next"),
    }


def presence(request: HttpRequest, queue: str, item_id: int) -> dict:
    """The strip as a poll draws it: having recorded that the person is here and renewed their
    lease, who else is here and who holds the item.

    The page posts the id of the lease it last held. When that lease is gone the page takes
    the item back (a reload, a laptop that slept), unless a lead released it: then the strip
    says who did and when, renews nothing, and offers to take it again while nobody holds it."""
    user = request.user
    leases.mark_present(queue, item_id, user)
    page_lease = _posted_id(request.POST.get("lease", ""))
    released = None
    if leases.renew(queue, item_id, user) is None and page_lease is not None:
        released = leases.lead_release_of(queue, item_id, user, page_lease)
        if released is None:
            leases.renew(queue, item_id, user, retake=True)
    lease = leases.live_leases(queue).filter(item_id=item_id).select_related("holder").first()
    held = lease is not None and lease.holder_id == user.pk
    names = leases.others_here(queue, item_id, user)
    holder = lease.holder.username if lease and not held else ""
    if names or holder:
        first = _first_reviewer_hidden_from(user, queue, item_id)
        names = [UNNAMED if name == first else name for name in names]
        holder = UNNAMED if holder and holder == first else holder
    return presence_strip(request, queue, item_id) | {
        "polled": True,
        "others_here": names,
        "held": held,
        "held_by": holder,
        "lease_id": lease.pk if held else page_lease if released else "",
        "released": released,
        "may_take_again": bool(released) and lease is None and _may_take(queue, item_id, user),
        "take_url": project_url(request, "item-take", queue, item_id),
    }


def _may_take(queue: str, item_id: int, user) -> bool:
    project = leases.item_project_id(queue, item_id)
    return leases.QUEUES[queue].may_take(user, project) and leases.may_hold(
        queue, item_id, user, project
    )


def _posted_id(value: str) -> int | None:
    return int(value) if value.isdecimal() else None


# Who the strip says is here in place of a first reviewer the viewer may not know of.
UNNAMED = "another reviewer"


def _first_reviewer_hidden_from(user, queue: str, item_id: int) -> str | None:
    """Blind review: the username of the item's first reviewer while its second opinion is
    awaited and `user` is not them (`SecondOpinions.hides_first_opinion_from`, in SQL as the
    log's `blind_to` asks it), since naming who is on the page would say whose opinion it is."""
    model = leases.QUEUES[queue].model
    if not issubclass(model, SecondOpinions):
        return None
    awaiting = model.objects.filter(model.awaiting_second_q(), pk=item_id).exclude(first_by=user)
    return awaiting.values_list("first_by__username", flat=True).first()
