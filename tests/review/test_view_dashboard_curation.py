"""The curator's dashboard: what waits for curation in each queue (the items whose two reviews
differ, none the curator reviewed), each with its queue's Next."""

from __future__ import annotations

import re

import pytest

from review.actions.answers import decide_answer
from review.actions.cases import decide_case
from review.actions.plan_reviews import open_review_copy
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import make_plan
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.users import member, user_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(django_user_model):
    return {
        name: user_in(django_user_model, name, group)
        for name, group in (
            ("mod1", "Moderators"),
            ("mod2", "Moderators"),
            ("ed1", "Editors"),
            ("ed2", "Editors"),
        )
    }


def two_opinions(item, decide, first, second, *, by):
    decide(item, first, actor=by[0], expected_version=item.version, note="Why.")
    item.refresh_from_db()
    decide(item, second, actor=by[1], expected_version=item.version, note="Why.")


def count_of(body: str, name: str) -> int:
    found = re.search(
        r'<span class="queue-count">(\d+)</span>\s*<span class="queue-name">' + name, body
    )
    assert found, f"no queue {name!r} on the dashboard"
    return int(found.group(1))


def curation_section(body: str) -> str:
    return body.split('id="curation-heading"')[1].split("</section>")[0]


@pytest.fixture
def waiting(people):
    """Two cases, one answer and one plan whose two reviews differ; one case agreed."""
    double_review("cases")
    double_review("answers")
    double_review("plans")
    mods = (people["mod1"], people["mod2"])
    for case_id in ("c-1", "c-2"):
        two_opinions(make_case(case_id), decide_case, "uphold", "overturn", by=mods)
    two_opinions(make_case("c-3"), decide_case, "uphold", "uphold", by=mods)
    two_opinions(
        make_answer("a-1"),
        decide_answer,
        "publish",
        "withdraw",
        by=(people["ed1"], people["ed2"]),
    )
    plan = make_plan(2)
    hand_in_review(open_review_copy(plan, actor=people["ed1"]), people["ed1"])
    hand_in_review(open_review_copy(plan, actor=people["ed2"]), people["ed2"], reject={1})
    return plan


def test_the_curators_dashboard_counts_what_waits_for_curation(client, waiting, curator):
    body = client.get("/").content.decode()

    section = curation_section(body)
    assert count_of(section, "Cases to curate") == 2
    assert count_of(section, "Answers to curate") == 1
    assert count_of(section, "Plans to curate") == 1


def test_each_queue_to_curate_has_its_next(client, waiting, curator):
    section = curation_section(client.get("/").content.decode())

    for queue in ("plans", "cases", "answers"):
        assert f'action="/p/default/{queue}/next/"' in section


def test_the_curators_next_from_the_dashboard_hands_an_item_to_curate(client, waiting, curator):
    response = client.post("/p/default/plans/next/")

    assert response.status_code == 302
    assert response["Location"] == f"/p/default/plans/{waiting.pk}/curation/"


def test_a_curator_is_not_counted_what_they_reviewed_themselves(client, people, django_user_model):
    double_review("cases")
    both = user_in(django_user_model, "both", "Moderators")
    member(both, None, "curator")
    two_opinions(make_case("c-1"), decide_case, "uphold", "overturn", by=(both, people["mod2"]))
    two_opinions(make_case("c-2"), decide_case, "uphold", "overturn", by=(people["mod1"], both))
    two_opinions(
        make_case("c-3"), decide_case, "uphold", "overturn", by=(people["mod1"], people["mod2"])
    )
    client.force_login(both)

    section = curation_section(client.get("/").content.decode())

    assert count_of(section, "Cases to curate") == 1


def test_nobody_but_a_curator_sees_the_curation_queues(client, waiting, moderator):
    body = client.get("/").content.decode()

    assert 'id="curation-heading"' not in body
    assert "to curate" not in body
