"""What an item's page draws of the guidelines and the discussion, each with one tag, so the
item's own view need not know of them; and the dashboard's unread mentions."""

from __future__ import annotations

from django import template

from review.models import Mention

register = template.Library()

# The dashboard lists this many unread mentions at most; the count says how many there are.
MENTIONS_LISTED = 20


@register.inclusion_tag("review/guidelines/_panel.html")
def guidelines_panel(kind: str, project) -> dict:
    """The side panel of an item's page in `project` (the page's own): `kind` is "plans",
    "cases" or "answers"."""
    from review.views.guidelines import guidelines_panel as panel

    return {"panel": panel(project, kind)}


@register.inclusion_tag("review/comments/_region.html#comments", takes_context=True)
def comments_region(context, item) -> dict:
    """The discussion region of an item's page, as the person may read it."""
    from review.views.comments import discussion

    request = context["request"]
    return {
        "request": request,
        "csrf_token": context.get("csrf_token"),
        **discussion(request, item),
    }


@register.simple_tag(takes_context=True)
def unread_mentions(context) -> dict:
    """The person's unread mentions, each with where its comment is read."""
    from review.views.comments import item_discussion_url

    mentions = Mention.objects.unread_for(context["request"].user)
    listed = mentions.select_related(
        "comment__project", "comment__entry", "comment__case", "comment__answer"
    )
    return {
        "listed": [
            {
                "pk": mention.pk,
                "comment": mention.comment,
                "url": item_discussion_url(mention.comment.item, mention.comment.project.slug),
            }
            for mention in listed[:MENTIONS_LISTED]
        ],
        "count": mentions.count(),
    }
