"""What every template may read besides Django's own."""

from __future__ import annotations

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from review.views.projects import home_project


def project(request: HttpRequest) -> dict:
    """`project`: the one the address names, or outside any project the person's home
    project (`home_project`; None when there is none), which the top bar's links lead into.
    Looked up only if a template draws it."""
    named = getattr(request, "project", None)
    if named is not None:
        return {"project": named}
    return {"project": SimpleLazyObject(lambda: home_project(request.user))}
