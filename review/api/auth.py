"""Who a request is: the key in `Authorization: Bearer <key>`, the project the address names,
and the role an operation needs there."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Annotated

from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.utils import timezone
from ninja import Path
from ninja.security import HttpBearer

from review.api.errors import KeyRefused
from review.models import ApiToken
from review.permissions import (
    can_decide_answers,
    can_decide_cases,
    can_decide_plans,
    can_read_insights,
    role_label,
    token_holder,
)
from review.second_factor import must_enrol
from review.views.projects import project_worked_in

# The path parameter every project's operation declares: its value was read, and the project
# resolved for the token, before the operation ran (`BearerKey`); the operation reads
# `current_project(request)`.
ProjectSlug = Annotated[
    str, Path(description="the project's slug, as its address `/p/<slug>/` names it")
]


def without_login(urls: tuple) -> tuple:
    """The API's URLs (`api.urls`), exempt from the site's LoginRequiredMiddleware: a key
    says who a request is, and a login page would mean nothing to a pipeline."""
    patterns, app_name, namespace = urls
    for pattern in patterns:
        login_not_required(pattern.callback)
    return patterns, app_name, namespace


def holder_of(key: str):
    """Whom `key` acts as (`review.permissions.token_holder`): its active owner, in the
    projects and with the roles its grants name; None for no such key, and `KeyRefused`
    for one revoked, expired or of an inactive owner."""
    digest = hashlib.sha256(key.encode()).hexdigest()
    found = (
        ApiToken.objects.select_related("user", "revoked_by")
        .prefetch_related("grants__project")
        .filter(key_sha256=digest)
        .first()
    )
    if found is None:
        return None
    now = timezone.now()
    if why := found.refusal(now):
        raise KeyRefused(why)
    if not found.user.is_active:
        raise KeyRefused(f"this key's owner, {found.user.username}, may no longer sign in")
    found.note_use(now)
    return token_holder(found.user, [(g.project, g.role_names) for g in found.grants.all()])


class BearerKey(HttpBearer):
    """The key's holder, in the project the address names: one the token does not act for
    answers as one that does not exist (404). With `may`, only a holder the web's permission
    function lets in that project (403 otherwise), asked before the body is read, so a role
    that may not learns nothing from how its body would have been judged."""

    def __init__(self, may: Callable[[object, object], bool] | None = None, refusal: str = ""):
        super().__init__()
        self.may, self.refusal = may, refusal

    def authenticate(self, request: HttpRequest, token: str):
        holder = holder_of(token)
        if holder is None:
            return None
        # The web's helpers (`in_current_project`, ...) read the request's user.
        request.user = holder
        slug = request.resolver_match.kwargs.get("project")
        project = None if slug is None else project_worked_in(holder, slug)
        if slug is not None and project is None:
            raise Http404(f"there is no project {slug!r} this key acts for")
        if must_enrol(holder, project):
            # A key is no way round the second factor the pages ask of its owner.
            where = "this site" if project is None else repr(slug)
            raise KeyRefused(
                f"{where} requires a second factor, and this key's owner, {holder.username},"
                " has none",
                remedy="they enrol one on their account page, and the key works again",
            )
        if project is None:  # an operation outside any project (the list of them)
            return holder
        request.project = project
        if self.may is not None and not self.may(holder, project):
            # Which roles the key acts with: its owner's may be more than its grant names.
            acts_as = role_label(holder, project)
            raise PermissionDenied(f"{self.refusal}; this key acts as {acts_as} in {slug!r}")
        return holder


ANY_KEY = BearerKey()
EDITORS_PUSH_DOCUMENTS = BearerKey(can_decide_plans, "only Editors push documents")
EDITORS_PROPOSE = BearerKey(can_decide_plans, "only Editors propose plans")
EDITORS_IMPORT_PLANS = BearerKey(can_decide_plans, "only Editors import plans")
MODERATORS_IMPORT_CASES = BearerKey(can_decide_cases, "only Moderators import cases")
EDITORS_IMPORT_ANSWERS = BearerKey(can_decide_answers, "only Editors import answers")
EDITORS_PUSH_REVISIONS = BearerKey(can_decide_plans, "only Editors push revisions")
AGREEMENT_READERS = BearerKey(
    can_read_insights, "the agreement figures are for editors, moderators and curators"
)
INSIGHTS_READERS = BearerKey(
    can_read_insights, "the insights are for editors, moderators and curators"
)
