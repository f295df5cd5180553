"""The app's addresses as the tests ask for them: a route of project work is in the project
today's data moved into unless the test names another."""

from __future__ import annotations

from django.urls import reverse

from review.models.projects import DEFAULT_SLUG


def url_of(name: str, *args, project: str = DEFAULT_SLUG, **kwargs) -> str:
    """The address of route `name` in `project` (a slug), with `args` or `kwargs` after it."""
    if kwargs:
        return reverse(name, kwargs={"project": project, **kwargs})
    return reverse(name, args=[project, *args])
