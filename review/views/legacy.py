"""The addresses from before projects (`/plans/12/`, `/cases/`, …): a bookmark or a link in a
ticket leads to the same page under the project it belongs to, `/p/<slug>/plans/12/`.

One view for every old address: the table says which first segments moved and, for those
followed by an item's pk, which model that pk names."""

from __future__ import annotations

from django.db.models import Model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import Resolver404, resolve
from django.utils.encoding import escape_uri_path

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


def moved_address(request: HttpRequest, prefix: str, rest: str) -> HttpResponse:
    """The same path and query under the project: 302 for GET and HEAD; 307 for the rest, so
    that a form posted to an old address is posted again, body and all (not permanent while
    the addresses may still move). 404 for an item the person may not see, as for one that
    does not exist."""
    model, pk = MOVED[prefix], rest.partition("/")[0]
    if model is not None and pk.isdigit():
        project = _project_of(request, model, int(pk))
    else:
        project = home_project(request.user)
        if project is None:
            return redirect("dashboard")
    path_info = f"/p/{project.slug}{request.path_info}"
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
