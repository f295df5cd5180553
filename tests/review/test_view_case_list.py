"""/p/default/cases/: the queue, its filters and its counts per validator reason."""

from __future__ import annotations

import html
import re

import pytest

from review.models import Case
from tests.builders.cases_answers import RULE_MATCH, make_case

pytestmark = pytest.mark.django_db

UNCITED = "The post matched rule 2 [ev-1]. The author has done this many times before."
TIMEOUT = ("user_history", "timeout", "History lookup timed out", 5000, None)


def link(response, rel: str) -> str | None:
    """The query string of the pager's link `rel` ("next", "prev", "first", "last")."""
    found = re.search(rf'href="(\?[^"]*)" rel="{rel}"', response.content.decode())
    return html.unescape(found.group(1)) if found else None


def case_ids_in(response) -> list[str]:
    return [case.case_id for case in response.context["page"].object_list]


def test_flagged_cases_come_first_and_then_the_rest_by_age(client, reader):
    make_case("c-old-passed")
    make_case("c-flagged", rationale="The post is clearly hostile and threatening to others.")
    make_case("c-new-passed")

    response = client.get("/p/default/cases/")

    assert response.status_code == 200
    assert case_ids_in(response) == ["c-flagged", "c-old-passed", "c-new-passed"]


def test_the_queue_filters_by_validator_reason(client, reader):
    make_case("c-ok")
    make_case("c-uncited", rationale=UNCITED)
    make_case("c-invented", rationale="The post matched a rule [ev-7].")

    assert case_ids_in(client.get("/p/default/cases/?reason=uncited_claims")) == ["c-uncited"]
    assert case_ids_in(client.get("/p/default/cases/?reason=passed")) == ["c-ok"]


def test_tool_and_status_together_mean_one_evidence_item_with_both(client, reader):
    make_case("c-timeout", evidence=(RULE_MATCH, TIMEOUT))
    make_case("c-history-ok", evidence=(RULE_MATCH, ("user_history", "success", "3 prior", 9, {})))

    response = client.get("/p/default/cases/?tool=user_history&status=timeout")

    assert case_ids_in(response) == ["c-timeout"]
    assert case_ids_in(client.get("/p/default/cases/?status=success&tool=user_history")) == [
        "c-history-ok"
    ]


def test_the_queue_filters_by_verdict(client, reader):
    make_case("c-open")
    Case.objects.filter(pk=make_case("c-upheld").pk).update(verdict=Case.Verdict.UPHELD)

    assert case_ids_in(client.get("/p/default/cases/?verdict=upheld")) == ["c-upheld"]


def test_the_queue_counts_cases_per_validator_reason(client, reader):
    make_case("c-1")
    make_case("c-2", rationale=UNCITED)
    make_case("c-3", rationale="The post is clearly hostile and threatening to others.")

    response = client.get("/p/default/cases/")

    counts = {row["value"]: row["count"] for row in response.context["reason_counts"]}
    assert counts == {"passed": 1, "no_citations": 1, "uncited_claims": 1}
    assert "claims without a citation" in response.content.decode()


def test_an_htmx_filter_answers_with_the_queue_alone(client, reader):
    make_case("c-1")

    response = client.get("/p/default/cases/?verdict=proposed", headers={"HX-Request": "true"})

    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body
    assert 'id="queue"' in body and "c-1" in body


def test_an_htmx_filter_by_reason_marks_that_reason_current_in_the_counts_too(client, reader):
    case = make_case("c-1", rationale=UNCITED)

    response = client.get(
        f"/p/default/cases/?reason={case.validator_reason}", headers={"HX-Request": "true"}
    )

    body = response.content.decode()
    assert 'id="reason-counts" aria-label="Cases by validator reason" hx-swap-oob="true"' in body
    assert f'href="?reason={case.validator_reason}" aria-current="true"' in body
    assert 'href="/p/default/cases/" aria-current="true"' not in body


def test_the_queue_is_paginated(client, reader):
    for number in range(55):
        make_case(f"c-{number:02}")

    first = client.get("/p/default/cases/")
    second = client.get(f"/p/default/cases/{link(first, 'next')}")

    assert len(case_ids_in(first)) == 50
    assert case_ids_in(second) == [f"c-{number}" for number in range(50, 55)]
    assert link(second, "next") is None and link(first, "prev") is None


def test_the_queue_says_how_many_cases_its_counters_know_of(client, reader):
    make_case("c-1")
    make_case("c-2", rationale=UNCITED)

    assert "2 cases" in client.get("/p/default/cases/").content.decode()
    assert "1 case<" in client.get("/p/default/cases/?reason=uncited_claims").content.decode()
    # Under another filter nothing counts the rows.
    assert client.get("/p/default/cases/?verdict=proposed").context["total"] is None


def test_the_tool_filter_offers_every_tool_of_the_evidence(client, reader):
    make_case("c-1", evidence=(RULE_MATCH, TIMEOUT))

    response = client.get("/p/default/cases/")

    assert response.context["tools"] == ["policy_match", "user_history"]


def test_a_person_who_is_not_logged_in_is_sent_to_log_in(client):
    response = client.get("/p/default/cases/")

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_the_queue_takes_the_same_number_of_queries_for_many_cases(
    client, reader, django_assert_num_queries
):
    for number in range(3):
        make_case(f"c-few-{number}", evidence=(RULE_MATCH, TIMEOUT))
    # The facet counters are the project's own, one query; the address's project and the top
    # bar's come with the person's memberships; one asks whether they have a second factor.
    with django_assert_num_queries(7) as few:
        client.get("/p/default/cases/")
    for number in range(120):
        make_case(f"c-many-{number}", evidence=(RULE_MATCH, TIMEOUT))

    # The first page, a filter, a page further on and the last: the same queries each.
    for url in (
        "/p/default/cases/",
        "/p/default/cases/?tool=user_history&status=timeout",
        "/p/default/cases/?page=last",
    ):
        with django_assert_num_queries(len(few.captured_queries)):
            response = client.get(url)
        with django_assert_num_queries(len(few.captured_queries)):
            client.get(f"/p/default/cases/{link(response, 'next') or link(response, 'prev')}")
