"""/p/default/answers/: search over questions and bodies, filters by state and by whether
finalization changed anything, paginated."""

from __future__ import annotations

import html
import re

import pytest
from django.db import connection

from grounding.citations import finalize
from review.models import Answer
from review.views import answers as answer_views
from review.views.answers import search_answers
from tests.builders.cases_answers import make_answer, make_source

pytestmark = pytest.mark.django_db


def answer_ids_in(response) -> list[str]:
    return sorted(answer.answer_id for answer in response.context["page"].object_list)


def test_the_list_shows_every_answer_with_its_state(client, reader):
    make_answer("a-1", question="How wide must an escape route be?")
    make_answer("a-2", state=Answer.State.PUBLISHED)

    response = client.get("/p/default/answers/")

    body = response.content.decode()
    assert answer_ids_in(response) == ["a-1", "a-2"]
    assert "How wide must an escape route be?" in body
    assert "published" in body and "2 references" in body


def test_search_finds_words_in_the_question_or_the_body(client, reader):
    make_answer("a-stairs", question="How steep may stairs be?", text="Stairs rise 18 cm [1].")
    make_answer("a-doors", question="Which doors?", text="Fire doors close by themselves [1].")
    make_answer("a-other", question="What about roofs?", text="Roofs carry snow [1].")

    assert answer_ids_in(client.get("/p/default/answers/?q=stairs")) == ["a-stairs"]
    assert answer_ids_in(client.get("/p/default/answers/?q=fire+doors")) == ["a-doors"]
    assert answer_ids_in(client.get("/p/default/answers/?q=balcony")) == []


def test_a_quoted_search_still_finds_the_words(client, reader):
    make_answer("a-doors", question="Which doors?", text="Fire doors close by themselves [1].")

    assert answer_ids_in(client.get('/p/default/answers/?q="fire+doors"')) == ["a-doors"]


def test_the_list_filters_by_state(client, reader):
    make_answer("a-1")
    make_answer("a-2", state=Answer.State.WITHDRAWN)

    assert answer_ids_in(client.get("/p/default/answers/?state=withdrawn")) == ["a-2"]


def test_the_list_filters_by_whether_finalization_changed_anything(client, reader):
    clean = finalize("Walls resist fire [1]. Doors close [2].", [make_source(1), make_source(2)])
    make_answer("a-clean", text=clean.text)
    make_answer("a-phantom", text="Walls resist fire [1]. Doors close [9].")

    assert answer_ids_in(client.get("/p/default/answers/?changed=yes")) == ["a-phantom"]
    assert answer_ids_in(client.get("/p/default/answers/?changed=no")) == ["a-clean"]


def test_an_htmx_search_answers_with_the_results_alone(client, reader):
    make_answer("a-1", question="How steep may stairs be?")

    response = client.get("/p/default/answers/?q=stairs", headers={"HX-Request": "true"})

    body = response.content.decode()
    assert "<html" not in body
    assert 'id="results"' in body and "How steep may stairs be?" in body


def test_the_list_is_paginated_and_keeps_the_filters_in_the_page_links(client, reader):
    for number in range(30):
        make_answer(f"a-{number:02}", question=f"Stairs question {number}")

    first = client.get("/p/default/answers/?q=stairs")
    following = re.search(r'href="(\?[^"]*)" rel="next"', first.content.decode()).group(1)
    second = client.get(f"/p/default/answers/{html.unescape(following)}")

    assert len(first.context["page"].object_list) == 25
    assert len(second.context["page"].object_list) == 5
    assert following.startswith("?q=stairs&amp;after=")


def test_markup_in_a_question_is_shown_as_text(client, reader):
    make_answer("a-1", question="<script>alert(1)</script>?")

    body = client.get("/p/default/answers/").content.decode()

    assert "<script>alert(1)" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;?" in body


def test_the_list_takes_the_same_number_of_queries_for_many_answers(
    client, reader, django_assert_max_num_queries, django_assert_num_queries
):
    urls = (
        "/p/default/answers/?q=compartments",
        "/p/default/answers/?page=last",
        "/p/default/answers/?state=proposed",
    )
    make_answer("a-first")
    few = {}
    for url in urls:
        # The project its address names, the top bar's switcher and the person's roles all
        # come from one query of their memberships; a search on PostgreSQL counts its
        # matches in one more; one asks whether the person has a second factor.
        with django_assert_max_num_queries(7) as counted:
            client.get(url)
        few[url] = len(counted.captured_queries)
    for number in range(60):
        make_answer(f"a-{number:02}")

    for url in urls:
        with django_assert_num_queries(few[url]):
            client.get(url)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="full-text search is PostgreSQL's")
def test_on_postgresql_the_search_uses_the_full_text_index():
    make_answer("a-1", question="How steep may stairs be?")
    found = search_answers(Answer.objects.all(), "stairs")
    with connection.cursor() as cursor:
        # On a table this small a scan would win; forbid it to see whether the index fits.
        cursor.execute("SET LOCAL enable_seqscan = off")

        plan = found.explain()

    assert "answer_search" in plan


@pytest.mark.skipif(connection.vendor != "postgresql", reason="ranking is PostgreSQL's")
def test_on_postgresql_a_search_lists_the_best_match_first(client, reader):
    make_answer("a-best", question="Stairs: how steep may stairs be?", text="Stairs rise [1].")
    make_answer("a-newer", question="What about landings?", text="Stairs need landings [1].")

    response = client.get("/p/default/answers/?q=stairs")

    assert [a.answer_id for a in response.context["page"].object_list] == ["a-best", "a-newer"]
    assert "best first" in response.content.decode()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="ranking is PostgreSQL's")
def test_a_search_found_in_too_many_answers_to_rank_lists_the_newest_first(
    client, reader, monkeypatch
):
    monkeypatch.setattr(answer_views, "RANKED_AT_MOST", 1)
    make_answer("a-best", question="Stairs: how steep may stairs be?", text="Stairs rise [1].")
    make_answer("a-newer", question="What about landings?", text="Stairs need landings [1].")

    response = client.get("/p/default/answers/?q=stairs")

    assert [a.answer_id for a in response.context["page"].object_list] == ["a-newer", "a-best"]
    assert "more than 1, newest first" in response.content.decode()
