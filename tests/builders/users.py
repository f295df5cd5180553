"""The people who use the pages, for the view and browser tests: a user in one of the groups
(Editors, Moderators, Readers), with the demo's password."""

from __future__ import annotations

from django.contrib.auth.models import Group


def user_in(django_user_model, username: str, group: str | None):
    user = django_user_model.objects.create_user(username, password="demo")
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    return user
