"""/security/: the security log, for staff: newest first, a page at a time (the lists' own
keyset pages), narrowed by kind, by the name an event is about, and by address."""

from __future__ import annotations

import ipaddress

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

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
    filters = {name: request.GET.get(name, "").strip() for name in ("kind", "username", "address")}
    events = SecurityEvent.objects.select_related("actor")
    if filters["kind"] in SecurityEvent.Kind.values:
        events = events.filter(kind=filters["kind"])
    if filters["username"]:
        events = events.filter(username=filters["username"])
    if filters["address"]:
        # Not an address at all: nothing is from it (the column would refuse the comparison).
        address = filters["address"]
        events = events.filter(address=address) if _an_address(address) else events.none()
    page = shown_page(request, events, KEYS, PER_PAGE)
    context = {
        "page": page,
        "kinds": SecurityEvent.Kind.choices,
        "filters": filters,
        "reset_for": _with_second_factor(filters["username"]),
    }
    return render(request, "review/security_log.html", context)


def _with_second_factor(username: str) -> str:
    """`username`, when the log is narrowed to a person who has a second factor (for the link
    to reset it, where staff look them up); else ""."""
    person = get_user_model().objects.filter(username=username).first() if username else None
    return username if person is not None and authenticator_of(person) else ""


def _an_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
