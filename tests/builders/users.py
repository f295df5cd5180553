"""The people who use the pages, for the view and browser tests: a member of a project with
their roles there (`member`), and a user made with the demo's password who is an editor,
moderator, curator, lead or reader of the project "Default" (`user_in`, by the names of the
groups that once gave those roles)."""

from __future__ import annotations

from review.models import Membership, Project
from review.models.projects import default_project_id

# The old groups' names, and the role each names in a project ("Readers": a member with none).
ROLE_OF = {
    "Editors": "editor",
    "Moderators": "moderator",
    "Curators": "curator",
    "Leads": "lead",
    "Readers": None,
    None: None,
}


def member(user, project=None, *roles: str) -> Membership:
    """Make `user` a member of `project` (a Project, its id, or None for "Default") holding
    `roles` ("editor", "moderator", "curator", "lead"; none: a reader), added to any roles
    they hold there already."""
    project_id = default_project_id() if project is None else getattr(project, "pk", project)
    membership, _ = Membership.objects.get_or_create(project_id=project_id, user=user)
    for role in roles:
        setattr(membership, role, True)
    membership.save()
    # A page caches a person's roles on their user object; this one's changed.
    user.__dict__.pop("_review_roles", None)
    return membership


def make_project(slug: str, name: str | None = None) -> Project:
    return Project.objects.get_or_create(slug=slug, defaults={"name": name or slug.title()})[0]


def user_in(django_user_model, username: str, group: str | None):
    """A user with the demo's password, a member of "Default" with the role the group `group`
    once gave (a reader for "Readers" or no group)."""
    user = django_user_model.objects.create_user(username, password="demo")
    role = ROLE_OF[group]
    member(user, None, *([role] if role else []))
    return user


def member_of_default(user):
    """`user`, now a member of "Default" with a role for each of the old groups they are in
    (as migration 0017 made everyone who used the pages before projects)."""
    groups = user.groups.values_list("name", flat=True)
    member(user, None, *(ROLE_OF[name] for name in groups if ROLE_OF.get(name)))
    return user
