"""The one way a view answers a versioned decision, whatever it decides on.

The form says which version the person saw; the action is run with it. Then: over htmx, the
fragment the decision changed; without, a redirect back to the page; 409 with the object as
it is now and the other person's decision when someone else decided first; 422 with the
reason when the action refused; 400 when the form did not say which version was seen.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Model
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render

from review.actions.reviewers import do_note_conflict
from review.decisions import ActionRefused, StaleVersion
from review.models import Decision
from review.views import HtmxHttpRequest
from review.views.leasing import after_deciding, after_undoing
from review.views.projects import project_url

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


@dataclass(frozen=True)
class PanelPage:
    """A page whose item is decided from the shared decision panel (a case, an answer): what
    its decide and undo views differ in, so that both answer every outcome the same way."""

    name: str  # the page's route in urls.py, and the item's name in the template's context
    queue: str  # the lease queue Next takes the item from
    template: str
    partial: str  # the panel's inline partial in `template`
    # (request, pk, decide=, undo=): the item as the person may read, decide or undo it.
    get_for_user: Callable[..., Model]
    # (request, item, **extra): the whole page's context, and the panel's alone.
    page_context: Callable[..., dict]
    panel_context: Callable[[HttpRequest, Model], dict]

    def decide(self, request: HtmxHttpRequest, pk: int, act: Callable) -> HttpResponse:
        """Run `act(item, version)` on the item the person may decide; once it landed on an
        item taken from the queue, on to the next one (`after_deciding`)."""
        item = self.get_for_user(request, pk, decide=True)
        response = self._respond(request, item, act)
        return after_deciding(request, self.queue, item.pk, response)

    def undo(self, request: HtmxHttpRequest, pk: int, act: Callable) -> HttpResponse:
        """Run `act(item, version)` on the item the person may take a step of back."""
        item = self.get_for_user(request, pk, undo=True)
        response = self._respond(request, item, act)
        return after_undoing(request, self.queue, item.pk, response)

    def _respond(self, request: HtmxHttpRequest, item: Model, act: Callable) -> HttpResponse:
        return respond_to_decision(
            request,
            lambda version: act(item, version),
            redraw=lambda **outcome: self._redraw(request, item.pk, **outcome),
            done_url=lambda: project_url(request, self.name, item.pk),
        )

    def _redraw(
        self, request: HtmxHttpRequest, pk: int, *, status: int, stale=None, refused=None, **_
    ) -> HttpResponse:
        item = self.get_for_user(request, pk)  # fresh, with who decided
        extra = panel_outcome(request, stale=stale, refused=refused)
        if request.htmx:
            context = {self.name: item, **self.panel_context(request, item), **extra}
            return render(request, f"{self.template}#{self.partial}", context, status=status)
        context = self.page_context(request, item, **extra)
        return render(request, self.template, context, status=status)
