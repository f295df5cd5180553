"""Lockouts of failed sign-ins: the page a locked-out sign-in gets (django-axes'
`AXES_LOCKOUT_CALLABLE`, at the site's form and the admin's), and /security/lockouts/, where
staff see the lockouts in force and lift one."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from review.actions.lockouts import lift_lockout
from review.forms import LiftLockoutForm
from review.lockouts import lockouts_in_force, lockouts_of
from review.refusals import ActionRefused
from review.views import HtmxHttpRequest

# What axes answers a refused sign-in with: 429 Too Many Requests.
LOCKED_OUT = 429


@login_not_required
def locked_out(request: HttpRequest, response=None, credentials=None) -> HttpResponse:
    """In place of the sign-in page, for a sign-in refused because its account or its address
    is locked out: which, and when it ends."""
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    found = lockouts_of(username, getattr(request, "axes_ip_address", None))
    # Locked a moment ago by this very request, so at least a cool-off from now if the rows
    # are gone (lifted since).
    ends_at = max((lockout.ends_at for lockout in found), default=None) or (
        timezone.now() + settings.AXES_COOLOFF_TIME
    )
    context = {
        "lockouts": found,
        "ends_at": ends_at,
        "limit": settings.AXES_FAILURE_LIMIT,
        "cool_off_minutes": round(settings.AXES_COOLOFF_TIME.total_seconds() / 60),
    }
    return render(request, "registration/locked_out.html", context, status=LOCKED_OUT)


def _lockouts_page(request: HtmxHttpRequest, form: LiftLockoutForm, status: int = 200):
    if not request.user.is_staff:
        raise PermissionDenied("Lockouts are lifted by staff.")
    context = {"lockouts": lockouts_in_force(), "form": form}
    return render(request, "review/lockouts.html", context, status=status)


@require_GET
def lockout_list(request: HtmxHttpRequest) -> HttpResponse:
    return _lockouts_page(request, LiftLockoutForm())


@require_POST
def lockout_lift(request: HtmxHttpRequest) -> HttpResponse:
    if not request.user.is_staff:
        raise PermissionDenied("Lockouts are lifted by staff.")
    form = LiftLockoutForm(request.POST)
    if not form.is_valid():
        return _lockouts_page(request, form, status=422)
    of, value = form.cleaned_data["of"], form.cleaned_data["value"]
    try:
        lift_lockout(of, value, request.user, request)
    except ActionRefused as refused:
        messages.info(request, f"{str(refused).capitalize()}.")
    else:
        messages.success(request, f"The lockout of the {of} {value} is lifted.")
    return redirect("lockouts")
