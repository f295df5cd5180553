"""The people who use the pages, for the view and browser tests: a user in one of the groups
(Editors, Moderators, Readers), with the demo's password, and a member of the project
"Default", as everyone who used the pages before projects became (migration 0017)."""

from __future__ import annotations

from django.contrib.auth.models import Group

from review.models import Membership
from review.models.projects import default_project_id

# The role each group became in a membership (migration 0017); Readers hold none.
ROLE_OF_GROUP = {
    "Editors": "editor",
    "Moderators": "moderator",
    "Curators": "curator",
    "Leads": "lead",
}


def user_in(django_user_model, username: str, group: str | None):
    user = django_user_model.objects.create_user(username, password="demo")
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return member_of_default(user)


def member_of_default(user):
    """`user`, now a member of "Default" with a role for each of their groups."""
    groups = user.groups.values_list("name", flat=True)
    roles = {ROLE_OF_GROUP[name]: True for name in groups if name in ROLE_OF_GROUP}
    Membership.objects.get_or_create(project_id=default_project_id(), user=user, defaults=roles)
    return user
