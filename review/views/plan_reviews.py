"""Double review of a plan: the notice on the plan page, opening one's own review copy, and
the curation view of only the entries where the two reviews differ, side by side, where the
curator takes one side or edits the entry, and can undo what settled an entry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from grounding.revisions import WordChange, word_sides
from review.actions.entries import BoundaryOffer, EditRefused
from review.actions.plan_reviews import (
    curate_entry,
    curate_entry_edit,
    differing_entries,
    open_review_copy,
    review_copies,
    settlements,
    undo_settlement,
)
from review.decisions import ActionRefused, StaleVersion
from review.forms import CurationEditForm
from review.models import Entry, Lease, Plan
from review.permissions import can_curate, can_decide_plans
from review.views.deciding import NO_VERSION
from review.views.leasing import after_deciding, presence_strip
from review.views.presenters import superseded_notice
from review.views.projects import project_url


def review_notice(request: HttpRequest, plan: Plan, entries) -> dict:
    """What the plan page says about double review, for `plan` and the person looking."""
    if plan.is_review_copy:
        return {"review_copy": True}
    if not plan.is_double_reviewed(entries):
        return {}
    copies = review_copies(plan)
    return {
        "double_review": True,
        "reviewers_in": sum(copy.is_adjudicated for copy in copies),
        "may_open_copy": can_decide_plans(request.user, plan.project_id) and plan.is_open,
        "differences": len(differing_entries(plan))
        if can_curate(request.user, plan.project_id)
        else 0,
    }


@require_POST
def plan_review_copy(request: HttpRequest, pk: int) -> HttpResponse:
    plan = get_object_or_404(Plan.objects.visible_to(request.user), pk=pk, review_of__isnull=True)
    if not can_decide_plans(request.user, plan.project_id):
        raise PermissionDenied("Only editors review plans.")
    try:
        copy = open_review_copy(plan, actor=request.user)
    except ActionRefused as refused:
        messages.error(request, str(refused))
        return redirect(project_url(request, "plan", plan.pk))
    return redirect(project_url(request, "plan", copy.pk))


def _get_plan_for_curator(request: HttpRequest, pk: int) -> Plan:
    plans = Plan.objects.visible_to(request.user).select_related("document")
    plan = get_object_or_404(plans, pk=pk, review_of__isnull=True)
    if not can_curate(request.user, plan.project_id):
        raise PermissionDenied("Only curators settle what two editors disagree on.")
    return plan


def _curation_page(
    request: HttpRequest, plan: Plan, *, editing=None, form=None, offers=None, status=200
) -> HttpResponse:
    """The curation page: each entry to settle, its two versions side by side (and, for the
    one being edited, the edit form), then what is settled, each with its undo."""
    found = settlements(plan)
    settled = [
        (entry, found[entry.pk]) for entry in plan.entries.order_by("position") if entry.pk in found
    ]
    context = {
        **presence_strip(request, Lease.Queue.PLANS, plan.pk),
        "plan": plan,
        "rows": _rows_to_settle(request, plan, editing, form),
        "offers": offers,
        "settled": settled,
        "last_settled": max(settled, key=lambda row: (row[1].at, row[1].pk), default=None),
        **superseded_notice(plan),
    }
    return render(request, "review/plans/curation.html", context, status=status)


def _rows_to_settle(request: HttpRequest, plan: Plan, editing, form) -> list[dict]:
    """Each entry to settle with its two sides; the one being edited (a refused edit, or
    `?edit=<entry>&from=first|second`) with its form."""
    text = plan.document.text
    copies = review_copies(plan)
    rows = []
    for entry, a, b in differing_entries(plan):
        if form is None and request.GET.get("edit") == str(entry.pk):
            editing = entry
            start_from = b if request.GET.get("from") == "second" else a
            form = CurationEditForm(entry, len(text), start_from=start_from)
        sides = reviews_side_by_side(
            (copies[0].reviewer.username, a, text[a.span_start : a.span_end]),
            (copies[1].reviewer.username, b, text[b.span_start : b.span_end]),
        )
        being_edited = editing is not None and editing.pk == entry.pk
        rows.append({"entry": entry, "sides": sides, "form": form if being_edited else None})
    return rows


@dataclass(frozen=True)
class ReviewSide:
    """One review's version of an entry beside the other's: its fields as runs "same" or
    "differs" (`grounding.revisions.word_sides`), the state by whether it differs."""

    label: str
    reviewer: str
    entry: Entry
    state_differs: bool
    words: dict[str, tuple[WordChange, ...]]


def reviews_side_by_side(*reviews: tuple[str, Entry, str]) -> list[ReviewSide]:
    """The two reviews (reviewer, their entry, the text at its span), each field marked
    word by word where it differs from the other's."""
    (_, a, text_a), (_, b, text_b) = reviews
    fields = {
        "path": (a.path, b.path),
        "title": (a.title, b.title),
        "span": (f"{a.span_start}–{a.span_end}", f"{b.span_start}–{b.span_end}"),
        "note": (a.note, b.note),
        "text": (text_a, text_b),
    }
    marked = {name: word_sides(*pair) for name, pair in fields.items()}
    return [
        ReviewSide(
            label,
            reviewer,
            entry,
            a.state != b.state,
            {name: sides[index] for name, sides in marked.items()},
        )
        for index, (label, (reviewer, entry, _)) in enumerate(
            zip(("first", "second"), reviews, strict=True)
        )
    ]


@require_GET
@never_cache  # Back must not show an item as it was before a decision on it
def plan_curation(request: HttpRequest, pk: int) -> HttpResponse:
    return _curation_page(request, _get_plan_for_curator(request, pk))


def _entry_to_settle(request: HttpRequest, pk: int, entry_pk: int) -> tuple[Plan, Entry]:
    plan = _get_plan_for_curator(request, pk)
    entry = get_object_or_404(Entry.objects.select_related("plan"), pk=entry_pk, plan=plan)
    return plan, entry


def _version_seen(request: HttpRequest) -> int | None:
    try:
        return int(request.POST.get("version", ""))
    except ValueError:
        messages.error(request, NO_VERSION)
        return None


def _settle(request: HttpRequest, act: Callable[[int], object]) -> bool | None:
    """Run `act(version seen)`: True when it landed, False when it was refused (the reason
    said as a message), None when the form did not say which version was seen."""
    version = _version_seen(request)
    if version is None:
        return None
    try:
        act(version)
    except (ActionRefused, StaleVersion) as refused:
        messages.error(request, str(refused))
        return False
    return True


def _after_settling(request: HttpRequest, plan: Plan) -> HttpResponse:
    """Back to the curation page; once the plan is adjudicated, to the plan, or to the next
    item of the queue when the plan was handed to the curator by it."""
    plan.refresh_from_db()
    if plan.is_adjudicated:
        messages.success(request, "Every entry is settled: the plan is adjudicated.")
        return after_deciding(
            request, Lease.Queue.PLANS, plan.pk, redirect(project_url(request, "plan", plan.pk))
        )
    return redirect(project_url(request, "plan-curation", plan.pk))


@require_POST
def plan_curate_entry(request: HttpRequest, pk: int, entry_pk: int) -> HttpResponse:
    plan, entry = _entry_to_settle(request, pk, entry_pk)
    pick = request.POST.get("pick", "")
    landed = _settle(
        request,
        lambda version: curate_entry(entry, pick, actor=request.user, expected_version=version),
    )
    if landed is None:
        return redirect(project_url(request, "plan-curation", plan.pk))
    return _after_settling(request, plan)


@require_POST
def plan_curate_edit(request: HttpRequest, pk: int, entry_pk: int) -> HttpResponse:
    """The curator settles the entry with their own edit of it. A refused edit redraws the
    page with the form as typed and the reasons beside its fields (422), or with the nearest
    paragraph boundaries to choose from."""
    plan, entry = _entry_to_settle(request, pk, entry_pk)
    form = CurationEditForm(entry, len(plan.document.text), request.POST)
    version = _version_seen(request)
    if version is None:
        return redirect(project_url(request, "plan-curation", plan.pk))
    try:
        curate_entry_edit(
            entry,
            form.edit_request(),
            form.settled_state(),
            actor=request.user,
            expected_version=version,
        )
    except BoundaryOffer as offer:
        return _curation_page(request, plan, editing=entry, form=form, offers=offer.offers)
    except EditRefused as refused:
        form.add_refusal(refused.errors)
        return _curation_page(request, plan, editing=entry, form=form, status=422)
    except (ActionRefused, StaleVersion) as refused:
        messages.error(request, str(refused))
    return _after_settling(request, plan)


@require_POST
def plan_curate_undo(request: HttpRequest, pk: int, entry_pk: int) -> HttpResponse:
    """Take back the agreement or curation that settled an entry: it is to settle again."""
    plan, entry = _entry_to_settle(request, pk, entry_pk)
    if _settle(
        request,
        lambda version: undo_settlement(entry, actor=request.user, expected_version=version),
    ):
        messages.success(request, f"Entry #{entry.number} is to settle again.")
    return redirect(project_url(request, "plan-curation", plan.pk))
