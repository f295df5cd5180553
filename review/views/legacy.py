"""The addresses from before projects (`/plans/12/`, `/cases/`, …): a bookmark or a link in a
ticket leads to the same page under the project it belongs to, `/p/<slug>/plans/12/`; and a
pipeline's `/api/plans/12` to `/api/projects/<slug>/plans/12`.

One view for the pages' old addresses and one for the API's: a table for each says which
first segments moved and, for those followed by an item's pk, which model that pk names."""

from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.db.models import Model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import Resolver404, resolve
from django.utils.encoding import escape_uri_path
from django.views.decorators.csrf import csrf_exempt

from review.api.auth import holder_of
from review.api.errors import NOT_AUTHENTICATED, KeyRefused
from review.middleware import refusal
from review.models import Answer, Case, Document, Job, Plan, Project
from review.views.projects import home_project

# An old address's first segment -> the model whose pk may follow it (the item's own
# project is the one to go to), or None: the segment is an area of the person's project.
MOVED: dict[str, type[Model] | None] = {
    "plans": Plan,
    "cases": Case,
    "answers": Answer,
    "documents": Document,
    "jobs": Job,
    "insights": None,
    "progress": None,
    "policies": None,
    "next": None,
    "open": None,
    "leases": None,
}


# The same for the API's old addresses (`/api/<segment>/...`).
MOVED_IN_API: dict[str, type[Model] | None] = {
    "documents": Document,
    "plans": Plan,
    "jobs": Job,
    "cases": None,
    "answers": None,
    "decisions": None,
    "insights": None,
    "agreement": None,
}


def moved_address(request: HttpRequest, prefix: str, rest: str) -> HttpResponse:
    """The same path and query under the project: 302 for GET and HEAD; 307 for the rest, so
    that a form posted to an old address is posted again, body and all (not permanent while
    the addresses may still move). 404 for an item the person may not see, as for one that
    does not exist."""
    project = _project_for(request, MOVED[prefix], rest)
    if project is None:
        return redirect("dashboard")
    return _moved(request, f"/p/{project.slug}{request.path_info}")


# A redirect changes nothing, and a pipeline sends no CSRF token: its key says who it is.
@csrf_exempt
@login_not_required
def moved_api_address(request: HttpRequest, prefix: str, rest: str = "") -> HttpResponse:
    """An old API address, for the key's holder: as `moved_address`, in the refusal shape of
    the API (401 without a valid key, 404 for an item it may not see, or when it acts for
    several projects and none is "Default", so that the address must name one)."""
    scheme, _, key = request.headers.get("Authorization", "").partition(" ")
    try:
        holder = holder_of(key.strip()) if scheme.lower() == "bearer" else None
    except KeyRefused as refused:
        return refusal(request, 401, refused.explained)
    if holder is None:
        return refusal(request, 401, NOT_AUTHENTICATED)
    request.user = holder
    try:
        project = _project_for(request, MOVED_IN_API[prefix], rest)
        if project is None:
            raise Http404("this key acts for several projects: name one, /api/projects/<slug>/…")
        old = request.path_info
        return _moved(request, old.replace("/api/", f"/api/projects/{project.slug}/", 1))
    except Http404 as error:
        return refusal(request, 404, str(error))


def _project_for(
    request: HttpRequest, model: type[Model] | None, rest: str | None
) -> Project | None:
    """Where an old address leads: the project of the item whose pk begins `rest` when the
    segment names a model, else the person's own (`home_project`)."""
    pk = (rest or "").partition("/")[0]
    if model is not None and pk.isdigit():
        return _project_of(request, model, int(pk))
    return home_project(request.user)


def _moved(request: HttpRequest, path_info: str) -> HttpResponse:
    try:
        resolve(path_info)
    except Resolver404:
        raise Http404("No such page.") from None
    script_prefix = request.path.removesuffix(request.path_info)
    query = request.META.get("QUERY_STRING", "")
    url = escape_uri_path(script_prefix + path_info) + (f"?{query}" if query else "")
    return redirect(url, preserve_request=request.method not in ("GET", "HEAD"))


def _project_of(request: HttpRequest, model: type[Model], pk: int) -> Project:
    """The project of item `pk`, if the person works there and may see the item."""
    projects = Project.objects.of_member(request.user)
    item = model.objects.select_related("project").filter(pk=pk, project__in=projects).first()
    visible_to = getattr(item, "visible_to", None)
    if item is None or (visible_to is not None and not visible_to(request.user)):
        raise Http404("No such item.")
    return item.project
