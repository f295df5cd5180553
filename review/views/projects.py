"""The project a request works in."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse

from review.models import Project
from review.models.projects import DEFAULT_SLUG, default_project
from review.permissions import member_projects


def current_project(request: HttpRequest) -> Project:
    """The project this request works in: the one its URL names (`request.project`, set when
    the address is resolved), else the project "Default"."""
    project = getattr(request, "project", None)
    if project is None:
        project = request.project = default_project()
    return project


def _reads_memberships(user) -> bool:
    """Whether `user`'s projects are their memberships (staff work in every project)."""
    return getattr(user, "is_authenticated", False) and not user.is_staff


def projects_worked_in(user) -> list[Project]:
    """The projects `user` works in, in their order: `Project.objects.of_member` as a list.
    Someone who is not staff is answered from their memberships, which the page reads for
    its buttons anyway, so the address's project and the switcher cost no query of their
    own."""
    if _reads_memberships(user):
        return member_projects(user)
    return list(Project.objects.of_member(user))


def project_worked_in(user, slug: str) -> Project | None:
    """The project `slug` names, if `user` works in it (None otherwise, as for no project)."""
    if _reads_memberships(user):
        return next((p for p in member_projects(user) if p.slug == slug), None)
    return Project.objects.of_member(user).filter(slug=slug).first()


def home_project(user) -> Project | None:
    """Where an address that names no project leads `user` (an old bookmark, the top bar of
    a page outside any project): "Default" when they work in it, else their only project;
    None when they work in none, or in several of which none is "Default"."""
    projects = projects_worked_in(user)
    default = next((p for p in projects if p.slug == DEFAULT_SLUG), None)
    if default is not None:
        return default
    return projects[0] if len(projects) == 1 else None


def project_url(request: HttpRequest, name: str, *args) -> str:
    """The address of route `name` (with `args` after the project) in the request's project."""
    return reverse(name, args=[current_project(request).slug, *args])


def in_current_project(request: HttpRequest, items: QuerySet) -> QuerySet:
    """The rows of `items` that `request.user` may see, of the project the request works in:
    what every list, count, search and Next reads (another project's items are never
    counted, listed or handed out)."""
    return items.visible_to(request.user).filter(project=current_project(request))
