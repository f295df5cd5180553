"""The moderators' screens: the queue of cases and one case side by side.

Everyone may read; only Moderators (and staff) may decide. A verdict is one POST,
answered with the verdict panel for htmx and a redirect otherwise.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from grounding.evidence import REASON_DESCRIPTIONS, VALIDATION_REASONS
from review.actions import leases
from review.actions.cases import VERDICT_ACTIONS, decide_case, undo_case
from review.actions.leases import with_holders
from review.adapters.cases import report_for
from review.decisions import decisions_on, latest_decision
from review.list_filters import CASE_FILTERS, PASSED, filtered_cases, filters_of
from review.models import Case, CaseFacet, Evidence, Lease
from review.permissions import can_decide_cases, can_lead, is_member
from review.views import HtmxHttpRequest, live
from review.views.case_report import case_report
from review.views.deciding import PanelPage
from review.views.leasing import presence_strip, undo_offer
from review.views.lists import count_on_page, list_template, order_keys, shown_page
from review.views.presenters import DecisionPanel, PanelAction
from review.views.projects import current_project, in_current_project, project_url
from review.views.second_opinions import opinions_context

CASES_PER_PAGE = 50
QUEUE_KEYS = order_keys(Case, Case.QUEUE_ORDER)

# What a validator reason means, for people.
REASON_LABELS = {"": "passed", **REASON_DESCRIPTIONS}

# --- The queue ------------------------------------------------------------------


@require_GET
def case_list(request: HtmxHttpRequest) -> HttpResponse:
    filters = filters_of(request.GET, CASE_FILTERS)
    project = current_project(request)
    cases = in_current_project(request, Case.objects.all())
    cases = with_holders(filtered_cases(cases, filters), Lease.Queue.CASES)
    page = shown_page(request, cases, QUEUE_KEYS, CASES_PER_PAGE)
    count_on_page(page, Evidence.objects, "case", "evidence_count")
    for case in page.object_list:
        case.reason_label = REASON_LABELS.get(case.validator_reason, case.validator_reason)
    facets = _facets(project) if is_member(request.user, project) else _no_facets()
    reason_counts = _reason_counts(facets[CaseFacet.Kind.REASON])
    context = {
        "page": page,
        "filters": filters,
        "total": _total(filters, reason_counts),
        "reason_counts": reason_counts,
        "tools": sorted(facets[CaseFacet.Kind.TOOL]),
        "evidence_statuses": Evidence.Status.choices,
        "verdicts": Case.Verdict.choices,
        "can_decide": can_decide_cases(request.user, project),
        # Curators take disagreements from the same Next as reviewers take their items.
        "may_take_next": leases.QUEUES[Lease.Queue.CASES].may_take(request.user, project),
        "can_lead": can_lead(request.user, project),
        "next_url": project_url(request, "cases-next"),
    }
    return render(request, list_template(request, "review/cases/list.html", "queue"), context)


def _no_facets() -> dict[str, dict[str, int]]:
    return {kind: {} for kind in CaseFacet.Kind}


def _facets(project) -> dict[str, dict[str, int]]:
    """The queue's counts of `project`'s cases: {kind: {value: count}}, as the database's
    triggers keep them (`CaseFacet`), one row a value, however many cases there are."""
    facets = _no_facets()
    rows = CaseFacet.objects.filter(project=project, count__gt=0)
    for kind, value, count in rows.values_list("kind", "value", "count"):
        facets[kind][value] = count
    return facets


def _total(filters: dict[str, str], reason_counts: list[dict]) -> int | None:
    """How many cases the list holds, when the counters know it (no filter, or a reason
    alone); None otherwise, rather than counting 200k rows per request."""
    if any(value for name, value in filters.items() if name != "reason"):
        return None
    return sum(row["count"] for row in reason_counts if filters["reason"] in ("", row["value"]))


def _reason_counts(counts: dict[str, int]) -> list[dict]:
    known = ["", *VALIDATION_REASONS]
    order = known + sorted(reason for reason in counts if reason not in known)
    return [
        {
            "value": reason or PASSED,
            "label": REASON_LABELS.get(reason, reason),
            "count": counts.get(reason, 0),
            "flagged": bool(reason),
        }
        for reason in order
        if counts.get(reason)
    ]


# --- One case --------------------------------------------------------------------


def get_case_for_user(
    request: HttpRequest, pk: int, *, decide: bool = False, undo: bool = False
) -> Case:
    """The case `pk` as `request.user` may read it (404 otherwise), or decide it with
    `decide`, or take a step of it back with `undo` (403 otherwise: `Case.decidable_by`)."""
    case = get_object_or_404(
        Case.objects.select_related("decided_by", "first_by", "second_by"),
        pk=pk,
        project=current_project(request),  # found only in the project its address names
    )
    if not case.visible_to(request.user):
        raise Http404("No such case.")
    if (decide or undo) and not case.decidable_by(request.user, undoing=undo):
        raise PermissionDenied("Only moderators may decide cases.")
    return case


@require_GET
@never_cache  # Back must not show an item as it was before a decision on it
def case_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    case = get_case_for_user(request, pk)
    context = _case_context(request, case) | {
        "seen": live.page_cursor(decisions_on(case)),
        **presence_strip(request, Lease.Queue.CASES, case.pk),
        **undo_offer(request, Lease.Queue.CASES),
    }
    return render(request, "review/cases/case.html", context)


def _case_context(request: HttpRequest, case: Case, **extra) -> dict:
    report = report_for(case)
    return {
        "case": case,
        "report": report,
        "reason_label": REASON_LABELS.get(report.validation.reason, report.validation.reason),
        **case_report(report, list(case.evidence.all())),
        **_verdict_context(request, case),
        **extra,
    }


def _verdict_context(request: HttpRequest, case: Case) -> dict:
    history = list(decisions_on(case))
    panel = DecisionPanel(
        id="verdict",
        css_class="verdict-panel",
        heading="Moderator's verdict",
        thing="case",
        obj=case,
        state=case.verdict,
        state_label=case.get_verdict_display(),
        actions=tuple(
            PanelAction(
                action.name,
                action.label,
                project_url(request, "case-decide", case.pk, action.slug),
                action.note_required,
            )
            for action in VERDICT_ACTIONS.values()
        ),
        form_url=project_url(request, "case-decide", case.pk, "uphold"),
        undo_url=project_url(request, "case-undo", case.pk),
        note_hint="required to overturn or ask for a rewrite",
        note_rows=3,
        advice="Decide again if you still want to.",
        badge="review/cases/case.html#verdict-badge",
        keys=True,
        explain=_what_verdicts_mean(case),
    )
    may_decide = can_decide_cases(request.user, case.project_id)
    return {
        "panel": panel,
        **opinions_context(request, case, history, may_decide=may_decide, undo="case.undo"),
    }


def _what_verdicts_mean(case: Case) -> str:
    action = case.recommended_action or "no action"
    return (
        f"Uphold agrees with the model: its recommendation ({action}) stands. "
        "Overturn says the recommendation is wrong. "
        "Needs rewrite says the verdict may be right but the rationale does not support it."
    )


# --- Deciding ----------------------------------------------------------------------

PAGE = PanelPage(
    name="case",
    queue=Lease.Queue.CASES,
    template="review/cases/case.html",
    partial="verdict",
    get_for_user=get_case_for_user,
    page_context=_case_context,
    panel_context=_verdict_context,
)


@require_POST
def case_decide(request: HtmxHttpRequest, pk: int, action: str) -> HttpResponse:
    name = action.replace("-", "_")
    if name not in VERDICT_ACTIONS:
        raise Http404("No such action.")
    note = request.POST.get("note", "")
    return PAGE.decide(
        request,
        pk,
        lambda case, version: decide_case(
            case, name, actor=request.user, expected_version=version, note=note
        ),
    )


@require_POST
def case_undo(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return PAGE.undo(
        request,
        pk,
        lambda case, version: undo_case(case, actor=request.user, expected_version=version),
    )


# --- what others changed, for an open page's poll -------------------------------------------


def live_changes(request: HtmxHttpRequest, pk: int, seen: str) -> tuple[str, str]:
    """When someone else gave a verdict since the cursor `seen` (`live.news_since`): the
    badge, and a notice beside the panel, out of band; and the cursor to ask from next. The
    panel itself stays as it is, with the note being typed; its buttons still carry the
    version seen, so deciding meets the other verdict as a 409."""
    case = get_case_for_user(request, pk)
    news, cursor = live.news_since(decisions_on(case), seen, request.user)
    latest = latest_decision(case) if news else None
    # A decision of one's own since then redrew the panel already.
    if latest is None or latest.actor_id == request.user.pk:
        return "", cursor
    # Blind review: a first opinion given meanwhile is news, but not whose it was or its note.
    blind = case.hides_first_opinion_from(request.user)
    context = {"case": case, "latest": latest, "oob": True, "blind": blind}
    html = render_to_string("review/cases/case.html#verdict-badge", context, request)
    html += render_to_string("review/cases/live_news.html", context, request)
    return html, cursor
