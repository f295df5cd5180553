"""The actions on one entry of a plan: Accept, Reject, Merge into previous, Confirm anchor,
Undo and Edit. Each is one POST recording one decision; over htmx it answers with the entry's
row and, out of band, its span in the document and the plan's counters; without htmx it
redirects back to the entry. A stale version gets 409 with the entry as it is now.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from review import plan_actions
from review.decisions import StaleVersion
from review.models import Decision, Entry
from review.permissions import can_decide_plans
from review.views import HtmxHttpRequest
from review.views.deciding import BadVersion, posted_version
from review.views.plan_page import (
    PLAN_TEMPLATE,
    Region,
    decorate,
    entry_url,
    region,
    row_context,
)

ENTRY_ACTIONS = {
    "accept": plan_actions.accept,
    "reject": plan_actions.reject,
    "merge": plan_actions.merge_into_previous,
    "undo": plan_actions.undo,
    "confirm-anchor": plan_actions.confirm_anchor,
}


def _get_entry_for_user(request: HttpRequest, pk: int, entry_pk: int) -> Entry:
    """An entry of plan `pk` that the user may decide (403 otherwise, 404 if not there)."""
    if not can_decide_plans(request.user):
        raise PermissionDenied("Only editors decide plan entries.")
    # Not the document: a decision that moves no boundary never reads its text.
    entries = Entry.objects.select_related("plan").defer(
        "plan__original_payload", "plan__adjudicated_payload"
    )
    return get_object_or_404(entries, pk=entry_pk, plan_id=pk)


# --- what an entry action answers --------------------------------------------------------------


def _neighbours(entry: Entry) -> tuple[Entry | None, Entry | None]:
    siblings = Entry.objects.filter(plan_id=entry.plan_id).defer("proposed")
    previous = siblings.filter(position__lt=entry.position).order_by("-position").first()
    following = siblings.filter(position__gt=entry.position).order_by("position").first()
    return previous, following


def _entry_fragments(
    request: HttpRequest,
    entry: Entry,
    *,
    message: str = "",
    conflict: Decision | None = None,
    spans_moved: bool = False,
    undoable: bool | None = None,
) -> str:
    """The entry's row, and out of band its span on the left and the plan's counters.

    When only the state changed, only the span's mark is redrawn (it carries the state, and
    the span's text follows it in CSS), so the document's text is not read at all; when a
    boundary moved, the regions around it are redrawn with their text, since the uncovered
    text between entries changed with it.
    """
    plan = entry.plan
    context = row_context(request, plan)
    if undoable is None:
        undoable = plan_actions.undo_target(entry) is not None
    decider = ""
    if entry.decided_by_id:
        user = request.user
        decider = user.username if entry.decided_by_id == user.pk else entry.decided_by.username
    decorate(entry, context["entries_url"], decider=decider, undoable=undoable)
    context |= {
        "entry": entry,
        "message": message,
        "conflict": conflict,
        "counts": plan_actions.plan_counts(plan),
        "spans_moved": spans_moved,
    }
    if spans_moved:
        text = plan_actions.document_text(plan)
        previous, following = _neighbours(entry)
        start = max(entry.span_start, previous.span_end if previous else 0)
        next_start = following.span_start if following else len(text)
        context["region"] = region(entry, text, start, max(entry.span_end, start), next_start)
        # The uncovered text after the previous entry (or before the first) changed too.
        if previous is None:
            context["lead"] = Region(None, gap=text[: entry.span_start])
        else:
            decorate(previous, context["entries_url"])
            context["previous"] = previous
            context["previous_region"] = region(
                previous, text, previous.span_start, previous.span_end, entry.span_start
            )
    return render_to_string("review/plans/entry_changed.html", context, request)


def _answer(
    request: HtmxHttpRequest,
    entry: Entry,
    *,
    status: int = 200,
    message: str = "",
    conflict: Decision | None = None,
    spans_moved: bool = False,
    undoable: bool | None = None,
) -> HttpResponse:
    if request.htmx:
        html = _entry_fragments(
            request,
            entry,
            message=message,
            conflict=conflict,
            spans_moved=spans_moved,
            undoable=undoable,
        )
        return HttpResponse(html, status=status)
    if conflict is not None or status == 409:
        context = row_context(request, entry.plan) | {"entry": entry, "latest": conflict}
        return render(request, "review/plans/conflict.html", context, status=409)
    if message:
        messages.error(request, message)
    return redirect(entry_url(entry))


def _stale(request: HtmxHttpRequest, entry: Entry, stale: StaleVersion) -> HttpResponse:
    current = stale.current
    current.plan = entry.plan
    # Someone else's decision may have moved a boundary: redraw around it.
    return _answer(request, current, status=409, conflict=stale.latest, spans_moved=True)


# --- entry actions -----------------------------------------------------------------------------


@require_POST
def entry_decide(request: HtmxHttpRequest, pk: int, entry_pk: int, action: str) -> HttpResponse:
    act = ENTRY_ACTIONS.get(action)
    if act is None:
        raise Http404(f"No entry action {action!r}.")
    entry = _get_entry_for_user(request, pk, entry_pk)
    try:
        version = posted_version(request)
        decision = act(entry, actor=request.user, version=version, note=_note(request))
    except BadVersion:
        return HttpResponseBadRequest("The form did not say which version of the entry you saw.")
    except StaleVersion as stale:
        return _stale(request, entry, stale)
    except plan_actions.ActionRefused as refused:
        return _answer(request, entry, status=422, message=str(refused))
    moved = bool({"span_start", "span_end"} & set(decision.after))
    # Any decision but an undo leaves something to undo; after an undo, ask the log.
    return _answer(request, entry, spans_moved=moved, undoable=None if action == "undo" else True)


def _note(request: HttpRequest) -> str:
    return request.POST.get("note", "").strip()


@require_GET
def entry_row(request: HtmxHttpRequest, pk: int, entry_pk: int) -> HttpResponse:
    """One entry's row (what "Cancel" on the edit form brings back)."""
    entry = get_object_or_404(
        Entry.objects.select_related("plan__document", "decided_by").defer(
            "plan__document__data", "plan__original_payload", "plan__adjudicated_payload"
        ),
        pk=entry_pk,
        plan_id=pk,
    )
    if not request.htmx:
        return redirect(entry_url(entry))
    return HttpResponse(_entry_fragments(request, entry))


@require_http_methods(["GET", "POST"])
def entry_edit(request: HtmxHttpRequest, pk: int, entry_pk: int) -> HttpResponse:
    entry = _get_entry_for_user(request, pk, entry_pk)
    plan = entry.plan
    if request.method == "GET":
        values = {
            "title": entry.title,
            "path": entry.path,
            "start": entry.span_start,
            "end": entry.span_end,
            "note": "",
        }
        return _edit_form(request, entry, values)
    values = {name: request.POST.get(name, "") for name in ("title", "path", "start", "end")}
    values["note"] = _note(request)
    # "Use this boundary" buttons carry the paragraph boundary the editor picked.
    for name in ("start", "end"):
        if request.POST.get(f"snap_{name}"):
            values[name] = request.POST[f"snap_{name}"]
    edit = plan_actions.EditRequest(
        **values, keep_boundaries=request.POST.get("keep_boundaries") == "1"
    )
    try:
        plan_actions.edit(entry, edit, actor=request.user, version=posted_version(request))
    except BadVersion:
        return HttpResponseBadRequest("The form did not say which version of the entry you saw.")
    except StaleVersion as stale:
        return _stale(request, entry, stale)
    except plan_actions.BoundaryOffer as offer:
        return _edit_form(request, entry, values, offers=offer.offers)
    except plan_actions.EditRefused as refused:
        return _edit_form(request, entry, values, errors=refused.errors, status=422)
    except plan_actions.ActionRefused as refused:
        return _answer(request, entry, status=422, message=str(refused))
    entry.plan = plan
    return _answer(request, entry, spans_moved=True, undoable=True)


def _edit_form(request, entry, values, *, errors=None, offers=None, status=200) -> HttpResponse:
    text = plan_actions.document_text(entry.plan)
    context = row_context(request, entry.plan)
    context |= {
        "entry": decorate(entry, context["entries_url"]),
        "values": values,
        "errors": errors or {},
        "offers": offers or {},
        "start_choices": plan_actions.nearest_paragraph_starts(text, entry.span_start, 3),
        "end_choices": plan_actions.nearest_paragraph_ends(text, entry.span_end, 3),
        "text_length": len(text),
        "current_id": entry.pk,
    }
    if request.htmx:
        return render(request, f"{PLAN_TEMPLATE}#edit-form", context, status=status)
    return render(request, "review/plans/edit.html", context, status=status)
