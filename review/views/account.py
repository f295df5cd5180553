"""/account/: the person's own account, and signing out everywhere else."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from review.actions.accounts import sign_out_everywhere as sign_out_everywhere_else
from review.forms import SignOutEverywhereForm
from review.refusals import ActionRefused
from review.views import HtmxHttpRequest


def _account_page(request: HtmxHttpRequest, form: SignOutEverywhereForm, status: int = 200):
    return render(request, "review/account.html", {"form": form}, status=status)


@require_GET
def account(request: HtmxHttpRequest) -> HttpResponse:
    return _account_page(request, SignOutEverywhereForm())


@require_POST
def sign_out_everywhere(request: HtmxHttpRequest) -> HttpResponse:
    form = SignOutEverywhereForm(request.POST)
    if not form.is_valid():
        return _account_page(request, form, status=422)
    try:
        sign_out_everywhere_else(request, form.cleaned_data["password"])
    except ActionRefused as refused:
        form.add_error("password", str(refused))
        return _account_page(request, form, status=422)
    messages.success(request, "Your other sessions are signed out; this one goes on.")
    return redirect("account")
