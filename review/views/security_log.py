"""/security/: the security log, for staff: newest first, a page at a time (the lists' own
keyset pages), narrowed by kind, by a person (whom an event is about, or who did it), by
address and by time (`review.forms.SecurityLogFilterForm`)."""

from __future__ import annotations

import ipaddress

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from review.forms import SecurityLogFilterForm
from review.models import SecurityEvent
from review.second_factor import authenticator_of
from review.views import HtmxHttpRequest
from review.views.lists import order_keys, shown_page

PER_PAGE = 100
KEYS = order_keys(SecurityEvent, ["-at", "-pk"])


@require_GET
def security_log(request: HtmxHttpRequest) -> HttpResponse:
    if not request.user.is_staff:
        raise PermissionDenied("The security log is for staff.")
    form = SecurityLogFilterForm(request.GET)
    events = SecurityEvent.objects.select_related("actor")
    # A filter that makes no sense is named above the list, which shows nothing until fixed.
    events = _narrowed(events, form.cleaned_data) if form.is_valid() else events.none()
    page = shown_page(request, events, KEYS, PER_PAGE)
    person = form.cleaned_data.get("username", "") if form.is_valid() else ""
    context = {
        "page": page,
        "form": form,
        "narrowed": any(form.data.get(name) for name in form.fields),
        "reset_for": _with_second_factor(person),
    }
    return render(
        request, "review/security_log.html", context, status=200 if form.is_valid() else 422
    )


def _narrowed(events: QuerySet, filters: dict) -> QuerySet:
    if filters["kind"]:
        events = events.filter(kind=filters["kind"])
    if name := filters["username"]:
        events = events.filter(Q(username=name) | Q(actor__username=name))
    if address := filters["address"]:
        # Not an address at all: nothing is from it (the column would refuse the comparison).
        events = events.filter(address=address) if _an_address(address) else events.none()
    if filters["since"] is not None:
        events = events.filter(at__gte=filters["since"])
    if filters["until"] is not None:
        events = events.filter(at__lt=filters["until"])
    return events


def _an_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _with_second_factor(username: str) -> str:
    """`username`, when the log is narrowed to a person who has a second factor (for the link
    to reset it, where staff look them up); else ""."""
    person = get_user_model().objects.filter(username=username).first() if username else None
    return username if person is not None and authenticator_of(person) else ""
