"""The readers' screens: finalized answers, searchable, with their references.

Everyone may read; Editors (and staff) may publish, withdraw and undo.
"""

from __future__ import annotations

import re

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.db.models import F, FloatField, Q, QuerySet
from django.db.models.functions import Cast
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from review.actions import leases
from review.actions.answers import STATE_ACTIONS, available_actions, decide_answer, undo_answer
from review.actions.leases import with_holders
from review.decisions import decisions_on
from review.list_filters import ANSWER_FILTERS, filtered_answers, filters_of
from review.markdown import render_markdown
from review.models import SEARCH_CONFIG, Answer, AnswerReference, Lease
from review.permissions import can_decide_answers, can_lead
from review.views import HtmxHttpRequest
from review.views.answer_changes import added_citations, finalization_changes
from review.views.deciding import PanelPage
from review.views.leasing import presence_strip, undo_offer
from review.views.lists import Key, count_on_page, list_template, order_keys, shown_page
from review.views.presenters import DecisionPanel, PanelAction
from review.views.projects import current_project, in_current_project, project_url
from review.views.second_opinions import opinions_context

ANSWERS_PER_PAGE = 25
# What the list shows of an answer: not its raw text, body, sources, changes or vector.
LISTED_FIELDS = ("answer_id", "question", "state", "changed", "created_at")
NEWEST_FIRST = order_keys(Answer, Answer._meta.ordering)
BEST_FIRST = [Key("rank", descending=True, parse=float), *NEWEST_FIRST]
# Ranking means reading every hit; a search found in more answers than this lists them newest
# first instead (a word in so many answers says little about which is best).
RANKED_AT_MOST = 2000


def search_answers(answers: QuerySet[Answer], terms: str) -> QuerySet[Answer]:
    """Answers whose question or body match `terms`, annotated with their `rank` on
    PostgreSQL (`search_order` says in which order to list them).

    PostgreSQL gets its full-text search (stemmed, ranked) over the stored `search` vector
    and its GIN index; SQLite, which has no such thing built in, gets every word (quotes and
    signs ignored) as a case-insensitive substring.
    """
    terms = terms.strip()
    if not terms:
        return answers
    if connection.vendor == "postgresql":
        query = SearchQuery(terms, search_type="websearch", config=SEARCH_CONFIG)
        # Ranked from the stored vector: no to_tsvector per hit. As double precision, so the
        # rank a page's cursor carries compares equal to the rank it was read from.
        rank = Cast(SearchRank(F("search"), query), FloatField())
        return answers.filter(search=query).annotate(rank=rank)
    for word in re.findall(r"\w+", terms):
        answers = answers.filter(Q(question__icontains=word) | Q(body__icontains=word))
    return answers


def search_order(found: QuerySet[Answer], terms: str) -> list[Key]:
    """The order to list what `search_answers` found in: best first when it ranked them and
    they are few enough to rank (one query reading at most RANKED_AT_MOST + 1 ids), else the
    newest first."""
    if not terms.strip() or connection.vendor != "postgresql":
        return NEWEST_FIRST
    hits = found.order_by().values("pk")[: RANKED_AT_MOST + 1].count()
    return BEST_FIRST if hits <= RANKED_AT_MOST else NEWEST_FIRST


# --- The list ----------------------------------------------------------------------


@require_GET
def answer_list(request: HtmxHttpRequest) -> HttpResponse:
    filters = filters_of(request.GET, ANSWER_FILTERS)
    project = current_project(request)
    answers = in_current_project(request, Answer.objects.only(*LISTED_FIELDS))
    found = search_answers(filtered_answers(answers, filters), filters["q"])
    order = search_order(found, filters["q"])
    best = order is BEST_FIRST
    found = with_holders(found, Lease.Queue.ANSWERS)
    page = shown_page(request, found, order, ANSWERS_PER_PAGE)
    count_on_page(page, AnswerReference.objects, "answer", "reference_count")
    context = {
        "page": page,
        "filters": filters,
        "best_first": best,
        "too_common": bool(filters["q"]) and connection.vendor == "postgresql" and not best,
        "ranked_at_most": RANKED_AT_MOST,
        "states": Answer.State.choices,
        "can_decide": can_decide_answers(request.user, project),
        # Curators take disagreements from the same Next as reviewers take their items.
        "may_take_next": leases.QUEUES[Lease.Queue.ANSWERS].may_take(request.user, project),
        "can_lead": can_lead(request.user, project),
        "next_url": project_url(request, "answers-next"),
    }
    return render(request, list_template(request, "review/answers/list.html", "results"), context)


# --- One answer --------------------------------------------------------------------


def get_answer_for_user(
    request: HttpRequest, pk: int, *, decide: bool = False, undo: bool = False
) -> Answer:
    """The answer `pk` as `request.user` may read it (404 otherwise), or decide it with
    `decide`, or take a step of it back with `undo` (403 otherwise: `Answer.decidable_by`)."""
    answer = get_object_or_404(
        Answer.objects.select_related("decided_by", "first_by", "second_by"),
        pk=pk,
        project=current_project(request),  # found only in the project its address names
    )
    if not answer.visible_to(request.user):
        raise Http404("No such answer.")
    if (decide or undo) and not answer.decidable_by(request.user, undoing=undo):
        raise PermissionDenied("Only editors may publish or withdraw answers.")
    return answer


@require_GET
@never_cache  # Back must not show an item as it was before a decision on it
def answer_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    answer = get_answer_for_user(request, pk)
    context = (
        _answer_context(request, answer)
        | presence_strip(request, Lease.Queue.ANSWERS, answer.pk)
        | undo_offer(request, Lease.Queue.ANSWERS)
    )
    return render(request, "review/answers/answer.html", context)


def _answer_context(request: HttpRequest, answer: Answer, **extra) -> dict:
    references = list(AnswerReference.objects.filter(answer=answer).order_by("number"))
    for reference in references:
        reference.link = _web_link(reference.url)
    return {
        "answer": answer,
        "body_html": render_markdown(
            answer.body, {ref.number for ref in references}, added_citations(answer)
        ),
        "references": references,
        "changes": finalization_changes(answer) if answer.changes else None,
        **_decision_context(request, answer),
        **extra,
    }


def _web_link(url: str) -> str:
    """The URL if it is a web address; a `javascript:` URL from a model is not a link."""
    url = (url or "").strip()
    return url if url.lower().startswith(("https://", "http://")) else ""


def _decision_context(request: HttpRequest, answer: Answer) -> dict:
    history = list(decisions_on(answer))
    panel = DecisionPanel(
        id="decision",
        css_class="decision-panel",
        heading="Publication",
        thing="answer",
        obj=answer,
        state=answer.state,
        state_label=answer.get_state_display(),
        actions=tuple(
            PanelAction(
                action.name,
                action.label,
                project_url(request, "answer-decide", answer.pk, action.slug),
            )
            for action in available_actions(answer)
        ),
        form_url=project_url(request, "answer", answer.pk),
        undo_url=project_url(request, "answer-undo", answer.pk),
        note_hint="optional",
        note_rows=2,
        advice="Publish or withdraw again if you still want to.",
        badge="review/answers/answer.html#state-badge",
    )
    may_decide = can_decide_answers(request.user, answer.project_id)
    return {
        "panel": panel,
        **opinions_context(request, answer, history, may_decide=may_decide, undo="answer.undo"),
    }


# --- Deciding ----------------------------------------------------------------------

PAGE = PanelPage(
    name="answer",
    queue=Lease.Queue.ANSWERS,
    template="review/answers/answer.html",
    partial="decision",
    get_for_user=get_answer_for_user,
    page_context=_answer_context,
    panel_context=_decision_context,
)


@require_POST
def answer_decide(request: HtmxHttpRequest, pk: int, action: str) -> HttpResponse:
    if action not in STATE_ACTIONS:
        raise Http404("No such action.")
    note = request.POST.get("note", "")
    return PAGE.decide(
        request,
        pk,
        lambda answer, version: decide_answer(
            answer, action, actor=request.user, expected_version=version, note=note
        ),
    )


@require_POST
def answer_undo(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return PAGE.undo(
        request,
        pk,
        lambda answer, version: undo_answer(answer, actor=request.user, expected_version=version),
    )
