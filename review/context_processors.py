"""What every page's top bar draws beyond the signed-in person: the projects they work in, to
switch between."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest
from django.urls import reverse
from django.utils.functional import SimpleLazyObject

from review.models import DEFAULT_SLUG, Project


def project_url(project: Project, name: str) -> str:
    """The address of the page `name` (a route's name) of `project`."""
    # The routes name no project yet, so every project shares them; once they carry it, this
    # is the one line to change: reverse(name, kwargs={"slug": project.slug}).
    return reverse(name)


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
    (the one the address names, else "Default")."""
    current = getattr(request, "project", None)
    current_slug = current.slug if current is not None else DEFAULT_SLUG
    return [
        ProjectLink(project, project_home_url(project), project.slug == current_slug)
        for project in Project.objects.of_member(request.user)
    ]


def projects(request: HttpRequest) -> dict:
    # Lazy: a fragment that draws no top bar asks nothing of the database.
    return {"project_links": SimpleLazyObject(lambda: project_links(request))}
