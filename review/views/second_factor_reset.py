"""/security/second-factors/reset/: staff remove the second factor of someone who lost both
their authenticator app and their recovery codes, giving the reason, and end their sessions
(`review.actions.second_factor.reset_second_factor`). Linked from the security log, where staff
look a person up by name."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods

from review.actions.second_factor import reset_second_factor as reset
from review.forms import ResetSecondFactorForm
from review.refusals import ActionRefused
from review.views import HtmxHttpRequest


@require_http_methods(["GET", "POST"])
def second_factor_reset(request: HtmxHttpRequest) -> HttpResponse:
    if not request.user.is_staff:
        raise PermissionDenied("Staff reset a second factor.")
    if request.method == "GET":
        form = ResetSecondFactorForm(initial={"username": request.GET.get("username", "")})
        return render(request, "review/second_factor_reset.html", {"form": form})
    form = ResetSecondFactorForm(request.POST)
    if form.is_valid():
        username = form.cleaned_data["username"]
        try:
            reset(username, actor=request.user, reason=form.cleaned_data["reason"], request=request)
        except ActionRefused as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(request, f"{username}'s second factor is removed and signed out.")
            query = urlencode({"username": username})
            return redirect(f"{reverse('security-log')}?{query}")
    return render(request, "review/second_factor_reset.html", {"form": form}, status=422)
