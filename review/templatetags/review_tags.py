"""Small template helpers shared by the shell and the plans pages."""

from __future__ import annotations

from django import template
from django.utils.html import format_html

from review.permissions import can_read_insights, role_label

register = template.Library()


@register.filter
def role(user) -> str:
    return role_label(user)


@register.filter
def get_item(mapping, key):
    """`mapping[key]`, or None: for a figure looked up by a row's name."""
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def reads_insights(user) -> bool:
    return can_read_insights(user)


@register.simple_tag
def area_current(request, prefix: str) -> str:
    """` aria-current="page"` on the top bar link of the area being shown."""
    if request is not None and request.path.startswith(prefix):
        return format_html(' aria-current="{}"', "page")
    return ""
