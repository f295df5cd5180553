"""The editors' screens for segmentation plans.

The list (with the two upload forms), one plan in two panes (the document with every span
drawn over it; the entries with their actions), the entry actions, bulk accept by rule,
adjudication and the adjudicated download, and the plan's history.

Everyone logged in may read; only Editors (and staff) see decision buttons, and anyone
else gets 403 on a POST. An htmx POST answers with what changed (the entry's row, its span
on the left and the plan's counters, the last two out of band); a plain POST redirects.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from review import plan_actions
from review.adapters.errors import ImportRefused
from review.adapters.plans import (
    adjudicate_plan,
    export_plan,
    import_plan,
    path_collisions,
    propose_document,
)
from review.decisions import StaleVersion
from review.models import Decision, Document, Entry, Plan
from review.permissions import can_decide_plans

PLAN_TEMPLATE = "review/plans/plan.html"
HISTORY_PER_PAGE = 100
# How much of a long quote the entry row shows at each end.
QUOTE_END_CHARS = 60
CONTEXT_CHARS = 24
STATE_MARKS = {
    Entry.State.PROPOSED: "○",
    Entry.State.ACCEPTED: "✓",
    Entry.State.EDITED: "✎",
    Entry.State.MERGED: "↑",
    Entry.State.REJECTED: "✕",
}
ENTRY_ACTIONS = {
    "accept": plan_actions.accept,
    "reject": plan_actions.reject,
    "merge": plan_actions.merge_into_previous,
    "undo": plan_actions.undo,
    "confirm-anchor": plan_actions.confirm_anchor,
}


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


# --- finding things ------------------------------------------------------------------------


def _get_plan_for_user(request: HttpRequest, pk: int, *, decide: bool = False) -> Plan:
    if decide and not can_decide_plans(request.user):
        raise PermissionDenied("Only editors decide plans.")
    plans = Plan.objects.select_related("document", "adjudicated_by").defer(
        "document__data", "original_payload", "adjudicated_payload"
    )
    return get_object_or_404(plans, pk=pk)


def _get_entry_for_user(request: HttpRequest, pk: int, entry_pk: int) -> Entry:
    """An entry of plan `pk` that the user may decide (403 otherwise, 404 if not there)."""
    if not can_decide_plans(request.user):
        raise PermissionDenied("Only editors decide plan entries.")
    # Not the document: a decision that moves no boundary never reads its text.
    entries = Entry.objects.select_related("plan").defer(
        "plan__original_payload", "plan__adjudicated_payload"
    )
    return get_object_or_404(entries, pk=entry_pk, plan_id=pk)


def _version(request: HttpRequest) -> int:
    try:
        return int(request.POST["version"])
    except (KeyError, ValueError) as error:
        raise BadVersion from error


class BadVersion(Exception):
    """The form did not say which version the editor saw."""


def _plan_url(plan_id: int) -> str:
    return reverse("plan", args=[plan_id])


def _entry_url(entry: Entry) -> str:
    return f"{_plan_url(entry.plan_id)}?entry={entry.pk}#entry-{entry.pk}"


# --- the list --------------------------------------------------------------------------------


class DocumentUploadForm(forms.Form):
    file = forms.FileField(label="Document", help_text="Markdown, plain text or PDF.")
    max_segment_chars = forms.IntegerField(
        label="Max segment chars",
        min_value=0,
        required=False,
        initial=0,
        help_text="0 for no cap; longer spans are split at a paragraph boundary.",
    )
    path_prefix = forms.CharField(
        label="Path prefix",
        required=False,
        max_length=200,
        help_text="Puts every path under one directory, so plans of different documents "
        "don't claim the same paths.",
    )


class PlanUploadForm(forms.Form):
    document = forms.ModelChoiceField(
        label="Stored document", queryset=Document.objects.only("pk", "name")
    )
    file = forms.FileField(label="Plan JSON", help_text="A proposed plan in the same format.")


@require_GET
def plan_list(request: HttpRequest) -> HttpResponse:
    return _render_list(request, DocumentUploadForm(), PlanUploadForm())


def _render_list(request, document_form, plan_form, status: int = 200) -> HttpResponse:
    status_filter = request.GET.get("status", "")
    plans = (
        Plan.objects.select_related("document")
        .only("pk", "status", "created_at", "proposed_by", "options", "document__name")
        .annotate(**plan_actions.count_aggregates("entries__"))
        .order_by("-created_at", "-pk")
    )
    if status_filter in Plan.Status.values:
        plans = plans.filter(status=status_filter)
    rows = [
        (plan, plan_actions.counts_from({key: getattr(plan, key) for key in _COUNT_KEYS}))
        for plan in plans
    ]
    context = {
        "rows": rows,
        "statuses": Plan.Status.choices,
        "status_filter": status_filter,
        "collisions": sorted(path_collisions().items()),
        "can_decide": can_decide_plans(request.user),
        "document_form": document_form,
        "plan_form": plan_form,
    }
    return render(request, "review/plans/list.html", context, status=status)


_COUNT_KEYS = ("total", "unsettled_anchors", *Entry.State.values)


@require_POST
def upload_document(request: HttpRequest) -> HttpResponse:
    if not can_decide_plans(request.user):
        raise PermissionDenied("Only editors propose plans.")
    form = DocumentUploadForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            plan = propose_document(
                upload.name,
                upload.read(),
                max_segment_chars=form.cleaned_data["max_segment_chars"] or 0,
                path_prefix=form.cleaned_data["path_prefix"].strip(),
                actor=request.user,
            )
        except ImportRefused as refused:
            for problem in refused.problems:
                form.add_error(None, problem)
        else:
            messages.success(request, f"Proposed a plan for {plan.document.name}.")
            return redirect("plan", pk=plan.pk)
    return _render_list(request, form, PlanUploadForm(), status=422)


@require_POST
def upload_plan(request: HttpRequest) -> HttpResponse:
    if not can_decide_plans(request.user):
        raise PermissionDenied("Only editors import plans.")
    form = PlanUploadForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            plan = import_plan(
                form.cleaned_data["document"], form.cleaned_data["file"].read(), request.user
            )
        except ImportRefused as refused:
            for problem in refused.problems:
                form.add_error(None, problem)
        else:
            messages.success(request, f"Imported a plan for {plan.document.name}.")
            return redirect("plan", pk=plan.pk)
    return _render_list(request, DocumentUploadForm(), form, status=422)


# --- one plan --------------------------------------------------------------------------------


@dataclass
class Region:
    """A stretch of the document: one entry's span and the uncovered text after it (or, with
    no entry, the uncovered text before the first entry)."""

    entry: Entry | None
    text: str = ""
    gap: str = ""
    found: bool = True

    @property
    def body(self) -> str:
        """The span's text up to its trailing blank lines, where its end mark is drawn."""
        return self.text.rstrip()

    @property
    def trailing(self) -> str:
        return self.text[len(self.text.rstrip()) :]


def _region(entry: Entry | None, text: str, start: int, end: int, gap_end: int) -> Region:
    if entry is not None and not 0 <= entry.span_start < entry.span_end <= len(text):
        return Region(entry, found=False)
    return Region(entry, text[start:end], text[end:gap_end] if gap_end > end else "")


def document_regions(text: str, entries: list[Entry]) -> tuple[Region, list[Region]]:
    """The lead (text before the first entry) and one region per entry, in order, so that
    every character of the text appears once. Overlaps, which a valid plan never has, are
    clipped rather than drawn twice."""
    placed = [0 <= e.span_start < e.span_end <= len(text) for e in entries]
    next_starts, upcoming = [0] * len(entries), len(text)
    for index in range(len(entries) - 1, -1, -1):
        next_starts[index] = upcoming
        if placed[index]:
            upcoming = entries[index].span_start
    lead, cursor, regions = Region(None, gap=text[:upcoming]), upcoming, []
    for entry, found, next_start in zip(entries, placed, next_starts, strict=True):
        if not found:
            regions.append(Region(entry, found=False))
            continue
        start = max(entry.span_start, cursor)
        cursor = max(entry.span_end, start)
        regions.append(_region(entry, text, start, cursor, next_start))
    return lead, regions


def _decorate(
    entry: Entry,
    entries_url: str,
    *,
    number: int | None = None,
    decider: str = "",
    undoable: bool = False,
) -> Entry:
    """Attach what the row and the span show, as ready strings: the page draws hundreds of
    rows, and each template variable spared is time spared."""
    key = str(entry.pk)
    number_label = str(entry.position + 1 if number is None else number)
    state, label = entry.state, entry.get_state_display()
    mark = STATE_MARKS[state]
    entry.key, entry.number_label, entry.version_label = key, number_label, str(entry.version)
    entry.url = f"{entries_url}{key}/"
    entry.state_text = format_html('<span aria-hidden="true">{}</span> {}', mark, label)
    if state == Entry.State.PROPOSED:
        entry.seg_label = number_label
    elif state == Entry.State.MERGED:
        entry.seg_label = f"{number_label} ↑ merged"
    else:
        entry.seg_label = f"{number_label} {mark} {label.lower()}"
    entry.span_label = f"{entry.span_start}–{entry.span_end}"
    entry.rules_label = ", ".join(entry.rules or []) or "no rule"
    quote = entry.quote
    if len(quote) > 2 * QUOTE_END_CHARS + 10:
        entry.quote_head, entry.quote_tail = quote[:QUOTE_END_CHARS], quote[-QUOTE_END_CHARS:]
    else:
        entry.quote_head, entry.quote_tail = quote, ""
    entry.prefix_tail = entry.prefix[-CONTEXT_CHARS:]
    entry.suffix_head = entry.suffix[:CONTEXT_CHARS]
    entry.unsettled = plan_actions.entry_anchor_unsettled(entry) and (
        state not in plan_actions.ANCHOR_SETTLING_STATES
    )
    anchor = f"Anchor: {entry.get_anchor_status_display().lower()}"
    if entry.anchor_confirmed:
        anchor += ", confirmed by an editor"
    elif entry.unsettled:
        anchor += ", confirm it or edit the entry"
    entry.anchor_label = anchor
    entry.decided_label = ""
    if entry.decided_by_id and entry.decided_at:
        when = timezone.localtime(entry.decided_at).strftime("%Y-%m-%d %H:%M")
        entry.decided_label = f"{label} by {decider or 'someone'} · {when}"
        if entry.note:
            entry.decided_label += f" · “{entry.note}”"
    entry.can_accept = state not in plan_actions.KEPT_STATES
    entry.can_reject = state != Entry.State.REJECTED
    # Entries are numbered from 0 by the adapters; the first has nothing to merge into.
    entry.can_merge = state != Entry.State.MERGED and entry.position > 0
    entry.undoable = undoable
    return entry


def _row_context(request: HttpRequest, plan: Plan) -> dict:
    plan_url = _plan_url(plan.pk)
    return {
        "plan": plan,
        "can_decide": can_decide_plans(request.user),
        "plan_open": plan.status == Plan.Status.OPEN,
        "entries_url": f"{plan_url}entries/",
        "plan_url": plan_url,
    }


@require_GET
def plan_detail(request: HttpRequest, pk: int) -> HttpResponse:
    plan = _get_plan_for_user(request, pk)
    entries = list(plan.entries.defer("proposed").order_by("position"))
    undoable = plan_actions.undoable_entry_ids(plan)
    deciders = _usernames({entry.decided_by_id for entry in entries})
    context = _row_context(request, plan)
    rule_counts: dict[str, int] = {}
    for number, entry in enumerate(entries, start=1):
        entry.plan = plan
        _decorate(
            entry,
            context["entries_url"],
            number=number,
            decider=deciders.get(entry.decided_by_id, ""),
            undoable=entry.pk in undoable,
        )
        if entry.state == Entry.State.PROPOSED:
            for rule in entry.rules or []:
                rule_counts[rule] = rule_counts.get(rule, 0) + 1
    lead, regions = document_regions(plan.document.text, entries)
    context |= {
        "document": plan.document,
        "rows": list(zip(entries, regions, strict=True)),
        "lead": lead,
        "counts": plan_actions.counts_of_entries(entries),
        "current_id": _current_entry_id(request, entries),
        "rule_counts": sorted(rule_counts.items()),
    }
    return render(request, PLAN_TEMPLATE, context)


def _usernames(user_ids: set[int | None]) -> dict[int, str]:
    ids = {user_id for user_id in user_ids if user_id}
    if not ids:
        return {}
    return dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))


def _current_entry_id(request: HttpRequest, entries: list[Entry]) -> int | None:
    wanted = request.GET.get("entry", "")
    ids = {entry.pk for entry in entries}
    if wanted.isdigit() and int(wanted) in ids:
        return int(wanted)
    proposed = (entry.pk for entry in entries if entry.state == Entry.State.PROPOSED)
    return next(proposed, entries[0].pk if entries else None)


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
    context = _row_context(request, plan)
    if undoable is None:
        undoable = plan_actions.undo_target(entry) is not None
    decider = ""
    if entry.decided_by_id:
        user = request.user
        decider = user.username if entry.decided_by_id == user.pk else entry.decided_by.username
    _decorate(entry, context["entries_url"], decider=decider, undoable=undoable)
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
        context["region"] = _region(entry, text, start, max(entry.span_end, start), next_start)
        # The uncovered text after the previous entry (or before the first) changed too.
        if previous is None:
            context["lead"] = Region(None, gap=text[: entry.span_start])
        else:
            _decorate(previous, context["entries_url"])
            context["previous"] = previous
            context["previous_region"] = _region(
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
        context = _row_context(request, entry.plan) | {"entry": entry, "latest": conflict}
        return render(request, "review/plans/conflict.html", context, status=409)
    if message:
        messages.error(request, message)
    return redirect(_entry_url(entry))


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
    plan = entry.plan
    try:
        decision = act(entry, actor=request.user, version=_version(request), note=_note(request))
    except BadVersion:
        return HttpResponseBadRequest("The form did not say which version of the entry you saw.")
    except StaleVersion as stale:
        return _stale(request, entry, stale)
    except plan_actions.ActionRefused as refused:
        return _answer(request, entry, status=422, message=str(refused))
    # decide() refreshed the row, which drops its cached plan; keep the one already loaded.
    entry.plan = plan
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
        return redirect(_entry_url(entry))
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
        plan_actions.edit(entry, edit, actor=request.user, version=_version(request))
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
    context = _row_context(request, entry.plan)
    context |= {
        "entry": _decorate(entry, context["entries_url"]),
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


# --- many entries, and the plan ------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def accept_rule(request: HttpRequest, pk: int) -> HttpResponse:
    """Accept every remaining PROPOSED entry of one rule, after a page that lists them."""
    plan = _get_plan_for_user(request, pk, decide=True)
    rule = request.POST.get("rule") or request.GET.get("rule", "")
    status, problem = 200, ""
    if request.method == "POST":
        versions = {}
        for item in request.POST.getlist("entry"):
            entry_id, _, version = item.partition(":")
            if entry_id.isdigit() and version.isdigit():
                versions[int(entry_id)] = int(version)
        try:
            decisions = plan_actions.accept_rule(plan, rule, actor=request.user, versions=versions)
        except StaleVersion as stale:
            status = 409
            problem = (
                f"“{stale.current.title}” was changed by "
                f"{stale.latest.actor_name if stale.latest else 'someone'} after this list was "
                "made; nothing was accepted. Here is the list as it is now."
            )
        except plan_actions.ActionRefused as refused:
            status, problem = 422, str(refused)
        else:
            messages.success(request, f"Accepted {len(decisions)} entries of {rule}.")
            return redirect("plan", pk=plan.pk)
    candidates = plan_actions.rule_candidates(plan, rule)
    context = {"plan": plan, "rule": rule, "candidates": candidates, "problem": problem}
    return render(request, "review/plans/accept_rule.html", context, status=status)


@require_POST
def adjudicate(request: HttpRequest, pk: int) -> HttpResponse:
    plan = _get_plan_for_user(request, pk, decide=True)
    try:
        version = _version(request)
    except BadVersion:
        return HttpResponseBadRequest("The form did not say which version of the plan you saw.")
    entries = list(plan.entries.order_by("position"))
    problems = plan_actions.adjudication_problems(plan, entries)
    if problems:
        messages.error(request, "Not adjudicated yet: " + "; ".join(problems) + ".")
        return redirect("plan", pk=plan.pk)
    try:
        adjudicate_plan(plan, request.user, version)
    except StaleVersion as stale:
        context = {"plan": stale.current, "latest": stale.latest, "plan_url": _plan_url(plan.pk)}
        return render(request, "review/plans/conflict.html", context, status=409)
    except ImportRefused as refused:
        messages.error(request, "Not adjudicated: " + "; ".join(refused.problems))
        return redirect("plan", pk=plan.pk)
    messages.success(request, "The plan is adjudicated and frozen. Its JSON is ready to download.")
    return redirect(f"{_plan_url(plan.pk)}?adjudicated=1")


@require_GET
def plan_export(request: HttpRequest, pk: int) -> HttpResponse:
    """The adjudicated plan's JSON: exactly what `export_plan` (and `manage.py export_plan`)
    gives."""
    plan = _get_plan_for_user(request, pk)
    try:
        payload = export_plan(plan)
    except ImportRefused as refused:
        return HttpResponse("\n".join(refused.problems), status=409, content_type="text/plain")
    stem = PurePath(plan.document.name).stem or "document"
    response = HttpResponse(payload, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{stem}-plan-{plan.pk}.json"'
    return response


@require_GET
def plan_history(request: HttpRequest, pk: int) -> HttpResponse:
    plan = _get_plan_for_user(request, pk)
    page = Paginator(plan_actions.plan_decisions(plan), HISTORY_PER_PAGE).get_page(
        request.GET.get("page")
    )
    decisions = list(page.object_list)
    entry_ids = {int(row.object_id) for row in decisions if row.object_type == "entry"}
    entries = Entry.objects.filter(pk__in=entry_ids).values_list("pk", "position", "path")
    labels = {str(pk): f"#{position + 1} {entry_path}" for pk, position, entry_path in entries}
    rows = [
        {
            "decision": row,
            "on": labels.get(row.object_id, "the plan")
            if row.object_type == "entry"
            else "the plan",
            "entry_id": row.object_id if row.object_type == "entry" else None,
            "changes": _changes(row),
        }
        for row in decisions
    ]
    context = {"plan": plan, "page": page, "rows": rows, "plan_url": _plan_url(plan.pk)}
    return render(request, "review/plans/history.html", context)


# Internal bookkeeping the row already shows as "who" and "when".
_HIDDEN_KEYS = {"decided_by_id", "decided_at", "adjudicated_at", "adjudicated_by"}


def _changes(decision: Decision) -> list[tuple[str, object, object]]:
    """What the decision changed, field by field (fields it left as they were are skipped)."""
    keys = dict.fromkeys([*decision.after, *decision.before])
    return [
        (key, decision.before.get(key), decision.after.get(key))
        for key in keys
        if key not in _HIDDEN_KEYS and decision.before.get(key) != decision.after.get(key)
    ]


urlpatterns = [
    path("", plan_list, name="plans"),
    path("upload-document/", upload_document, name="plan-upload-document"),
    path("upload-plan/", upload_plan, name="plan-upload-plan"),
    path("<int:pk>/", plan_detail, name="plan"),
    path("<int:pk>/history/", plan_history, name="plan-history"),
    path("<int:pk>/accept-rule/", accept_rule, name="plan-accept-rule"),
    path("<int:pk>/adjudicate/", adjudicate, name="plan-adjudicate"),
    path("<int:pk>/export.json", plan_export, name="plan-export"),
    path("<int:pk>/entries/<int:entry_pk>/", entry_row, name="entry"),
    path("<int:pk>/entries/<int:entry_pk>/edit/", entry_edit, name="entry-edit"),
    path("<int:pk>/entries/<int:entry_pk>/<slug:action>/", entry_decide, name="entry-decide"),
]
