"""Who a request is: the key in `Authorization: Bearer <key>`, and the role an operation needs."""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from ninja.security import HttpBearer

from review.models import ApiToken
from review.permissions import (
    can_decide_answers,
    can_decide_cases,
    can_decide_plans,
    can_read_insights,
)
from review.views.projects import current_project


def without_login(urls: tuple) -> tuple:
    """The API's URLs (`api.urls`), exempt from the site's LoginRequiredMiddleware: a key
    says who a request is, and a login page would mean nothing to a pipeline."""
    patterns, app_name, namespace = urls
    for pattern in patterns:
        login_not_required(pattern.callback)
    return patterns, app_name, namespace


class BearerKey(HttpBearer):
    """The key's active user; with `may`, only a user the web's permission function lets in
    the project the request works in (403 otherwise), asked before the body is read, so a
    role that may not learns nothing from how its body would have been judged."""

    def __init__(self, may: Callable[[object, object], bool] | None = None, refusal: str = ""):
        super().__init__()
        self.may, self.refusal = may, refusal

    def authenticate(self, request: HttpRequest, token: str):
        digest = hashlib.sha256(token.encode()).hexdigest()
        found = ApiToken.objects.select_related("user").filter(key_sha256=digest).first()
        if found is None or not found.user.is_active:
            return None
        if self.may is not None and not self.may(found.user, current_project(request)):
            raise PermissionDenied(self.refusal)
        return found.user


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
