"""The one cursor an open plan or case page's poll carries (`review.views.live`): a moment of
the decision log, looked back from a little, with the rows already drawn near it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from review.actions.cases import decide_case
from review.actions.entries import accept_entry
from review.models import Decision, Lease
from review.views.live import LOOK_BACK, Cursor
from tests.builders.cases_answers import make_case
from tests.builders.live import seen_on
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.reviews import double_review
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def moderator2(django_user_model):
    return user_in(django_user_model, "moderator2", "Moderators")


def page_text(response) -> str:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return body.decode()


def poll(client, queue: str, pk: int, seen: str, **more) -> str:
    url = f"/p/default/open/{queue}/{pk}/here/"
    return client.post(url, {"seen": seen, **more}, headers=HTMX).content.decode()


def test_a_case_someone_else_decided_after_the_cursor_comes_with_the_next_poll(
    client, moderator, moderator2
):
    case = make_case("c-1")
    seen = seen_on(client.get(f"/p/default/cases/{case.pk}/").content.decode())
    decide_case(case, "overturn", actor=moderator2, expected_version=1, note="Satire.")

    body = poll(client, "cases", case.pk, seen)

    assert "moderator2 decided this case" in body and "Verdict: Overturned" in body


def test_a_case_one_decided_oneself_after_the_cursor_brings_nothing(client, moderator):
    case = make_case("c-1")
    seen = seen_on(client.get(f"/p/default/cases/{case.pk}/").content.decode())
    client.post(f"/p/default/cases/{case.pk}/overturn/", {"version": 1, "note": "Satire."})

    body = poll(client, "cases", case.pk, seen)

    assert "verdict-badge" not in body and "live-news" not in body


def test_what_the_case_page_drew_already_is_no_news_to_its_first_poll(
    client, moderator, moderator2
):
    case = make_case("c-1")
    decide_case(case, "uphold", actor=moderator2, expected_version=1, note="")
    # Opened within the look-back of that verdict: the page shows it already.
    seen = seen_on(client.get(f"/p/default/cases/{case.pk}/").content.decode())

    assert "verdict-badge" not in poll(client, "cases", case.pk, seen)


def test_a_blind_reviewer_learns_a_first_opinion_came_but_not_whose(client, moderator, moderator2):
    double_review(Lease.Queue.CASES)
    case = make_case("c-1")
    seen = seen_on(client.get(f"/p/default/cases/{case.pk}/").content.decode())
    decide_case(case, "overturn", actor=moderator2, expected_version=1, note="Plover-42.")

    body = poll(client, "cases", case.pk, seen)

    assert "Someone gave the first opinion" in body
    assert "moderator2" not in body and "Plover-42" not in body


def test_a_decision_stamped_before_the_last_poll_but_committed_after_it_still_comes(
    client, moderator, moderator2
):
    case = make_case("c-1")
    decide_case(case, "uphold", actor=moderator2, expected_version=1, note="")
    stamped = Decision.objects.get(object_type="case").at
    # The last poll ran a moment after the decision's stamp, before its transaction committed.
    seen = str(Cursor(stamped + LOOK_BACK / 2))

    assert "moderator2 decided this case" in poll(client, "cases", case.pk, seen)


def test_a_decision_stamped_longer_ago_than_the_look_back_is_not_news(
    client, moderator, moderator2
):
    case = make_case("c-1")
    decide_case(case, "uphold", actor=moderator2, expected_version=1, note="")
    stamped = Decision.objects.get(object_type="case").at

    seen = str(Cursor(stamped + LOOK_BACK + timedelta(milliseconds=1)))

    assert "verdict-badge" not in poll(client, "cases", case.pk, seen)


def test_an_entry_drawn_by_one_poll_is_not_drawn_again_by_the_next(
    client, editor, django_user_model
):
    plan = make_plan(3)
    first = entries_of(plan)[0]
    seen = str(Cursor(timezone.now()))
    accept_entry(first, actor=user_in(django_user_model, "editor2", "Editors"), expected_version=1)

    body = poll(client, "plans", plan.pk, seen)
    again = poll(client, "plans", plan.pk, seen_on(body))

    assert f'id="entry-{first.pk}"' in body
    assert f'id="entry-{first.pk}"' not in again and 'id="plan-counters"' not in again


def test_a_plan_and_a_case_answer_the_same_kind_of_cursor(client, editor, moderator2):
    editor.groups.add(*moderator2.groups.all())
    plan, case = make_plan(2), make_case("c-1")
    pages = (f"/p/default/plans/{plan.pk}/", f"/p/default/cases/{case.pk}/")
    cursors = [seen_on(page_text(client.get(page))) for page in pages]
    cursors += [
        seen_on(poll(client, "plans", plan.pk, "")),
        seen_on(poll(client, "cases", case.pk, "")),
    ]

    assert all(Cursor.parse(cursor) is not None for cursor in cursors), cursors


@pytest.mark.parametrize(
    "seen",
    ["", "1", "yesterday", "2026-13-45T10:00:00+00:00", "2026-01-01T10:00:00", "9" * 5000],
)
def test_a_cursor_the_server_did_not_write_brings_nothing_and_a_cursor_from_now(
    client, moderator, moderator2, seen
):
    case = make_case("c-1")
    decide_case(case, "uphold", actor=moderator2, expected_version=1, note="")

    body = poll(client, "cases", case.pk, seen)

    assert "verdict-badge" not in body
    assert Cursor.parse(seen_on(body)) is not None


def test_a_cursor_reads_back_as_it_was_written() -> None:
    cursor = Cursor(Cursor.parse("2026-01-01T10:00:00+00:00").at, frozenset({3, 12}))

    assert Cursor.parse(str(cursor)) == cursor
    assert Cursor.parse(f"{cursor.at.isoformat()};3,{'9' * 5000}") is None
