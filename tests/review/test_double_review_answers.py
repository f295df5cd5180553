"""Double review of answers: publishing or withdrawing under a double-review policy."""

from __future__ import annotations

import pytest

from review.models import Answer
from tests.builders.cases_answers import make_answer
from tests.builders.reviews import double_review
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def answer():
    double_review("answers")
    return make_answer("a-9")


def post(client, user, answer, action, note=""):
    client.force_login(user)
    answer.refresh_from_db()
    return client.post(
        f"/p/default/answers/{answer.pk}/{action}/", {"version": answer.version, "note": note}
    )


@pytest.fixture
def editor2(django_user_model):
    return user_in(django_user_model, "editor2", "Editors")


def test_an_answer_published_once_under_double_review_is_not_published(client, editor, answer):
    post(client, editor, answer, "publish")

    answer.refresh_from_db()
    assert (answer.state, answer.first_opinion) == ("proposed", "published")
    assert not Answer.objects.filter(state="published").exists()


def test_two_editors_who_agree_publish_it(client, editor, editor2, answer):
    post(client, editor, answer, "publish")
    post(client, editor2, answer, "publish")

    answer.refresh_from_db()
    assert (answer.state, answer.decided_by) == ("published", editor2)


def test_a_curator_settles_a_publish_against_a_withdraw(client, editor, editor2, curator, answer):
    post(client, editor, answer, "publish")
    post(client, editor2, answer, "withdraw", "Source 2 is a preprint.")

    response = post(client, curator, answer, "withdraw", "Agree with the preprint concern.")

    assert response.status_code == 302
    answer.refresh_from_db()
    assert (answer.state, answer.decided_by, answer.review_stage) == (
        "withdrawn",
        curator,
        "curated",
    )


def test_a_curator_may_not_decide_an_answer_outside_curation(client, curator, answer):
    response = post(client, curator, answer, "publish")

    assert response.status_code == 403


def test_the_blind_editors_page_never_includes_the_first_decision(client, editor, editor2, answer):
    post(client, editor, answer, "withdraw", "Only the first editor wrote this.")

    client.force_login(editor2)
    body = client.get(f"/p/default/answers/{answer.pk}/").content.decode()

    assert "Only the first editor wrote this." not in body
    assert "answer.first_opinion" not in body and "by editor," not in body
    assert "decide without seeing the first" in body


def test_an_editor_is_told_before_publishing_that_theirs_is_the_first_of_two_opinions(
    client, editor, answer
):
    body = client.get(f"/p/default/answers/{answer.pk}/").content.decode()

    assert "yours is the first opinion" in body
    assert "A second reviewer also decides this answer, blind" in body


def test_an_editor_is_told_a_withdrawal_would_be_checked_by_a_second_reviewer(client, editor):
    double_review("answers", share_percent=0, on_overturn=True)
    plain = make_answer("a-10")

    body = client.get(f"/p/default/answers/{plain.pk}/").content.decode()

    assert "Single review, unless your verdict is withdrawn" in body


def test_the_curator_sees_the_two_editors_notes_side_by_side_marked_where_they_differ(
    client, editor, editor2, curator, answer
):
    post(client, editor, answer, "publish", "Sources check out.")
    post(client, editor2, answer, "withdraw", "Sources are preprints.")
    client.force_login(curator)

    body = client.get(f"/p/default/answers/{answer.pk}/").content.decode()

    panel = body.split('class="opinions-side-by-side"')[1]
    assert '<mark class="differs">check out</mark>' in panel
    assert '<mark class="differs">are preprints</mark>' in panel
