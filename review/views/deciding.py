"""What the views that record a decision share: reading the version the person saw from
the form, and (for a case's verdict and an answer's publication) answering one decision.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

from review.case_actions import ActionRefused
from review.decisions import StaleVersion
from review.views import HtmxHttpRequest


class BadVersion(Exception):
    """The form did not say which version the person saw."""


def posted_version(request: HttpRequest) -> int:
    try:
        return int(request.POST["version"])
    except (KeyError, ValueError) as error:
        raise BadVersion from error


def decide_and_respond(
    request: HtmxHttpRequest,
    obj,
    act: Callable[[int], object],
    panel: Callable[..., HttpResponse],
    page: str,
) -> HttpResponse:
    """Run `act(version)` and answer: the decision panel over htmx, a redirect to `page`
    otherwise; 409 with the object as it is now when someone else decided first, 422 when
    the request cannot be taken as it is. `panel(request, obj, status=, **extra)` draws the
    panel (or, without htmx, the whole page)."""
    try:
        act(posted_version(request))
    except BadVersion:
        return HttpResponse("The form lacks the version you saw; reload the page.", status=400)
    except StaleVersion as stale:
        return panel(request, stale.current, status=409, stale=stale)
    except ActionRefused as refused:
        # The note as typed, for a panel that offers it again rather than lose it.
        note = request.POST.get("note", "")
        return panel(request, obj, status=422, error=str(refused), note=note)
    if request.htmx:
        return panel(request, obj, status=200)
    return redirect(page, pk=obj.pk)
