"""Refuse a form post or a query holding the NUL character, naming the field: PostgreSQL
cannot store or compare it in text, so a note, a title or a list filter with one would
otherwise fail as a server error (on SQLite it would be kept, and differ between the two)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.utils.deprecation import MiddlewareMixin

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class RefuseNulInForms(MiddlewareMixin):
    # process_view, so that CSRF and sign-in are checked first (they come earlier in the list).
    def process_view(self, request: HttpRequest, view, args, kwargs) -> HttpResponse | None:
        fields = request.GET.lists()
        if request.method == "POST" and request.content_type in FORM_TYPES:
            fields = [*fields, *request.POST.lists()]
        for name, values in fields:
            if any("\x00" in value for value in values):
                return HttpResponseBadRequest(
                    f"The field {name!r} holds the NUL character (\\u0000), which cannot be "
                    "stored or searched for; remove it and send the request again."
                )
        return None
