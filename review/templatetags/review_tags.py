"""Small template helpers shared by the shell and the plans pages."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from review.models.projects import default_project_id
from review.permissions import can_read_insights, role_label

register = template.Library()


@register.filter
def role(user, project=None) -> str:
    """The person's roles in `project` (`user|role:request.project`); without one, in the
    project "Default", where every address without a project works."""
    return role_label(user, project or default_project_id())


@register.filter
def get_item(mapping, key):
    """`mapping[key]`, or None: for a figure looked up by a row's name."""
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def reads_insights(user, project=None) -> bool:
    """Whether the person reads the insights of `project` (without one, of "Default")."""
    return can_read_insights(user, project or default_project_id())


@register.simple_tag
def area_current(request, prefix: str) -> str:
    """` aria-current="page"` on the top bar link of the area being shown."""
    if request is not None and request.path.startswith(prefix):
        return format_html(' aria-current="{}"', "page")
    return ""
