"""Refuse a form post holding the NUL character, naming the field: PostgreSQL cannot store
it in text, so a note or title with one would otherwise fail as a server error (on SQLite it
would be kept, and then differ between the two databases)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.utils.deprecation import MiddlewareMixin

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class RefuseNulInForms(MiddlewareMixin):
    # process_view, so that CSRF and sign-in are checked first (they come earlier in the list).
    def process_view(self, request: HttpRequest, view, args, kwargs) -> HttpResponse | None:
        if request.method != "POST" or request.content_type not in FORM_TYPES:
            return None
        for name, values in request.POST.lists():
            if any("\x00" in value for value in values):
                return HttpResponseBadRequest(
                    f"The field {name!r} holds the NUL character (\\u0000), which cannot be "
                    "stored; remove it and send the form again."
                )
        return None
