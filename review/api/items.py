"""Cases and answers as their pages show them: a page of them, in the page's order and with
its filters, and one with its evidence or its references.

Blind review: the first and second opinions are not here at all, only `review_stage`. The
pages show a first opinion to its author alone until the second is in
(`SecondOpinions.hides_first_opinion_from`); a key reads what every reader may, and the
outcome (verdict or state, who decided, when) stays undecided until the review is settled.

The lists share their address with the imports (POST), and so their router: ninja answers
one address from one router's view, and a second router's GET there would never be reached.
"""

from __future__ import annotations

import datetime as dt

from django.http import HttpRequest
from ninja import Field, Query, Schema

from review.api.auth import ProjectSlug
from review.api.errors import answers, found
from review.api.imports import router
from review.api.paging import PageIn, after_in_order, page_of
from review.list_filters import (
    ANSWER_FILTERS,
    CASE_FILTERS,
    filtered_answers,
    filtered_cases,
    filters_of,
)
from review.models import Answer, Case, Evidence
from review.views.answers import NEWEST_FIRST, search_answers
from review.views.cases import QUEUE_KEYS, REASON_LABELS
from review.views.projects import in_current_project

# --- Cases -------------------------------------------------------------------------------


class DecidedOut(Schema):
    review_stage: str = Field(
        description="single, awaiting_second, in_curation, agreed or curated; the opinions "
        "themselves are not shown (blind review)"
    )
    decided_by: str | None
    decided_at: dt.datetime | None
    note: str
    version: int


class CaseSummaryOut(DecidedOut):
    id: int
    case_id: str
    verdict: str
    flagged: bool
    validator_reason: str
    recommended_action: str
    created_at: dt.datetime


class EvidenceOut(Schema):
    position: int
    ev_id: str
    tool: str
    status: str
    summary: str
    latency_ms: int | None
    data: dict


class CaseOut(CaseSummaryOut):
    content_text: str
    author: str
    community: str
    report_reason: str
    rationale_text: str
    model: str
    reason_label: str
    evidence: list[EvidenceOut]


class CasePage(Schema):
    items: list[CaseSummaryOut]
    next: str | None = Field(description="the following page's URL; null on the last page")


class CaseFilters(Schema):
    reason: str = Field("", description="a validator reason, or 'passed'")
    tool: str = Field("", description="a tool some evidence item of the case used")
    status: Evidence.Status | None = Field(None, description="with tool: of the same item")
    verdict: Case.Verdict | None = None


def _decided(item) -> dict:
    return {
        "review_stage": item.review_stage,
        "decided_by": item.decided_by.username if item.decided_by_id else None,
        "decided_at": item.decided_at,
        "note": item.note,
        "version": item.version,
    }


def case_summary(case: Case) -> dict:
    return {
        "id": case.pk,
        "case_id": case.case_id,
        "verdict": case.verdict,
        "flagged": case.flagged,
        "validator_reason": case.validator_reason,
        "recommended_action": case.recommended_action,
        "created_at": case.created_at,
        **_decided(case),
    }


def case_out(case: Case) -> dict:
    return {
        **case_summary(case),
        "content_text": case.content_text,
        "author": case.author,
        "community": case.community,
        "report_reason": case.report_reason,
        "rationale_text": case.rationale_text,
        "model": case.model,
        "reason_label": REASON_LABELS.get(case.validator_reason, case.validator_reason),
        "evidence": [
            {
                "position": item.position,
                "ev_id": item.ev_id,
                "tool": item.tool,
                "status": item.status,
                "summary": item.summary,
                "latency_ms": item.latency_ms,
                "data": item.data,
            }
            for item in case.evidence.order_by("position")
        ],
    }


def _cases(request: HttpRequest):
    return in_current_project(request, Case.objects.select_related("decided_by"))


@router.get(
    "/cases",
    response=answers({200: CasePage}, 422),
    summary="Cases in the queue's order (flagged first, then oldest), a page at a time, "
    "filtered as the cases page is",
)
def list_cases(
    request: HttpRequest, project: ProjectSlug, page: Query[PageIn], filters: Query[CaseFilters]
):
    chosen = filters_of({k: v or "" for k, v in filters.dict().items()}, CASE_FILTERS)
    cases = filtered_cases(_cases(request), chosen).defer("content_text", "rationale_text")
    cases = after_in_order(cases.defer("report"), QUEUE_KEYS, page, "case")
    shown = page_of(request, list(cases[: page.limit + 1]), page)
    return {"items": [case_summary(case) for case in shown["rows"]], "next": shown["next"]}


@router.get(
    "/cases/{case_id}",
    response=answers({200: CaseOut}, 404, 422),
    summary="A case with its evidence, as its page shows it",
)
def get_case(request: HttpRequest, project: ProjectSlug, case_id: int):
    return case_out(found(_cases(request), "case", case_id))


# --- Answers -----------------------------------------------------------------------------


class AnswerSummaryOut(DecidedOut):
    id: int
    answer_id: str
    question: str
    state: str
    changed: bool
    created_at: dt.datetime


class ReferenceOut(Schema):
    number: int
    original_number: int
    title: str
    authors: list
    year: int | None
    url: str
    venue: str
    doi: str
    snippet: str


class AnswerOut(AnswerSummaryOut):
    raw_text: str
    body: str
    model: str
    sources: list
    changes: dict = Field(description="what finalizing changed in the model's text")
    references: list[ReferenceOut]


class AnswerPage(Schema):
    items: list[AnswerSummaryOut]
    next: str | None = Field(description="the following page's URL; null on the last page")


class AnswerFilters(Schema):
    q: str = Field("", description="words of the question or the body")
    state: Answer.State | None = None
    changed: str = Field("", description="'yes': only answers finalizing changed; 'no': none")


def answer_summary(answer: Answer) -> dict:
    return {
        "id": answer.pk,
        "answer_id": answer.answer_id,
        "question": answer.question,
        "state": answer.state,
        "changed": answer.changed,
        "created_at": answer.created_at,
        **_decided(answer),
    }


def answer_out(answer: Answer) -> dict:
    references = answer.references.order_by("number")
    return {
        **answer_summary(answer),
        "raw_text": answer.raw_text,
        "body": answer.body,
        "model": answer.model,
        "sources": answer.sources,
        "changes": answer.changes,
        "references": [
            {
                "number": ref.number,
                "original_number": ref.original_number,
                "title": ref.title,
                "authors": ref.authors,
                "year": ref.year,
                "url": ref.url,
                "venue": ref.venue,
                "doi": ref.doi,
                "snippet": ref.snippet,
            }
            for ref in references
        ],
    }


def _answers(request: HttpRequest):
    return in_current_project(request, Answer.objects.select_related("decided_by"))


@router.get(
    "/answers",
    response=answers({200: AnswerPage}, 422),
    summary="Answers, newest first, a page at a time, filtered as the answers page is (a "
    "search lists newest first here, not best first)",
)
def list_answers(
    request: HttpRequest,
    project: ProjectSlug,
    page: Query[PageIn],
    filters: Query[AnswerFilters],
):
    chosen = filters_of({k: v or "" for k, v in filters.dict().items()}, ANSWER_FILTERS)
    listed = _answers(request).defer("raw_text", "body", "sources", "changes", "search")
    listed = search_answers(filtered_answers(listed, chosen), chosen["q"])
    listed = after_in_order(listed, NEWEST_FIRST, page, "answer")
    shown = page_of(request, list(listed[: page.limit + 1]), page)
    return {"items": [answer_summary(answer) for answer in shown["rows"]], "next": shown["next"]}


@router.get(
    "/answers/{answer_id}",
    response=answers({200: AnswerOut}, 404, 422),
    summary="An answer with its references and what finalizing changed, as its page shows it",
)
def get_answer(request: HttpRequest, project: ProjectSlug, answer_id: int):
    return answer_out(found(_answers(request), "answer", answer_id))
