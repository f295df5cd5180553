"""Small template helpers shared by the shell and the plans pages."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from review.models.projects import DEFAULT_SLUG
from review.permissions import can_read_insights, membership_project_id, role_label

register = template.Library()


def _project_or_default(user, project):
    # Without a project named, "Default", where every address without a project works; found
    # among the person's memberships, so drawing the top bar asks the database nothing more.
    return project if project is not None else membership_project_id(user, DEFAULT_SLUG)


@register.filter
def role(user, project=None) -> str:
    """The person's roles in `project` (`user|role:request.project`), else in "Default"."""
    return role_label(user, _project_or_default(user, project))


@register.filter
def get_item(mapping, key):
    """`mapping[key]`, or None: for a figure looked up by a row's name."""
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def reads_insights(user, project=None) -> bool:
    """Whether the person reads the insights of `project` (without one, of "Default")."""
    return can_read_insights(user, _project_or_default(user, project))


@register.simple_tag
def area_current(request, prefix: str) -> str:
    """` aria-current="page"` on the top bar link of the area being shown."""
    if request is not None and request.path.startswith(prefix):
        return format_html(' aria-current="{}"', "page")
    return ""
