"""The moderators' screens: the queue of cases and one case side by side.

Everyone may read; only Moderators (and staff) may decide. A verdict is one POST,
answered with the verdict panel for htmx and a redirect otherwise.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from django.core.exceptions import PermissionDenied
from django.db.models import Count, Exists, OuterRef
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_POST

from grounding.evidence import VALIDATION_REASONS, RationaleReport, SentenceStatus
from review.actions.cases import VERDICT_ACTIONS, decide_case, undo_case
from review.adapters.cases import report_for
from review.decisions import can_undo, decisions_on
from review.models import Case, Evidence
from review.permissions import can_decide_cases
from review.views import HtmxHttpRequest
from review.views.deciding import panel_outcome, respond_to_decision
from review.views.lists import count_on_page, list_template, query_without_page, shown_page
from review.views.presenters import DecisionPanel, PanelAction

CASES_PER_PAGE = 50

# What a validator reason means, for people.
REASON_LABELS = {
    "": "passed",
    "empty_rationale": "empty rationale",
    "no_citations": "no citations",
    "hallucinated_evidence_ids": "cites evidence that does not exist",
    "cited_non_success_evidence": "cites evidence that did not succeed",
    "uncited_claims": "claims without a citation",
    "cited_field_mismatch": "declared ids differ from the ids in the text",
}
PASSED = "passed"  # the filter value for cases whose rationale passed

# A mark beside each status; the status is always written out too.
STATUS_MARKS = {
    Evidence.Status.SUCCESS: "✓",
    Evidence.Status.FAILURE: "✗",
    Evidence.Status.TIMEOUT: "◷",
    Evidence.Status.SKIPPED: "–",
}
SENTENCE_MARKS = {
    SentenceStatus.SUPPORTED: "✓",
    SentenceStatus.UNKNOWN_ID: "?",
    SentenceStatus.NON_SUCCESS: "!",
    SentenceStatus.UNCITED_CLAIM: "✗",
    SentenceStatus.NOT_A_CLAIM: "·",
}
_EV_REFERENCE = re.compile(r"\[(ev-\d+)\]")
# Evidence ids are "ev-" and digits (the pattern above), so they need no escaping.
CITE_LINK = '<a class="cite" href="#{id}" data-ev="{id}">[{id}]</a>'
CITE_UNKNOWN = '<span class="cite cite-unknown" title="No evidence has this id">[{id}]</span>'


# --- The queue ------------------------------------------------------------------


@require_GET
def case_list(request: HtmxHttpRequest) -> HttpResponse:
    filters = _queue_filters(request)
    page = shown_page(request, _filtered_cases(filters), CASES_PER_PAGE)
    count_on_page(page, Evidence.objects, "case", "evidence_count")
    for case in page.object_list:
        case.reason_label = REASON_LABELS.get(case.validator_reason, case.validator_reason)
    context = {
        "page": page,
        "filters": filters,
        "query": query_without_page(request),
        "reason_counts": _reason_counts(),
        "tools": Evidence.objects.order_by("tool").values_list("tool", flat=True).distinct(),
        "evidence_statuses": Evidence.Status.choices,
        "verdicts": Case.Verdict.choices,
    }
    return render(request, list_template(request, "review/cases/list.html", "queue"), context)


def _queue_filters(request: HttpRequest) -> dict[str, str]:
    return {
        name: request.GET.get(name, "").strip() for name in ("reason", "tool", "status", "verdict")
    }


def _filtered_cases(filters: dict[str, str]):
    cases = Case.objects.all()
    reason = filters["reason"]
    if reason == PASSED:
        cases = cases.filter(validator_reason="")
    elif reason:
        cases = cases.filter(validator_reason=reason)
    if filters["verdict"]:
        cases = cases.filter(verdict=filters["verdict"])
    if filters["tool"] or filters["status"]:
        # Tool and status together mean one evidence item with both.
        matching = Evidence.objects.filter(case=OuterRef("pk"))
        if filters["tool"]:
            matching = matching.filter(tool=filters["tool"])
        if filters["status"]:
            matching = matching.filter(status=filters["status"])
        cases = cases.filter(Exists(matching))
    # Flagged first, then the oldest: the queue is worked from the top.
    return cases.order_by("-flagged", "created_at", "pk")


def _reason_counts() -> list[dict]:
    counts = dict(Case.objects.values_list("validator_reason").annotate(n=Count("pk")).order_by())
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


@dataclass
class SentenceView:
    number: int
    text: str
    status: SentenceStatus
    mark: str
    html: SafeString  # the text, escaped, with its citations linked
    cited_ids: tuple[str, ...]
    offending_ids: tuple[str, ...]
    kind_label: str


@dataclass
class EvidenceView:
    item: Evidence
    mark: str
    cited_in: list[int] = field(default_factory=list)  # sentence numbers
    raw: str = ""

    @property
    def ignored(self) -> bool:
        return not self.cited_in


def _get_case_for_user(request: HttpRequest, pk: int) -> Case:
    # Every signed-in person may read a case; deciding is checked separately.
    return get_object_or_404(Case.objects.select_related("decided_by"), pk=pk)


def _get_case_for_decision(request: HttpRequest, pk: int) -> Case:
    if not can_decide_cases(request.user):
        raise PermissionDenied("Only moderators may decide cases.")
    return _get_case_for_user(request, pk)


@require_GET
def case_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    case = _get_case_for_user(request, pk)
    return render(request, "review/cases/case.html", _case_context(request, case))


def _case_context(request: HttpRequest, case: Case, **extra) -> dict:
    report = report_for(case)
    evidence = [
        EvidenceView(item, STATUS_MARKS.get(item.status, "?"), raw=_pretty(item.data))
        for item in case.evidence.all()
    ]
    by_id = {row.item.ev_id: row for row in evidence}
    sentences = []
    for number, sentence in enumerate(report.sentences, start=1):
        for ev_id in sentence.cited_ids:
            if ev_id in by_id:
                by_id[ev_id].cited_in.append(number)
        sentences.append(_sentence_view(number, sentence, by_id))
    return {
        "case": case,
        "report": report,
        "reason_label": REASON_LABELS.get(report.validation.reason, report.validation.reason),
        "sentences": sentences,
        "evidence": evidence,
        "id_comparison": _id_comparison(report),
        "details": _validation_details(report.validation.details),
        **_verdict_context(request, case),
        **extra,
    }


def _sentence_view(number: int, sentence, by_id: dict) -> SentenceView:
    return SentenceView(
        number=number,
        text=sentence.text,
        status=sentence.status,
        mark=SENTENCE_MARKS[sentence.status],
        html=_linked_citations(sentence.text, by_id),
        cited_ids=sentence.cited_ids,
        offending_ids=sentence.offending_ids,
        kind_label=sentence.kind.label,
    )


def _linked_citations(text: str, by_id: dict) -> SafeString:
    """The sentence, escaped, with each [ev-N] a link to its evidence row (or, for an
    id no evidence has, marked as unknown). Built here rather than in the template:
    a 200-sentence rationale would otherwise be thousands of template nodes."""
    pieces = []
    cursor = 0
    for match in _EV_REFERENCE.finditer(text):
        pieces.append(escape(text[cursor : match.start()]))
        ev_id = match.group(1)
        if ev_id in by_id:
            pieces.append(CITE_LINK.format(id=ev_id))
        else:
            pieces.append(CITE_UNKNOWN.format(id=escape(ev_id)))
        cursor = match.end()
    pieces.append(escape(text[cursor:]))
    return mark_safe("".join(pieces))  # noqa: S308 - every piece of text is escaped


def _id_comparison(report: RationaleReport) -> list[dict] | None:
    """Each id the model declared or the text cites, and where it appears."""
    if report.declared_ids is None:
        return None
    declared, cited = set(report.declared_ids), set(report.cited_ids)
    ids = list(dict.fromkeys([*report.cited_ids, *report.declared_ids]))
    return [{"id": ev_id, "declared": ev_id in declared, "cited": ev_id in cited} for ev_id in ids]


DETAIL_LABELS = {
    "ids": "Ids",
    "statuses": "Statuses",
    "sentences": "Sentences",
    "missing": "Cited but not declared",
    "extra": "Declared but not cited",
}


def _validation_details(details: dict) -> list[tuple[str, list[str]]]:
    """The validator's details as label and values, whatever their JSON shape."""
    out = []
    for key, value in details.items():
        if isinstance(value, dict):
            values = [f"{name}: {item}" for name, item in value.items()]
        elif isinstance(value, list | tuple):
            values = [str(item) for item in value]
        else:
            values = [str(value)]
        out.append((DETAIL_LABELS.get(key, key), values))
    return out


def _pretty(data) -> str:
    if data in (None, {}, []):
        return ""
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True)


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
                reverse("case-decide", args=[case.pk, action.slug]),
                action.note_required,
            )
            for action in VERDICT_ACTIONS.values()
        ),
        form_url=reverse("case-decide", args=[case.pk, "uphold"]),
        undo_url=reverse("case-undo", args=[case.pk]),
        note_hint="required to overturn or ask for a rewrite",
        note_rows=3,
        advice="Decide again if you still want to.",
        keys=True,
    )
    return {
        "can_decide": can_decide_cases(request.user),
        "panel": panel,
        "can_undo": can_undo(history, "case.undo"),
        "history": history,
    }


# --- Deciding ----------------------------------------------------------------------


@require_POST
def case_decide(request: HtmxHttpRequest, pk: int, action: str) -> HttpResponse:
    name = action.replace("-", "_")
    if name not in VERDICT_ACTIONS:
        raise Http404("No such action.")
    case = _get_case_for_decision(request, pk)
    note = request.POST.get("note", "")
    return respond_to_decision(
        request,
        lambda version: decide_case(
            case, name, actor=request.user, expected_version=version, note=note
        ),
        redraw=lambda **outcome: _verdict_response(request, case, **outcome),
        done_url=lambda: reverse("case", args=[case.pk]),
    )


@require_POST
def case_undo(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    case = _get_case_for_decision(request, pk)
    return respond_to_decision(
        request,
        lambda version: undo_case(case, actor=request.user, expected_version=version),
        redraw=lambda **outcome: _verdict_response(request, case, **outcome),
        done_url=lambda: reverse("case", args=[case.pk]),
    )


def _verdict_response(
    request: HtmxHttpRequest, case: Case, *, status: int, stale=None, refused=None, decision=None
) -> HttpResponse:
    case = _get_case_for_user(request, case.pk)  # fresh, with who decided
    extra = panel_outcome(request, stale=stale, refused=refused)
    if request.htmx:
        context = {"case": case, **_verdict_context(request, case), **extra}
        return render(request, "review/cases/case.html#verdict", context, status=status)
    context = _case_context(request, case, **extra)
    return render(request, "review/cases/case.html", context, status=status)
