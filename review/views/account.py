"""/account/: the person's own account: signing out everywhere else, and their second factor
(enrolling an authenticator app, its recovery codes, removing it)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from review.actions.accounts import sign_out_everywhere as sign_out_everywhere_else
from review.actions.second_factor import confirm_enrolment, disenrol, start_enrolment
from review.forms import RemoveSecondFactorForm, SecondFactorCodeForm, SignOutEverywhereForm
from review.refusals import ActionRefused
from review.second_factor import (
    authenticator_of,
    must_enrol,
    pending_authenticator_of,
    recovery_device_of,
    secret_of,
    while_enrolling,
)
from review.views import HtmxHttpRequest


def _account_page(request: HtmxHttpRequest, status: int = 200, **forms) -> HttpResponse:
    user = request.user
    pending = pending_authenticator_of(user)
    recovery = recovery_device_of(user)
    context = {
        "form": forms.get("form") or SignOutEverywhereForm(),
        "authenticator": authenticator_of(user),
        "must_enrol": must_enrol(user),
        "pending": pending,
        "pending_secret": secret_of(pending) if pending else "",
        "code_form": forms.get("code_form") or SecondFactorCodeForm(),
        "remove_form": forms.get("remove_form") or RemoveSecondFactorForm(),
        "recovery_codes": forms.get("recovery_codes", []),
        "recovery_left": recovery.token_set.count() if recovery else 0,
    }
    return render(request, "review/account.html", context, status=status)


@while_enrolling
@never_cache
@require_GET
def account(request: HtmxHttpRequest) -> HttpResponse:
    return _account_page(request)


@require_POST
def sign_out_everywhere(request: HtmxHttpRequest) -> HttpResponse:
    form = SignOutEverywhereForm(request.POST)
    if not form.is_valid():
        return _account_page(request, status=422, form=form)
    try:
        sign_out_everywhere_else(request, form.cleaned_data["password"])
    except ActionRefused as refused:
        form.add_error("password", str(refused))
        return _account_page(request, status=422, form=form)
    messages.success(request, "Your other sessions are signed out; this one goes on.")
    return redirect("account")


@while_enrolling
@require_POST
def second_factor_start(request: HtmxHttpRequest) -> HttpResponse:
    try:
        start_enrolment(request)
    except ActionRefused as refused:
        messages.error(request, str(refused))
    return redirect("account")


@while_enrolling
@never_cache
@require_POST
def second_factor_confirm(request: HtmxHttpRequest) -> HttpResponse:
    form = SecondFactorCodeForm(request.POST)
    if not form.is_valid():
        return _account_page(request, status=422, code_form=form)
    try:
        codes = confirm_enrolment(request, form.cleaned_data["code"])
    except ActionRefused as refused:
        form.add_error("code", str(refused))
        return _account_page(request, status=422, code_form=form)
    # Drawn in this answer, not after a redirect, so the codes go into no session or message:
    # no page shows them again (django-otp keeps them in its table, to check them).
    return _account_page(request, recovery_codes=codes)


@require_POST
def second_factor_remove(request: HtmxHttpRequest) -> HttpResponse:
    form = RemoveSecondFactorForm(request.POST)
    if not form.is_valid():
        return _account_page(request, status=422, remove_form=form)
    try:
        disenrol(request, form.cleaned_data["code_or_password"])
    except ActionRefused as refused:
        form.add_error("code_or_password", str(refused))
        return _account_page(request, status=422, remove_form=form)
    messages.success(request, "Your second factor is removed: you sign in with a password only.")
    return redirect("account")
