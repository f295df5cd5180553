"""The work queues: "Next" on plans, cases and answers (GET shows what is waiting, POST takes
the next item), the poll an item's page makes while open (it renews the lease, says who else
is here, and brings what others changed), taking an item again after a lead released it,
leaving a page, and a lead releasing a lease.

Seeing each other is htmx polling, not server-sent events: a poll is one short request that
works behind any proxy and holds no gunicorn sync worker open, and a few seconds of delay is
what people sharing a queue need.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_http_methods, require_POST

from review.actions import leases
from review.actions.reviewers import do_set_stay_after_deciding
from review.decisions import ActionRefused
from review.models import Lease
from review.permissions import is_member
from review.views import HtmxHttpRequest, cases, entries
from review.views.leasing import item_url, presence, undo_offer
from review.views.plan_context import get_plan_for_user
from review.views.projects import current_project, project_url

Queue = Lease.Queue


def _queue(name: str) -> str:
    if name not in Queue.values:
        raise Http404(f"No queue {name!r}.")
    return name


def _open_item(request: HttpRequest, queue: str, pk: int) -> str:
    """The queue of an item page's poll or take: 404 for an item the person may not see (a
    plan is found as its page finds it, so another editor's review copy is not there; a case
    or an answer through its model's rule)."""
    queue = _queue(queue)
    if queue == Queue.PLANS:
        get_plan_for_user(request, pk)
    elif not leases.QUEUES[queue].model.objects.visible_to(request.user).filter(pk=pk).exists():
        raise Http404("No such item.")
    return queue


@require_http_methods(["GET", "POST"])
def queue_next(request: HttpRequest, queue: str) -> HttpResponse:
    queue = _queue(queue)
    project = current_project(request)
    may_take = leases.QUEUES[queue].may_take(request.user, project)
    if request.method == "POST":
        if not may_take:
            raise PermissionDenied(f"You do not review {Queue(queue).label.lower()}.")
        try:
            lease = leases.take_next(queue, request.user, project)
        except ActionRefused as refused:
            messages.error(request, str(refused))
            return redirect(project_url(request, f"{queue}-next"))
        if lease is not None:
            return redirect(item_url(request, queue, lease.item_id))
        messages.info(
            request, f"Nothing is waiting in {Queue(queue).label.lower()} that nobody else holds."
        )
        return redirect(project_url(request, f"{queue}-next"))
    context = {
        "queue": queue,
        "queue_label": Queue(queue).label,
        "waiting": leases.waiting_count(queue, request.user, project),
        "may_take": may_take,
        "list_url": project_url(request, queue),
        "next_url": project_url(request, f"{queue}-next"),
        **undo_offer(request, queue),
    }
    return render(request, "review/queues/next.html", context)


@require_POST
def stay_setting(request: HttpRequest) -> HttpResponse:
    do_set_stay_after_deciding(request.user, request.POST.get("stay") == "1")
    messages.success(request, "Saved.")
    return redirect("dashboard")


# --- an item's open page --------------------------------------------------------------------


@require_POST
def item_here(request: HtmxHttpRequest, queue: str, pk: int) -> HttpResponse:
    """The poll of an open item page: the "Also here" strip, and out of band what other
    people changed on the item since the page last saw it."""
    queue = _open_item(request, queue, pk)
    changes, seen = "", request.POST.get("seen", "")
    if queue in LIVE_CHANGES:
        changes, seen = LIVE_CHANGES[queue](request, pk, seen)
    context = presence(request, queue, pk) | {"seen": seen}
    return HttpResponse(render_to_string("review/_presence.html", context, request) + changes)


@require_POST
def item_take(request: HtmxHttpRequest, queue: str, pk: int) -> HttpResponse:
    """Take an item again (its page offers it after a lead released the person's lease):
    refused while someone else holds it. Over htmx, the strip it changed."""
    queue = _open_item(request, queue, pk)
    project = leases.item_project_id(queue, pk)
    if not leases.QUEUES[queue].may_take(request.user, project):
        raise PermissionDenied(f"You do not review {Queue(queue).label.lower()}.")
    refused = ""
    try:
        leases.take(queue, pk, request.user)
    except ActionRefused as refusal:
        refused = str(refusal)
    if not request.htmx:
        if refused:
            messages.error(request, refused)
        return redirect(item_url(request, queue, pk))
    context = presence(request, queue, pk) | {
        "seen": request.POST.get("seen", ""),
        "take_refused": refused,
    }
    # Someone else holding it is a conflict with a person (409); anything else, a refusal.
    status = 200 if not refused else 409 if context["held_by"] else 422
    return HttpResponse(render_to_string("review/_presence.html", context, request), status=status)


@require_POST
def item_leave(request: HttpRequest, queue: str, pk: int) -> HttpResponse:
    """The page was left (sent by `navigator.sendBeacon`): release its lease, and say the
    person is no longer here."""
    queue = _queue(queue)
    leases.release(queue, pk, request.user)
    leases.mark_gone(queue, pk, request.user)
    return HttpResponse(status=204)


@require_POST
def lease_release(request: HttpRequest, pk: int) -> HttpResponse:
    """A lead (or staff) releases someone else's lease from a list page."""
    lease = get_object_or_404(Lease.objects.select_related("holder"), pk=pk)
    if not is_member(request.user, leases.item_project_id(lease.queue, lease.item_id)):
        raise Http404("No such lease.")
    try:
        leases.release_for_holder(lease, actor=request.user)
    except ActionRefused as refused:
        raise PermissionDenied(str(refused)) from refused
    messages.success(request, f"Released {lease.holder.username}'s hold.")
    return redirect(project_url(request, lease.queue))


# What else a poll brings, per queue: the plan's changed entries, the case's verdict; each
# answers the same kind of cursor (`live`). An answer's page brings nothing else yet.
LIVE_CHANGES = {Queue.PLANS: entries.live_changes, Queue.CASES: cases.live_changes}
