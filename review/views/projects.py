"""The project a request works in."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse

from review.models import Project
from review.models.projects import DEFAULT_SLUG, default_project


def current_project(request: HttpRequest) -> Project:
    """The project this request works in: the one its URL names (`request.project`, set when
    the address is resolved), else the project "Default"."""
    project = getattr(request, "project", None)
    if project is None:
        project = request.project = default_project()
    return project


def home_project(user) -> Project | None:
    """Where an address that names no project leads `user` (an old bookmark, the top bar of
    a page outside any project): "Default" when they work in it, else their only project;
    None when they work in none, or in several of which none is "Default"."""
    projects = Project.objects.of_member(user)
    default = projects.filter(slug=DEFAULT_SLUG).first()
    if default is not None:
        return default
    only = list(projects[:2])
    return only[0] if len(only) == 1 else None


def project_url(request: HttpRequest, name: str, *args) -> str:
    """The address of route `name` (with `args` after the project) in the request's project."""
    return reverse(name, args=[current_project(request).slug, *args])


def in_current_project(request: HttpRequest, items: QuerySet) -> QuerySet:
    """The rows of `items` that `request.user` may see, of the project the request works in:
    what every list, count, search and Next reads (another project's items are never
    counted, listed or handed out)."""
    return items.visible_to(request.user).filter(project=current_project(request))
