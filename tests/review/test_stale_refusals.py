"""A refusal about an object's state is only a mistake (422) about the state the person saw.
Made on a version someone else has since changed, the same request is a conflict (409) that
names the other decision; and a plain form's refusal is the page with the reason, not a
redirect with a flash."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from review.actions.answers import decide_answer
from review.actions.entries import accept_entry
from review.actions.plan_reviews import adjudicate_plan
from review.models import Decision, Entry
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.pages import html_of
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.urls import url_of
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def other_editor(django_user_model) -> User:
    return user_in(django_user_model, "ola", "Editors")


def decide_url(entry: Entry, action: str) -> str:
    return url_of("entry-decide", entry.plan_id, entry.pk, action)


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_accepting_what_someone_else_accepted_meanwhile_is_a_conflict_naming_them(
    client, editor, other_editor, htmx: bool
) -> None:
    entry = entries_of(make_plan(2))[0]
    seen = entry.version
    accept_entry(entry, actor=other_editor, expected_version=seen)

    response = client.post(
        decide_url(entry, "accept"), {"version": seen}, headers=HTMX if htmx else {}
    )

    assert response.status_code == 409
    assert "ola" in html_of(response)
    assert Decision.objects.count() == 1


def test_accepting_an_accepted_entry_at_the_version_seen_is_refused_with_the_reason(
    client, editor
) -> None:
    entry = entries_of(make_plan(2))[0]
    accept_entry(entry, actor=editor, expected_version=entry.version)

    response = client.post(decide_url(entry, "accept"), {"version": entry.version}, headers=HTMX)

    assert response.status_code == 422
    assert "already accepted" in html_of(response)
    assert Decision.objects.count() == 1


def test_a_plain_form_refusal_is_the_plans_page_with_the_reason_at_that_entry(
    client, editor
) -> None:
    first, second = entries_of(make_plan(2))[:2]

    response = client.post(decide_url(first, "merge"), {"version": first.version})

    body = html_of(response)
    assert response.status_code == 422
    assert "<html" in body
    assert "no entry before it to merge into" in body
    assert response.context["current_id"] == first.pk
    assert not Decision.objects.exists()


def test_publishing_what_someone_else_published_meanwhile_is_a_conflict(
    client, editor, other_editor
) -> None:
    answer = make_answer()
    decide_answer(answer, "publish", actor=other_editor, expected_version=1)

    response = client.post(url_of("answer-decide", answer.pk, "publish"), {"version": 1})

    assert response.status_code == 409
    assert Decision.objects.count() == 1


def test_undoing_a_verdict_never_seen_is_a_conflict(client, moderator, django_user_model) -> None:
    case = make_case()
    other = user_in(django_user_model, "mona", "Moderators")
    client.force_login(other)
    client.post(url_of("case-decide", case.pk, "uphold"), {"version": 1})
    client.post(url_of("case-undo", case.pk), {"version": 2})
    client.force_login(moderator)

    response = client.post(url_of("case-undo", case.pk), {"version": 1})

    assert response.status_code == 409
    assert Decision.objects.count() == 2


def test_adjudicating_a_plan_someone_adjudicated_meanwhile_is_a_conflict(
    client, editor, other_editor
) -> None:
    plan = make_plan(1)
    for entry in entries_of(plan):
        accept_entry(entry, actor=editor, expected_version=entry.version)
    seen = plan.version
    adjudicate_plan(plan, actor=other_editor, expected_version=seen)

    response = client.post(url_of("plan-adjudicate", plan.pk), {"version": seen})

    assert response.status_code == 409
    assert "ola" in html_of(response)
