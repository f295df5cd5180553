"""/accounts/second-factor/: the code asked for after the password (or single sign-on) of
someone with an authenticator, before any other page lets them in."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from review.actions.second_factor import SecondFactorLockedOut, verify_second_factor
from review.forms import SecondFactorCodeForm
from review.refusals import ActionRefused
from review.second_factor import authenticator_of, before_second_factor
from review.views import HtmxHttpRequest
from review.views.lockouts import locked_out


def _next_of(request: HtmxHttpRequest) -> str:
    """Where the person was going, if it is one of ours; else the dashboard."""
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(wanted, {request.get_host()}, request.is_secure()):
        return wanted
    return "/"


@before_second_factor
@never_cache
@require_http_methods(["GET", "POST"])
def second_factor(request: HtmxHttpRequest) -> HttpResponse:
    if request.user.is_verified() or authenticator_of(request.user) is None:
        return redirect(_next_of(request))
    form = SecondFactorCodeForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        username = request.user.get_username()
        try:
            verify_second_factor(request, form.cleaned_data["code"])
        except SecondFactorLockedOut:
            return locked_out(request, credentials={"username": username})
        except ActionRefused as refused:
            form.add_error("code", str(refused))
        else:
            return redirect(_next_of(request))
    status = 422 if form.errors else 200
    context = {"form": form, "next": _next_of(request)}
    return render(request, "registration/second_factor.html", context, status=status)
