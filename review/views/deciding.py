"""The one way a view answers a versioned decision, whatever it decides on.

The form says which version the person saw; the action is run with it. Then: over htmx, the
fragment the decision changed; without, a redirect back to the page; 409 with the object as
it is now and the other person's decision when someone else decided first; 422 with the
reason when the action refused; 400 when the form did not say which version was seen.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect

from review.actions.reviewers import do_note_conflict
from review.decisions import ActionRefused, StaleVersion
from review.models import Decision
from review.views import HtmxHttpRequest

NO_VERSION = "The form did not say which version you saw; reload the page."


def respond_to_decision(
    request: HtmxHttpRequest,
    act: Callable[[int], Decision | object],
    *,
    redraw: Callable[..., HttpResponse],
    done_url: Callable[[], str],
) -> HttpResponse:
    """Run `act(version)` and answer. `redraw(status=, stale=, refused=, decision=)` draws the
    fragment (or, for a refusal without htmx, whatever the page answers then); `done_url()`
    is where a plain POST goes after a decision landed."""
    try:
        version = int(request.POST["version"])
    except (KeyError, ValueError):
        return HttpResponseBadRequest(NO_VERSION)
    try:
        decision = act(version)
    except StaleVersion as stale:
        do_note_conflict(request.user, stale)
        return redraw(status=409, stale=stale)
    except ActionRefused as refused:
        return redraw(status=422, refused=refused)
    if request.htmx:
        return redraw(status=200, decision=decision)
    return redirect(done_url())


def panel_outcome(request: HtmxHttpRequest, *, stale=None, refused=None) -> dict:
    """What a decision panel shows of an outcome: the other person's decision (409), or the
    refusal with the note as typed, offered again rather than lost (422)."""
    if stale is not None:
        hides = getattr(stale.current, "hides_first_opinion_from", None)
        if hides is not None and hides(request.user):
            # Blind review: the decision met may be the first opinion; not whose it was.
            stale = StaleVersion(stale.current, None)
        return {"stale": stale}
    if refused is not None:
        return {"error": str(refused), "note": request.POST.get("note", "")}
    return {}
