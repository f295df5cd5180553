"""The case and answer lists' pages (review.views.lists): found from where the page before
ended, so every row is shown once, in order, whichever way a reader walks."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from review.models import Answer, Case
from review.views import answers as answer_views
from review.views import cases as case_views
from tests.builders.cases_answers import make_answer, make_case

pytestmark = pytest.mark.django_db

FLAGGING = "The post is clearly hostile and threatening to others."


def link(response, rel: str) -> str | None:
    found = re.search(rf'href="(\?[^"]*)" rel="{rel}"', response.content.decode())
    return html.unescape(found.group(1)) if found else None


def walk(client, start: str, rel: str) -> list[list[str]]:
    """The external ids of each page met following `rel` from `start`."""
    path = start.split("?")[0]
    pages, url = [], start
    while url is not None:
        response = client.get(url)
        assert response.status_code == 200
        pages.append([item.external_id for item in response.context["page"].object_list])
        following = link(response, rel)
        url = f"{path}{following}" if following else None
    return pages


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(case_views, "CASES_PER_PAGE", 4)
    monkeypatch.setattr(answer_views, "ANSWERS_PER_PAGE", 3)


@pytest.fixture
def cases_with_ties():
    """Eleven cases, flagged and not, several received at the same moment."""
    for number in range(11):
        make_case(f"c-{number:02}", **({"rationale": FLAGGING} if number % 2 == 0 else {}))
    moment = timezone.now() - timedelta(days=1)
    Case.objects.filter(case_id__in=["c-01", "c-02", "c-03", "c-04"]).update(created_at=moment)
    return [case.case_id for case in Case.objects.order_by(*Case.QUEUE_ORDER)]


def test_next_shows_every_case_once_in_the_queues_order_even_when_times_tie(
    client, reader, small_pages, cases_with_ties
):
    pages = walk(client, "/p/default/cases/", "next")

    assert [len(page) for page in pages] == [4, 4, 3]
    assert sum(pages, []) == cases_with_ties


def test_previous_from_the_last_page_shows_the_same_pages_back_to_the_first(
    client, reader, small_pages, cases_with_ties
):
    last = client.get("/p/default/cases/?page=last")
    backwards = walk(client, "/p/default/cases/?page=last", "prev")

    assert link(last, "next") is None and link(last, "last") is None
    assert backwards[0] == cases_with_ties[-4:]
    assert sum(reversed(backwards), []) == cases_with_ties
    # The first page has no way back.
    assert link(client.get("/p/default/cases/"), "first") is None


def test_the_pages_keep_the_filters(client, reader, small_pages, cases_with_ties):
    flagged = [case_id for case_id in cases_with_ties if Case.objects.get(case_id=case_id).flagged]

    pages = walk(client, "/p/default/cases/?reason=no_citations", "next")

    assert sum(pages, []) == flagged
    assert link(client.get("/p/default/cases/?reason=no_citations"), "next").startswith(
        "?reason=no_citations&after="
    )


def test_a_page_that_is_not_one_of_the_lists_is_refused(client, reader):
    make_case("c-1")

    for query in ("after=nonsense", "before=WzEsMl0", "after=WyJ4IiwgIjIwMjYiLCAzXQ"):
        response = client.get(f"/p/default/cases/?{query}")
        assert response.status_code == 400, query


def test_the_answers_pages_go_newest_first_and_keep_the_search(client, reader, small_pages):
    for number in range(8):
        make_answer(f"a-{number}", question=f"Stairs question {number}")
    make_answer("a-other", question="What about roofs?", text="Roofs carry snow [1].")
    Answer.objects.filter(answer_id__in=["a-2", "a-3", "a-4"]).update(created_at=timezone.now())

    newest_first = walk(client, "/p/default/answers/", "next")
    found = walk(client, "/p/default/answers/?q=stairs", "next")
    backwards = walk(client, "/p/default/answers/?q=stairs&page=last", "prev")

    expected = [answer.answer_id for answer in Answer.objects.order_by("-created_at", "-pk")]
    assert sum(newest_first, []) == expected
    assert sorted(sum(found, [])) == [f"a-{number}" for number in range(8)]
    assert sum(reversed(backwards), []) == sum(found, [])
