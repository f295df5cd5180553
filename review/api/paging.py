"""A list's pages: the query a list operation takes and the `next` URL it answers."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from ninja import Field, Schema


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
