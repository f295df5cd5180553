"""Server-rendered pages, one module per page or area; every route is in `review/urls.py`,
and each view asks its model's `get_<model>_for_user` helper for what it draws."""

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """A request as django-htmx's middleware leaves it."""

    htmx: HtmxDetails
