"""One plan's page (the document with every entry's span drawn over it, and the entries
beside it), and what is done to the plan as a whole: accepting every entry of one rule,
adjudicating, downloading the adjudicated JSON (or the same as W3C Web Annotations or as a
Label Studio task), and the plan's history.

Everyone logged in may read; only Editors (and staff) decide.
"""

from __future__ import annotations

from functools import partial
from pathlib import PurePath

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from grounding.segmentation import shown_number
from grounding.web_annotation import MEDIA_TYPE as ANNOTATIONS_MEDIA_TYPE
from review.actions.plan_reviews import adjudicate_plan
from review.actions.plans import (
    accept_rule,
    rule_batch,
    rule_candidates,
    undo_accept_rule,
)
from review.actions.reviewers import do_note_conflict
from review.adapters.annotations import export_annotations
from review.adapters.errors import PlanNotAdjudicable
from review.adapters.label_studio import export_label_studio
from review.adapters.plans import export_plan
from review.decisions import (
    ActionRefused,
    StaleVersion,
    decisions_on_plan,
    undoable_entry_ids,
)
from review.insights import rule_record
from review.models import Decision, Entry, Lease, Plan, PlanCounts, merged_ends
from review.views import plan_reviews
from review.views.deciding import NO_VERSION
from review.views.decision_words import in_words, plan_label
from review.views.leasing import after_deciding, presence_strip
from review.views.plan_context import (
    PLAN_TEMPLATE,
    annotations_address,
    get_plan_for_user,
    plan_url,
    row_context,
)
from review.views.presenters import (
    ENTRY_CHUNK,
    EntryRow,
    PlanUrls,
    document_chunks,
    document_regions,
    entry_chunks,
    superseded_notice,
)
from review.views.projects import current_project
from review.views.streaming import streamed_page

HISTORY_PER_PAGE = 100


# --- the page ------------------------------------------------------------------------------


@require_GET
@never_cache  # Back must not show an item as it was before a decision on it
def plan_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return plan_page(request, get_plan_for_user(request, pk))


def plan_page(
    request: HttpRequest,
    plan: Plan,
    *,
    refusal: str = "",
    current: int | None = None,
    status: int = 200,
) -> HttpResponse:
    """The plan's page; with a `refusal`, shown above it, as a plain form's refused decision
    answers (422), at the entry it was about."""
    if refusal:
        messages.error(request, refusal)
    entries = list(plan.entries.defer("proposed").order_by("position"))
    context = row_context(request, plan)
    text = plan.document.text
    rows = _entry_rows(plan, entries, context["urls"], text)
    lead, regions = document_regions(text, entries)
    filters = {name: request.GET.get(name, "") for name in ("state", "rule", "anchor")}
    pairs = list(zip(rows, regions, strict=True))
    current_id = current or _current_entry_id(request, entries)
    at = next((index for index, entry in enumerate(entries) if entry.pk == current_id), 0)
    context |= {
        "document": plan.document,
        "doc_chunks": document_chunks(pairs),
        "entry_chunks": entry_chunks(pairs, current=at),
        "lead": lead,
        "counts": PlanCounts.of_entries(entries),
        "current_id": current_id,
        "rule_counts": _proposed_rule_counts(entries),
        "filters": filters,
        "filtered_out": {entry.pk for entry in entries if not _shown(entry, filters)},
        "all_rules": sorted({rule for entry in entries for rule in entry.rules or []}),
        "anchor_statuses": Entry.AnchorStatus.choices,
        "seen": timezone.now().isoformat(),
        "rule_batch": _offered_batch(request, plan),
        **presence_strip(request, Lease.Queue.PLANS, plan.pk),
        **plan_reviews.review_notice(request, plan, entries),
        **superseded_notice(plan),
    }
    return streamed_page(
        request,
        PLAN_TEMPLATE,
        context,
        streamed={
            "doc_chunks": f"{PLAN_TEMPLATE}#doc-chunk",
            "entry_chunks": f"{PLAN_TEMPLATE}#entry-chunk",
        },
        status=status,
    )


def _entry_rows(
    plan: Plan,
    entries: list[Entry],
    urls: PlanUrls,
    text: str,
    *,
    first: int = 1,
    more_after: bool = False,
):
    """The entries as their rows draw them, numbered from `first`; `more_after` when the
    plan has entries after these (whose merges may join the last of them)."""
    undoable = undoable_entry_ids(plan)
    deciders = _usernames({entry.decided_by_id for entry in entries})
    ends = merged_ends(entries)
    last = next((entry for entry in reversed(entries) if entry.state != Entry.State.MERGED), None)
    if more_after and last is not None and (end := Entry.objects.merged_end(last)) is not None:
        ends[last.pk] = end
    return [
        EntryRow(
            entry,
            urls,
            number=number,
            decider=deciders.get(entry.decided_by_id, ""),
            undoable=entry.pk in undoable,
            text=text,
            merged_end=ends.get(entry.pk),
        )
        for number, entry in enumerate(entries, start=first)
    ]


@require_GET
def plan_entry_list(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """One list of the plan's entries drawn whole (the `number`th, of ENTRY_CHUNK): the page
    draws the lists far from the current entry light, and plan-lists.js asks for each as it comes
    into view."""
    plan = get_plan_for_user(request, pk)
    start = (number - 1) * ENTRY_CHUNK
    entries = []
    if number >= 1:
        entries = list(
            plan.entries.defer("proposed").order_by("position")[start : start + ENTRY_CHUNK]
        )
    if not entries:
        raise Http404("No such list of entries.")
    context = row_context(request, plan)
    rows = _entry_rows(
        plan,
        entries,
        context["urls"],
        plan.document.text,
        first=start + 1,
        more_after=len(entries) == ENTRY_CHUNK,
    )
    (chunk,) = entry_chunks([(row, None) for row in rows], first_number=number)
    context |= {"chunk": chunk, "filtered_out": set()}
    return render(request, f"{PLAN_TEMPLATE}#entry-chunk", context)


def _shown(entry: Entry, filters: dict[str, str]) -> bool:
    """Whether the entry passes the entry list's filter (plan-lists.js applies the same one in
    place; this is for a page without JavaScript)."""
    state, rule, anchor = filters["state"], filters["rule"], filters["anchor"]
    if state == "needs":
        if entry.state != Entry.State.PROPOSED and not entry.anchor_unsettled:
            return False
    elif state and entry.state != state:
        return False
    if rule and rule not in (entry.rules or []):
        return False
    return not anchor or entry.anchor_status == anchor


def _offered_batch(request: HttpRequest, plan: Plan) -> dict | None:
    batch = request.session.get("rule_batch")
    return batch if batch and batch.get("plan") == plan.pk and plan.is_open else None


def _proposed_rule_counts(entries: list[Entry]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for entry in entries:
        if entry.state == Entry.State.PROPOSED:
            for rule in entry.rules or []:
                counts[rule] = counts.get(rule, 0) + 1
    return sorted(counts.items())


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


# --- the plan as a whole --------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def plan_accept_rule(request: HttpRequest, pk: int) -> HttpResponse:
    """Accept every remaining PROPOSED entry of one rule, after a page that lists them."""
    plan = get_plan_for_user(request, pk, decide=True)
    rule = request.POST.get("rule") or request.GET.get("rule", "")
    status, problem = 200, ""
    if request.method == "POST":
        versions = _listed_versions(request)
        try:
            decisions = accept_rule(
                plan,
                rule,
                actor=request.user,
                versions=versions,
                unvalidated_confirmed=request.POST.get("unvalidated") == "1",
            )
        except StaleVersion as stale:
            do_note_conflict(request.user, stale)
            status = 409
            problem = (
                f"“{stale.current.title}” was changed by "
                f"{stale.latest.actor_name if stale.latest else 'someone'} after this list was "
                "made; nothing was accepted. Here is the list as it is now."
            )
        except ActionRefused as refused:
            status, problem = 422, str(refused)
        else:
            _say_accepted(request, plan, rule, decisions, listed=len(versions))
            return redirect(plan_url(request, plan.pk))
    candidates = rule_candidates(plan, rule)
    context = {
        "plan": plan,
        "rule": rule,
        "candidates": candidates,
        "problem": problem,
        "record": rule_record(rule, plan.proposed_by, plan.project_id),
    }
    return render(request, "review/plans/accept_rule.html", context, status=status)


def _say_accepted(request: HttpRequest, plan: Plan, rule: str, decisions, *, listed: int) -> None:
    """The message after an accept of a rule, and its one-step Undo kept for the plan page."""
    message = f"Accepted {_entries(len(decisions))} of {rule}."
    # Offered on the plan page as one "Undo" (kept in the session, so the page
    # asks no more of the database for it).
    request.session["rule_batch"] = {
        "plan": plan.pk,
        "batch": rule_batch(decisions[0]),
        "label": f"the accept of {_entries(len(decisions))} of {rule}",
    }
    # A listed entry someone else decided meanwhile is left alone; say so, or the
    # editor who confirmed a list of seven wonders why six were accepted.
    if left := listed - len(decisions):
        message += (
            f" Left as someone else decided them meanwhile: {_entries(left)} on the list"
            " (the plan's history says who)."
        )
    messages.success(request, message)


@require_POST
def plan_undo_accept_rule(request: HttpRequest, pk: int) -> HttpResponse:
    plan = get_plan_for_user(request, pk, decide=True)
    try:
        undone = undo_accept_rule(plan, request.POST.get("batch", ""), actor=request.user)
    except ActionRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, f"Undid the accept of {_entries(len(undone))}.")
        request.session.pop("rule_batch", None)
    return redirect(plan_url(request, plan.pk))


def _listed_versions(request: HttpRequest) -> dict[int, int]:
    """entry id -> version, as the confirmation page listed them ("id:version")."""
    versions = {}
    for item in request.POST.getlist("entry"):
        entry_id, _, version = item.partition(":")
        if entry_id.isdigit() and version.isdigit():
            versions[int(entry_id)] = int(version)
    return versions


def _entries(count: int) -> str:
    return f"{count} entry" if count == 1 else f"{count} entries"


@require_POST
def plan_adjudicate(request: HttpRequest, pk: int) -> HttpResponse:
    plan = get_plan_for_user(request, pk, decide=True)
    try:
        version = int(request.POST["version"])
    except (KeyError, ValueError):
        return HttpResponse(NO_VERSION, status=400)
    try:
        adjudicate_plan(plan, actor=request.user, expected_version=version)
    except StaleVersion as stale:
        do_note_conflict(request.user, stale)
        context = {
            "plan": stale.current,
            "latest": stale.latest,
            "urls": PlanUrls(current_project(request).slug, plan.pk),
        }
        return render(request, "review/plans/conflict.html", context, status=409)
    except PlanNotAdjudicable as refused:
        if refused.blockers:
            reason = "Not adjudicated yet: " + "; ".join(refused.blockers.summary()) + "."
        else:
            reason = "Not adjudicated: " + "; ".join(refused.problems)
        return plan_page(request, plan, refusal=reason, status=422)
    done = redirect(plan_url(request, plan.pk))
    response = after_deciding(request, Lease.Queue.PLANS, plan.pk, done)
    # Moved on to the next plan, the message is read there, where no download is offered.
    if response.get("HX-Redirect", response.get("Location")) == done["Location"]:
        messages.success(
            request, "The plan is adjudicated and frozen. Its JSON is ready to download."
        )
    else:
        messages.success(
            request, f"Plan {plan.pk} ({plan.document.name}) is adjudicated and frozen."
        )
    return response


@require_GET
def plan_export(request: HttpRequest, pk: int) -> HttpResponse:
    """The adjudicated plan's JSON: exactly what `export_plan` (and `manage.py export_plan`)
    gives."""
    plan = get_plan_for_user(request, pk)
    return _download(plan, export_plan, "application/json; charset=utf-8", ".json")


@require_GET
def plan_annotations(request: HttpRequest, pk: int) -> HttpResponse:
    """The adjudicated plan as a W3C Web Annotation collection (JSON-LD), identified by this
    address; refused, as the JSON is, for a plan not adjudicated."""
    plan = get_plan_for_user(request, pk)
    address = annotations_address(request, plan)
    export = partial(export_annotations, collection_id=address)
    return _download(plan, export, ANNOTATIONS_MEDIA_TYPE, ".jsonld")


@require_GET
def plan_label_studio(request: HttpRequest, pk: int) -> HttpResponse:
    """The adjudicated plan as a Label Studio task with one annotation, to import into a
    Label Studio project; refused, as the JSON is, for a plan not adjudicated."""
    plan = get_plan_for_user(request, pk)
    return _download(plan, export_label_studio, "application/json; charset=utf-8", "-ls.json")


def _download(plan: Plan, export, content_type: str, suffix: str) -> HttpResponse:
    """`export(plan)` as an attachment named for the document; 409 naming what is undecided
    for a plan not adjudicated, as every export of a plan refuses it."""
    try:
        body = export(plan)
    except PlanNotAdjudicable as refused:
        return HttpResponse("\n".join(refused.problems), status=409, content_type="text/plain")
    stem = PurePath(plan.document.name).stem or "document"
    response = HttpResponse(body, content_type=content_type)
    # The document's name is untrusted text: quoted (and UTF-8 encoded) by Django.
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=f"{stem}-plan-{plan.pk}{suffix}"
    )
    return response


@require_GET
def plan_history(request: HttpRequest, pk: int) -> HttpResponse:
    plan = get_plan_for_user(request, pk)
    log = decisions_on_plan(plan).select_related("undoes")
    page = Paginator(log, HISTORY_PER_PAGE).get_page(request.GET.get("page"))
    decisions = list(page.object_list)
    entry_ids = {int(row.object_id) for row in decisions if row.object_type == "entry"}
    entries = list(Entry.objects.filter(pk__in=entry_ids).values_list("pk", "position", "path"))
    labels = {
        str(pk): f"#{shown_number(position)} {entry_path}" for pk, position, entry_path in entries
    }
    numbers = {str(pk): shown_number(position) for pk, position, _ in entries}
    # An entry and the plan may share an id: only an entry's row is worded as an entry's.
    on_entry = {
        row.pk: row.object_id in numbers and row.object_type == "entry" for row in decisions
    }
    the_plan = plan_label(plan.pk, plan.review_of_id)
    rows = [
        {
            "decision": row,
            "on": labels[row.object_id] if on_entry[row.pk] else "the plan",
            "entry_id": row.object_id if row.object_type == "entry" else None,
            "changes": _changes(row),
            "words": in_words(
                row,
                f"entry #{numbers[row.object_id]}" if on_entry[row.pk] else the_plan,
                number=numbers[row.object_id] if on_entry[row.pk] else None,
            ),
        }
        for row in decisions
    ]
    context = {"plan": plan, "page": page, "rows": rows, "plan_url": plan_url(request, plan.pk)}
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
