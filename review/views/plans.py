"""The editors' screens for segmentation plans: the list (with the two upload forms and the
warning for paths that several documents claim), accepting every entry of one rule, adjudicating
a plan and downloading it, and the plan's history. The plan page itself is in `plan_page`, the
entry actions in `plan_entries`; all their URLs are here.

Everyone logged in may read; only Editors (and staff) see decision buttons, and anyone else
gets 403 on a POST.
"""

from __future__ import annotations

from pathlib import PurePath

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import path
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods, require_POST

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
from review.views.deciding import BadVersion, posted_version
from review.views.plan_entries import entry_decide, entry_edit, entry_row
from review.views.plan_page import get_plan_for_user, plan_detail, plan_url

HISTORY_PER_PAGE = 100


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


# --- many entries, and the plan ------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def accept_rule(request: HttpRequest, pk: int) -> HttpResponse:
    """Accept every remaining PROPOSED entry of one rule, after a page that lists them."""
    plan = get_plan_for_user(request, pk, decide=True)
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
            message = f"Accepted {_entries(len(decisions))} of {rule}."
            # A listed entry someone else decided meanwhile is left alone; say so, or the
            # editor who confirmed a list of seven wonders why six were accepted.
            if left := len(versions) - len(decisions):
                message += (
                    f" Left as someone else decided them meanwhile: {_entries(left)} on the list"
                    " (the plan's history says who)."
                )
            messages.success(request, message)
            return redirect("plan", pk=plan.pk)
    candidates = plan_actions.rule_candidates(plan, rule)
    context = {"plan": plan, "rule": rule, "candidates": candidates, "problem": problem}
    return render(request, "review/plans/accept_rule.html", context, status=status)


def _entries(count: int) -> str:
    return f"{count} entry" if count == 1 else f"{count} entries"


@require_POST
def adjudicate(request: HttpRequest, pk: int) -> HttpResponse:
    plan = get_plan_for_user(request, pk, decide=True)
    try:
        version = posted_version(request)
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
        context = {"plan": stale.current, "latest": stale.latest, "plan_url": plan_url(plan.pk)}
        return render(request, "review/plans/conflict.html", context, status=409)
    except ImportRefused as refused:
        messages.error(request, "Not adjudicated: " + "; ".join(refused.problems))
        return redirect("plan", pk=plan.pk)
    messages.success(request, "The plan is adjudicated and frozen. Its JSON is ready to download.")
    return redirect(f"{plan_url(plan.pk)}?adjudicated=1")


@require_GET
def plan_export(request: HttpRequest, pk: int) -> HttpResponse:
    """The adjudicated plan's JSON: exactly what `export_plan` (and `manage.py export_plan`)
    gives."""
    plan = get_plan_for_user(request, pk)
    try:
        payload = export_plan(plan)
    except ImportRefused as refused:
        return HttpResponse("\n".join(refused.problems), status=409, content_type="text/plain")
    stem = PurePath(plan.document.name).stem or "document"
    response = HttpResponse(payload, content_type="application/json; charset=utf-8")
    # The document's name is untrusted text: quoted (and UTF-8 encoded) by Django.
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"{stem}-plan-{plan.pk}.json"
    )
    return response


@require_GET
def plan_history(request: HttpRequest, pk: int) -> HttpResponse:
    plan = get_plan_for_user(request, pk)
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
    context = {"plan": plan, "page": page, "rows": rows, "plan_url": plan_url(plan.pk)}
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
