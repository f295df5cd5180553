"""/tokens/: a person's own API tokens, made here with the projects and roles each may act
for (never more than they hold) and an expiry, shown once, listed with their last use, and
revoked. Staff see and revoke everyone's. `manage.py create_api_token` stays for scripts."""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from review.actions.tokens import create_token, revoke_token
from review.forms import TokenForm
from review.models import ApiToken, Project
from review.permissions import role_names
from review.refusals import ActionRefused
from review.views import HtmxHttpRequest

# The most tokens a page lists; older ones are still in the admin.
LISTED = 200


def _projects(user) -> list[tuple[Project, frozenset[str]]]:
    return [(project, role_names(user, project)) for project in Project.objects.of_member(user)]


def _tokens_page(request: HtmxHttpRequest, form: TokenForm, status: int = 200) -> HttpResponse:
    tokens = ApiToken.objects.select_related("user", "revoked_by").prefetch_related(
        "grants__project"
    )
    if not request.user.is_staff:
        tokens = tokens.filter(user=request.user)
    context = {"form": form, "tokens": tokens[:LISTED], "now": timezone.now()}
    return render(request, "review/tokens/list.html", context, status=status)


@require_GET
def token_list(request: HtmxHttpRequest) -> HttpResponse:
    return _tokens_page(request, TokenForm(projects=_projects(request.user)))


@never_cache  # the key is on this page, once: no cache may keep it
@require_POST
def token_new(request: HtmxHttpRequest) -> HttpResponse:
    form = TokenForm(request.POST, projects=_projects(request.user))
    if not form.is_valid():
        return _tokens_page(request, form, status=422)
    days = form.cleaned_data["lifetime"]
    expires_at = timezone.now() + dt.timedelta(days=days) if days else None
    try:
        token, key = create_token(
            request.user,
            form.cleaned_data["name"],
            form.cleaned_data["grants"],
            expires_at=expires_at,
            request=request,
        )
    except ActionRefused as refused:
        form.add_error(None, str(refused))
        return _tokens_page(request, form, status=422)
    return render(request, "review/tokens/made.html", {"token": token, "key": key}, status=201)


@require_POST
def token_revoke(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    # Someone else's token is not theirs to know of: 404, as for one that does not exist.
    tokens = (
        ApiToken.objects.all()
        if request.user.is_staff
        else ApiToken.objects.filter(user=request.user)
    )
    token = get_object_or_404(tokens, pk=pk)
    revoke_token(token, request.user, request)
    messages.success(request, f"The token {token.name!r} is revoked: it opens nothing now.")
    return redirect("tokens")
