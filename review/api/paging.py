"""A list's pages: the query a list operation takes and the `next` URL it answers."""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings
from django.db.models import QuerySet
from django.http import Http404, HttpRequest
from ninja import Field, Schema

from review.views.lists import Key, beyond


class PageIn(Schema):
    after: int | None = Field(None, description="the last id of the page before")
    limit: int = Field(100, ge=1, le=settings.REVIEW_API_PAGE_MAX)


def page_of(request: HttpRequest, rows: list, page: PageIn) -> dict:
    """One page of `rows` (fetched one longer than the limit, to know whether more follow)."""
    more = len(rows) > page.limit
    rows = rows[: page.limit]
    following = None
    if more:
        query = request.GET.copy()
        query["after"] = str(rows[-1].pk)
        query["limit"] = str(page.limit)
        following = f"{request.path}?{query.urlencode()}"
    return {"rows": rows, "next": following}


def after_in_order(items: QuerySet, keys: Sequence[Key], page: PageIn, what: str) -> QuerySet:
    """`items` in the order of `keys` (as their page lists them, the last key unique), from
    just after the row `page.after`: the cursor stays a plain id, as the plans' is, however
    the list is ordered. A 404 when that row is not there to list after."""
    ordered = items.order_by(*(key.ordering() for key in keys))
    if page.after is None:
        return ordered
    boundary = items.filter(pk=page.after).values_list(*(key.name for key in keys)).first()
    if boundary is None:
        raise Http404(f"there is no {what} {page.after} to list after")
    return ordered.filter(beyond(keys, boundary, reverse=False))
