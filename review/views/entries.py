"""The actions on one entry of a plan: Accept, Reject, Merge into previous, Confirm anchor,
Undo and Edit. Each is one POST recording one decision; over htmx it answers with the entry's
row and, out of band, its span in the document and the plan's counters; without htmx it
redirects back to the entry. A stale version gets 409 with the entry as it is now; a refusal
422 with the reason (the row over htmx, the plan's page above the entry without).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from review.actions.entries import (
    ENTRY_ACTIONS,
    BoundaryOffer,
    EditRefused,
    edit_entry,
    nearby_boundaries,
    neighbours,
    undo_target,
)
from review.decisions import decisions_on_plan
from review.forms import EntryEditForm
from review.models import COUNTER_KEYS, Decision, Entry, counter_column
from review.views import HtmxHttpRequest, live
from review.views.deciding import respond_to_decision
from review.views.plan import plan_page
from review.views.plan_context import (
    PLAN_TEMPLATE,
    entry_url,
    get_entry_for_user,
    get_plan_for_user,
    row_context,
)
from review.views.presenters import EntryRow, PlanUrls, Region, region


@require_POST
def entry_decide(request: HtmxHttpRequest, pk: int, entry_pk: int, action: str) -> HttpResponse:
    act = ENTRY_ACTIONS.get(action)
    if act is None:
        raise Http404(f"No entry action {action!r}.")
    entry = get_entry_for_user(request, pk, entry_pk)
    note = request.POST.get("note", "").strip()
    return respond_to_decision(
        request,
        lambda version: act(entry, actor=request.user, expected_version=version, note=note),
        redraw=lambda **outcome: _redraw(
            request, entry, undo=action == "undo", accept=action == "accept", **outcome
        ),
        done_url=lambda: entry_url(request, entry),
    )


def _anchor_question(entry: Entry) -> str:
    """Asked in the row of an entry just accepted whose anchor still needs a person: the
    accept does not vouch for the anchor, so the editor confirms it (or edits) there and then,
    rather than finding it again later."""
    return (
        f"Accepted. Its anchor is {entry.get_anchor_status_display().lower()} and nobody has "
        "confirmed it: Confirm anchor (c) if the span is right, or Edit (e) it."
    )


@require_GET
def entry_row(request: HtmxHttpRequest, pk: int, entry_pk: int) -> HttpResponse:
    """One entry's row (what "Cancel" on the edit form brings back)."""
    # The plan as its page finds it: a review copy is its reviewer's alone (blind review).
    plan = get_plan_for_user(request, pk)
    entry = get_object_or_404(Entry.objects.select_related("decided_by"), pk=entry_pk, plan=plan)
    entry.plan = plan
    if not request.htmx:
        return redirect(entry_url(request, entry))
    return HttpResponse(_entry_fragments(request, entry))


@require_http_methods(["GET", "POST"])
def entry_edit(request: HtmxHttpRequest, pk: int, entry_pk: int) -> HttpResponse:
    entry = get_entry_for_user(request, pk, entry_pk)
    text_length = len(entry.plan.document_text)
    if request.method == "GET":
        return _edit_form(request, entry, EntryEditForm(entry, text_length))
    form = EntryEditForm(entry, text_length, request.POST)

    def redraw(*, status: int, stale=None, refused=None, decision=None) -> HttpResponse:
        if stale is not None:
            # Someone else changed the entry meanwhile: their decision beside the editor's
            # edit as typed, which saving again applies over it.
            current = stale.current
            current.plan = entry.plan
            return _edit_form(request, current, form, conflict=stale.latest, status=409)
        if isinstance(refused, BoundaryOffer):
            return _edit_form(request, entry, form, offers=refused.offers)
        if isinstance(refused, EditRefused):
            form.add_refusal(refused.errors)
            return _edit_form(request, entry, form, status=422)
        return _redraw(
            request,
            entry,
            status=status,
            stale=stale,
            refused=refused,
            decision=decision,
            moved=decision is not None,
        )

    return respond_to_decision(
        request,
        lambda version: edit_entry(
            entry, form.edit_request(), actor=request.user, expected_version=version
        ),
        redraw=redraw,
        done_url=lambda: entry_url(request, entry),
    )


# --- what an entry action answers --------------------------------------------------------------


def _redraw(
    request: HtmxHttpRequest,
    entry: Entry,
    *,
    status: int,
    stale=None,
    refused=None,
    decision: Decision | None = None,
    undo: bool = False,
    accept: bool = False,
    moved: bool = False,
) -> HttpResponse:
    plan = entry.plan
    conflict = None
    if stale is not None:
        # Someone else's decision may have moved a boundary: redraw around it. Their
        # decision moved the counters too, maybe after the plan was read for this request.
        entry, conflict, moved = stale.current, stale.latest, True
        _read_counters_again(plan)
        entry.plan = plan
    if decision is not None:
        moved = moved or bool({"span_start", "span_end"} & set(decision.after))
    message = str(refused) if refused is not None else ""
    if accept and decision is not None and entry.anchor_unsettled:
        message = _anchor_question(entry)
    if request.htmx:
        # Any decision but an undo leaves something to undo; after an undo, ask the log.
        undoable = True if decision is not None and not undo else None
        html = _entry_fragments(
            request,
            entry,
            message=message,
            conflict=conflict,
            spans_moved=moved,
            undoable=undoable,
            merge_changed=decision is not None and changes_a_merge(decision),
        )
        return HttpResponse(html, status=status)
    if status == 409:
        context = row_context(request, plan)
        context |= {"entry": EntryRow(entry, context["urls"]), "latest": conflict}
        return render(request, "review/plans/conflict.html", context, status=409)
    return plan_page(request, plan, refusal=message, current=entry.pk, status=422)


def _read_counters_again(plan) -> None:
    plan.refresh_from_db(fields=[counter_column(key) for key in COUNTER_KEYS])


def _entry_fragments(
    request: HttpRequest,
    entry: Entry,
    *,
    message: str = "",
    conflict: Decision | None = None,
    spans_moved: bool = False,
    undoable: bool | None = None,
    oob_row: bool = False,
    merge_changed: bool = False,
) -> str:
    """The entry's row, and out of band its span on the left and the plan's counters; when
    the entry was merged or is no longer (`merge_changed`), the row of the entry it joins or
    left too, whose text grew or shrank.

    When only the state changed, only the span's mark is redrawn (it carries the state, and
    the span's text follows it in CSS), so the document's text is not read at all; when a
    boundary moved, the regions around it are redrawn with their text, since the uncovered
    text between entries changed with it.
    """
    plan = entry.plan
    context = row_context(request, plan)
    joined = Entry.objects.select_related("decided_by").joined_by(entry) if merge_changed else None
    if joined is not None:
        joined.plan = plan
        context["joined"] = _row(request, joined, context["urls"])
    context |= {
        "entry": _row(request, entry, context["urls"], undoable=undoable),
        "message": message,
        "conflict": conflict,
        "counts": plan.counts,
        "spans_moved": spans_moved,
        "oob_row": oob_row,
    }
    if spans_moved:
        context |= _regions_around(entry, context["urls"])
    return render_to_string("review/plans/entry_changed.html", context, request)


def _row(request: HttpRequest, entry: Entry, urls: PlanUrls, *, undoable=None) -> EntryRow:
    """One entry's row as a fragment draws it: who decided, its undo (asking the log when
    `undoable` is None), and its text with what is merged into it."""
    if undoable is None:
        undoable = undo_target(entry) is not None
    decider = ""
    if entry.decided_by_id:
        user = request.user
        decider = user.username if entry.decided_by_id == user.pk else entry.decided_by.username
    return EntryRow(
        entry,
        urls,
        decider=decider,
        undoable=undoable,
        # Only a doubtful anchor shows the text at its span beside what it quoted.
        text=entry.plan.document_text if entry.anchor_in_doubt else None,
        merged_end=Entry.objects.merged_end(entry),
    )


def changes_a_merge(decision: Decision) -> bool:
    """Whether the decision merged an entry or took a merge back."""
    states = {decision.before.get("state"), decision.after.get("state")}
    return Entry.State.MERGED in states


def _regions_around(entry: Entry, urls: PlanUrls) -> dict:
    """The entry's region and the one before it (or the lead), whose uncovered text changed."""
    text = entry.plan.document_text
    previous, following = neighbours(entry)
    start = max(entry.span_start, previous.span_end if previous else 0)
    next_start = following.span_start if following else len(text)
    regions = {"region": region(entry, text, start, max(entry.span_end, start), next_start)}
    if previous is None:
        regions["lead"] = Region(None, gap=text[: entry.span_start])
    else:
        regions["previous"] = EntryRow(previous, urls)
        regions["previous_region"] = region(
            previous, text, previous.span_start, previous.span_end, entry.span_start
        )
    return regions


def _edit_form(request, entry, form, *, offers=None, conflict=None, status=200) -> HttpResponse:
    text = entry.plan.document_text
    choices = nearby_boundaries(entry, text)
    context = row_context(request, entry.plan)
    context |= {
        "entry": EntryRow(entry, context["urls"]),
        "form": form,
        "offers": offers or {},
        "start_choices": choices.get("start", []),
        "end_choices": choices.get("end", []),
        "current_id": entry.pk,
        "conflict": conflict,
    }
    if request.htmx:
        html = render_to_string(f"{PLAN_TEMPLATE}#edit-form", context, request)
        if conflict is not None:
            # The other decision moved the counters: the header says what the form says.
            _read_counters_again(entry.plan)
            counters = context | {"counts": entry.plan.counts, "oob": True}
            html += render_to_string(f"{PLAN_TEMPLATE}#counters", counters, request)
        return HttpResponse(html, status=status)
    return render(request, "review/plans/edit.html", context, status=status)


# --- what others changed, for an open page's poll ----------------------------------------------

# A poll redraws at most this many entries; past it, the page is better reloaded.
LIVE_ENTRIES_MAX = 50


def live_changes(request: HtmxHttpRequest, pk: int, seen: str) -> tuple[str, str]:
    """The rows (and spans, and counters) of entries other people decided since the cursor
    `seen` (`live.news_since`), out of band, and the cursor to ask from next. The entry being
    edited here is left alone: its form keeps what was typed, and saving it meets the other
    decision as a 409."""
    plan = get_plan_for_user(request, pk)
    changed, cursor = live.news_since(
        decisions_on_plan(plan), seen, request.user, most=LIVE_ENTRIES_MAX + 1
    )
    if not changed:
        return "", cursor
    moved = {
        int(row.object_id)
        for row in changed
        if row.object_type == "entry" and {"span_start", "span_end"} & set(row.after)
    }
    ids = {int(row.object_id) for row in changed if row.object_type == "entry"}
    ids.discard(int(request.POST["editing"]) if request.POST.get("editing", "").isdigit() else 0)
    if len(changed) > LIVE_ENTRIES_MAX or any(row.object_type == "plan" for row in changed):
        notice = render_to_string("review/plans/live_reload.html", {"plan": plan}, request)
        return notice, cursor
    entries = Entry.objects.filter(plan=plan, pk__in=ids).select_related("decided_by")
    html = []
    for entry in entries.order_by("position"):
        entry.plan = plan
        html.append(_entry_fragments(request, entry, spans_moved=entry.pk in moved, oob_row=True))
    return "".join(html), cursor
