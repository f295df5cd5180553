"""What every template may read besides Django's own: the project a page works in, and the
projects the person works in, for the top bar to switch between."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest
from django.urls import reverse
from django.utils.functional import SimpleLazyObject

from review.models import Project
from review.views.projects import home_project, projects_worked_in


def project(request: HttpRequest) -> dict:
    """`project`: the one the address names, or outside any project the person's home
    project (`home_project`; None when there is none), which the top bar's links lead into.
    Looked up only if a template draws it."""
    named = getattr(request, "project", None)
    if named is not None:
        return {"project": named}
    return {"project": SimpleLazyObject(lambda: home_project(request.user))}


def project_url(project: Project, name: str) -> str:
    """The address of the page `name` (a route's name) of `project`."""
    return reverse(name, args=[project.slug])


def project_home_url(project: Project) -> str:
    """Where a person switching to `project` lands: its plans."""
    return project_url(project, "plans")


@dataclass(frozen=True)
class ProjectLink:
    project: Project
    url: str
    current: bool


def project_links(request: HttpRequest) -> list[ProjectLink]:
    """The projects `request.user` works in, each with its address, the current one marked
    (the one the address names, else the person's home project)."""
    current = getattr(request, "project", None) or home_project(request.user)
    return [
        ProjectLink(each, project_home_url(each), current is not None and each.pk == current.pk)
        for each in projects_worked_in(request.user)
    ]


def projects(request: HttpRequest) -> dict:
    # Lazy: a fragment that draws no top bar asks nothing of the database.
    return {"project_links": SimpleLazyObject(lambda: project_links(request))}
