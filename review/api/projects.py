"""The projects a key acts for, and its roles in each: where a pipeline finds the slugs its
addresses name (`/api/projects/{project}/...`)."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router, Schema

from review.api.errors import answers
from review.permissions import member_projects, role_names

router = Router()


class ProjectOut(Schema):
    slug: str
    name: str
    description: str
    roles: list[str]


@router.get(
    "/projects",
    response=answers({200: list[ProjectOut]}),
    summary="The projects this key acts for, with the roles it acts with in each",
)
def list_projects(request: HttpRequest):
    holder = request.auth
    return [
        {
            "slug": project.slug,
            "name": project.name,
            "description": project.description,
            "roles": sorted(role_names(holder, project)),
        }
        for project in member_projects(holder)
    ]
