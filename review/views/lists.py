"""What the case and answer lists share: the page shown, counts for its rows alone, the
filters its pager keeps, and which template answers (the page, or for htmx its results)."""

from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.db.models import Count, Manager, QuerySet

from review.views import HtmxHttpRequest


def shown_page(request: HtmxHttpRequest, items: QuerySet, per_page: int) -> Page:
    """The page the request asks for, its objects loaded."""
    page = Paginator(items, per_page).get_page(request.GET.get("page"))
    page.object_list = list(page.object_list)
    return page


def count_on_page(page: Page, rows: Manager | QuerySet, field: str, attribute: str) -> None:
    """Set `attribute` on each object of the page to how many `rows` point at it by `field`."""
    # Counted for the shown page only, so the pager's count stays a plain COUNT.
    counts = dict(
        rows.filter(**{f"{field}__in": page.object_list})
        .values_list(field)
        .annotate(n=Count("pk"))
        .order_by()
    )
    for item in page.object_list:
        setattr(item, attribute, counts.get(item.pk, 0))


def query_without_page(request: HtmxHttpRequest) -> str:
    """The list's filters as a query string, for the pager's links to keep."""
    query = request.GET.copy()
    query.pop("page", None)
    return query.urlencode()


def list_template(request: HtmxHttpRequest, template: str, results: str) -> str:
    """The whole page, or for an htmx filter (not a boosted link) only its `results` partial."""
    if request.htmx and not request.htmx.boosted:
        return f"{template}#{results}"
    return template
