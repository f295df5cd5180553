"""Signing in and out: the sign-in page (a password, single sign-on, or both), the two
addresses of the OpenID Connect flow (404 while single sign-on is off), signing out (of the
provider too, after single sign-on), and /sign-on/roles/, where staff map the provider's claim
values to roles in projects."""

from __future__ import annotations

import logging
from functools import wraps
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from review.actions.projects import ProjectRefused
from review.actions.sign_on import map_claim, unmap_claim
from review.decisions import ActionRefused
from review.forms import ClaimRoleForm, SignInForm
from review.models import ClaimRole
from review.sign_on_provider import (
    ProviderUnavailable,
    end_session_endpoint,
    setting,
    signs_out_of_provider,
)
from review.views import HtmxHttpRequest

logger = logging.getLogger(__name__)

# The sign-in page's `sign_on` after a sign-on that did not end signed in: refused, or not
# possible because the provider could not be had.
FAILED = "failed"
UNAVAILABLE = "unavailable"


class SignInView(auth_views.LoginView):
    authentication_form = SignInForm

    def get_context_data(self, **kwargs):
        return super().get_context_data(**kwargs) | {
            "sso_enabled": settings.SSO_ENABLED,
            "sso_provider_name": settings.SSO_PROVIDER_NAME,
            "password_sign_in": settings.PASSWORD_SIGN_IN,
            "sign_on_failed": self.request.GET.get("sign_on") == FAILED,
            "sign_on_unavailable": self.request.GET.get("sign_on") == UNAVAILABLE,
        }


class SignOnStartView(OIDCAuthenticationRequestView):
    # The authorization endpoint, from the discovery document unless set by hand.
    get_settings = staticmethod(setting)


class SignOnCallbackView(OIDCAuthenticationCallbackView):
    @property
    def failure_url(self) -> str:
        return f"{reverse('login')}?sign_on={FAILED}"


def _while_sign_on_is_on(view):
    """The flow's addresses answer 404 while no provider is configured (the library's views
    would fail on the missing settings), and are open to people not yet signed in. A provider
    that cannot be had sends the person back to the sign-in page, which says so, and the
    reason goes to the log."""

    @login_not_required
    @wraps(view)
    def answer(request, *args, **kwargs):
        if not settings.SSO_ENABLED:
            raise Http404("Single sign-on is not configured here.")
        try:
            return view(request, *args, **kwargs)
        except ProviderUnavailable as problem:
            logger.error("Single sign-on is unavailable: %s", problem)
            return redirect(f"{reverse('login')}?sign_on={UNAVAILABLE}")

    return answer


sign_on_start = _while_sign_on_is_on(SignOnStartView.as_view())
sign_on_callback = _while_sign_on_is_on(SignOnCallbackView.as_view())


class SignOutView(auth_views.LogoutView):
    """Django's sign-out, then, for someone who signed in through the provider, the
    provider's own (RP-initiated logout 1.0), which sends them back to the sign-in page."""

    def post(self, request, *args, **kwargs):
        # Asked before the session, and the ID token in it, is gone.
        provider_sign_out = _provider_sign_out(request)
        answer = super().post(request, *args, **kwargs)
        return redirect(provider_sign_out) if provider_sign_out else answer


def _provider_sign_out(request) -> str | None:
    """The provider's end-session address for this session, with its ID token, when it signs
    out of the provider too and the provider names one; None otherwise."""
    id_token = request.session.get("oidc_id_token")
    if not (id_token and signs_out_of_provider(request)):
        return None
    try:
        address = end_session_endpoint()
    except ProviderUnavailable as problem:
        logger.warning("Signed out of the app only, not of the provider: %s", problem)
        return None
    if address is None:
        return None
    query = urlencode(
        {
            "id_token_hint": id_token,
            "client_id": settings.OIDC_RP_CLIENT_ID,
            "post_logout_redirect_uri": request.build_absolute_uri(reverse("login")),
        }
    )
    return f"{address}{'&' if '?' in address else '?'}{query}"


def _refuse_unless_staff(request: HtmxHttpRequest) -> None:
    if not request.user.is_staff:
        raise PermissionDenied("Only staff map sign-on claims to roles.")


@require_http_methods(["GET", "POST"])
def claim_roles(request: HtmxHttpRequest) -> HttpResponse:
    _refuse_unless_staff(request)
    form = ClaimRoleForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            map_claim(
                actor=request.user,
                claim_value=data["claim_value"],
                project=data["project"],
                roles=form.roles(),
            )
        except ActionRefused as refused:
            form.add_error(refused.field if isinstance(refused, ProjectRefused) else None, refused)
        else:
            messages.success(
                request, f"“{data['claim_value']}” now gives roles in {data['project']}."
            )
            return redirect("claim-roles")
    status = 422 if form.errors else 200
    context = {
        "mappings": ClaimRole.objects.select_related("project"),
        "form": form,
        "roles_claim": settings.SSO_ROLES_CLAIM,
        "sso_enabled": settings.SSO_ENABLED,
    }
    return render(request, "review/claim_roles.html", context, status=status)


@require_POST
def claim_role_remove(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    _refuse_unless_staff(request)
    # Sent twice (a double click, the back button): the first took it away; say so.
    mapping = ClaimRole.objects.select_related("project").filter(pk=pk).first()
    if mapping is None:
        messages.info(request, "That mapping was already removed.")
    else:
        unmap_claim(mapping, actor=request.user)
        messages.success(
            request, f"“{mapping.claim_value}” no longer gives roles in {mapping.project}."
        )
    return redirect("claim-roles")
