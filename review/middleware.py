"""Requests refused before any view reads them, each with a message naming what is wrong:
JSON `{"detail", "problems"}` under the API, plain text elsewhere.

- RefuseOversizedBodies: a body longer than REVIEW_MAX_UPLOAD_BYTES answers 413 naming the
  limit, before anything reads it (a 60 MB upload would otherwise be held in memory, parsed
  and proposed on); the API's JSON-lines imports, which send a large body to a job, take up
  to REVIEW_MAX_JOB_UPLOAD_BYTES; on the pages, a body over the limit answers a page of the
  product with a way back.
- RefuseNulInForms: a form post or a query holding the NUL character, naming the field:
  PostgreSQL cannot store or compare it in text, so a note, a title or a list filter with one
  would otherwise fail as a server error (on SQLite it would be kept, and differ between the
  two).
- ProjectFromUrl: not a refusal of the body but of the address: a route under `p/<slug>/`
  works in that project only for its members (and staff); anyone else, and an unknown slug,
  get the same 404.
- SecondFactorGate: not a refusal but a detour: someone signed in with an authenticator who
  has not given its code yet is sent to give it, and someone who must have a second factor
  (REVIEW_REQUIRE_SECOND_FACTOR=1, or a project's requirement on its pages) and has none is
  sent to enrol, before any other page.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve, reverse
from django.utils.deprecation import MiddlewareMixin
from django.utils.http import url_has_allowed_host_and_scheme

from review.second_factor import BEFORE_SECOND_FACTOR, WHILE_ENROLLING, authenticator_of, must_enrol
from review.views.projects import project_worked_in

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith(reverse("api:openapi-json").removesuffix("openapi.json"))


def refusal(request: HttpRequest, status: int, message: str) -> HttpResponse:
    """The API's refusal shape under /api/, a plain-text one elsewhere."""
    if is_api(request):
        return JsonResponse({"detail": message, "problems": [message]}, status=status)
    return HttpResponse(message, status=status, content_type="text/plain; charset=utf-8")


# The routes whose large bodies go to a job (review.api's JSON-lines imports).
JOB_UPLOAD_ROUTES = frozenset({"api:post_cases", "api:post_answers"})


def upload_limit_message(size: int | None = None, setting: str = "REVIEW_MAX_UPLOAD_BYTES") -> str:
    limit = getattr(settings, setting)
    sent = f" this one is {size:,} bytes;" if size is not None else ""
    return (
        f"the request is too large:{sent} at most {limit:,} bytes "
        f"({limit / 1024 / 1024:.3g} MiB) are taken ({setting})"
    )


def line_limit_message(number: int, size: int) -> str:
    limit = settings.REVIEW_MAX_UPLOAD_BYTES
    return (
        f"a line is too large: line {number} is {size:,} bytes; at most {limit:,} bytes "
        f"({limit / 1024 / 1024:.0f} MiB) are taken in one line (REVIEW_MAX_UPLOAD_BYTES)"
    )


def body_limit_setting(request: HttpRequest) -> str:
    """The setting that bounds this request's body: the job's, for a route that sends a
    large body to a job; the upload limit everywhere else."""
    if request.method == "POST":
        try:
            # An old API address only redirects, unread: the route it leads to judges.
            if resolve(request.path_info).view_name in JOB_UPLOAD_ROUTES | {"api-moved"}:
                return "REVIEW_MAX_JOB_UPLOAD_BYTES"
        except Resolver404:
            pass
    return "REVIEW_MAX_UPLOAD_BYTES"


class RefuseOversizedBodies(MiddlewareMixin):
    # process_request runs before any middleware's process_view, where CSRF reads the form.
    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        try:
            size = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return refusal(request, 400, "the Content-Length header is not a number")
        if size > settings.REVIEW_MAX_UPLOAD_BYTES:
            setting = body_limit_setting(request)
            if size > getattr(settings, setting):
                if is_api(request):
                    return refusal(request, 413, upload_limit_message(size, setting))
                return too_large_page(request, size)
        return None


def too_large_page(request: HttpRequest, size: int) -> HttpResponse:
    """The upload forms' 413: the product's page naming the limit, and a link back to the
    form (the page it came from, when that is one of ours). Sign-in has not run yet, so the
    page draws no one's header."""
    back = request.META.get("HTTP_REFERER", "")
    if not url_has_allowed_host_and_scheme(back, {request.get_host()}, request.is_secure()):
        back = reverse("dashboard")
    context = {"message": upload_limit_message(size), "back_url": back}
    return render(request, "review/request_too_large.html", context, status=413)


class RefuseNulInForms(MiddlewareMixin):
    # process_view, so that CSRF and sign-in are checked first (they come earlier in the list).
    def process_view(self, request: HttpRequest, view, args, kwargs) -> HttpResponse | None:
        fields = request.GET.lists()
        if request.method == "POST" and request.content_type in FORM_TYPES:
            fields = [*fields, *request.POST.lists()]
        for name, values in fields:
            if any("\x00" in value for value in values):
                return refusal(
                    request,
                    400,
                    f"the field {name!r} holds the NUL character (\\u0000), which cannot be "
                    "stored or searched for; remove it and send the request again",
                )
        return None


class ProjectFromUrl(MiddlewareMixin):
    """Resolves the project a route names once per request, as `request.project`, so that
    views take no `project` argument and `current_project(request)` answers it."""

    # process_view, after LoginRequiredMiddleware's: a signed-out person is sent to sign in
    # before anything says whether the project exists.
    def process_view(self, request: HttpRequest, view, args, kwargs) -> None:
        if "project" not in kwargs or is_api(request):
            # The API's project is the key's to resolve, after the key is read
            # (`review.api.auth.BearerKey`): nobody is signed in there.
            return None
        slug = kwargs.pop("project")  # the view is called with these very kwargs
        project = project_worked_in(request.user, slug)
        if project is None:
            # A project one is not a member of answers as one that does not exist.
            raise Http404("No such project.")
        request.project = project
        return None


class SecondFactorGate(MiddlewareMixin):
    """The second step of signing in, for every page but those open to anyone (signing in,
    password resets, invitations), the code page and signing out. The API is not gated: it
    takes keys, never a session. Static files are served before any middleware runs
    (whitenoise, or runserver's handler)."""

    # process_view, after ProjectFromUrl's: a project's requirement holds on its pages.
    def process_view(self, request: HttpRequest, view, args, kwargs) -> HttpResponse | None:
        user = request.user
        if not user.is_authenticated or is_api(request) or _open_to_anyone(request, view):
            return None
        if getattr(view, BEFORE_SECOND_FACTOR, False):
            return None
        if not user.is_verified() and authenticator_of(user) is not None:
            return redirect_to_login(request.get_full_path(), reverse("second-factor"))
        if getattr(view, WHILE_ENROLLING, False):
            return None
        project = getattr(request, "project", None)
        if must_enrol(user, project):
            asks = "This site" if settings.REQUIRE_SECOND_FACTOR else str(project)
            messages.warning(request, f"{asks} asks for a second factor: enrol an app first.")
            return redirect("account")
        return None


def _open_to_anyone(request: HttpRequest, view) -> bool:
    """A page for people not signed in (Django's `login_not_required`), where a code adds
    nothing. Not the admin's: it marks its views so to check staff itself."""
    if request.path_info.startswith(reverse("admin:index")):
        return False
    return not getattr(view, "login_required", True)
