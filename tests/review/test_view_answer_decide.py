"""POST /answers/<id>/publish/, /withdraw/ and /undo/: an editor's decision,
versioned and logged."""

from __future__ import annotations

import pytest

from review.actions.answers import decide_answer
from review.models import Answer, Decision
from tests.builders.cases_answers import make_answer
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def answer():
    return make_answer()


def actions_on(answer: Answer) -> list[str]:
    decisions = Decision.objects.filter(object_type="answer", object_id=str(answer.pk))
    return [decision.action for decision in decisions]


def test_publishing_over_htmx_answers_with_the_decision_panel_and_logs_it(client, editor, answer):
    response = client.post(
        f"/p/default/answers/{answer.pk}/publish/", {"version": 1, "note": "Checked."}, headers=HTMX
    )

    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and 'id="decision"' in body
    assert "Published" in body and ">Withdraw</button>" in body and ">Publish</button>" not in body
    answer.refresh_from_db()
    assert (answer.state, answer.version, answer.note) == ("published", 2, "Checked.")
    assert actions_on(answer) == ["answer.publish"]


def test_a_plain_post_redirects_back_to_the_answer(client, editor, answer):
    response = client.post(f"/p/default/answers/{answer.pk}/withdraw/", {"version": 1})

    assert response.status_code == 302
    assert response["Location"] == f"/p/default/answers/{answer.pk}/"
    answer.refresh_from_db()
    assert answer.state == "withdrawn"
    assert actions_on(answer) == ["answer.withdraw"]


def test_publishing_a_published_answer_is_refused(client, editor, answer):
    client.post(f"/p/default/answers/{answer.pk}/publish/", {"version": 1})

    response = client.post(
        f"/p/default/answers/{answer.pk}/publish/",
        {"version": 2, "note": "Rechecked."},
        headers=HTMX,
    )

    body = response.content.decode()
    assert response.status_code == 422
    assert '<div class="alert" role="alert" id="decision-error">' in body
    assert "already published" in body
    # The note the editor wrote comes back in the field, tied to the reason it was refused.
    assert 'aria-describedby="decision-error" autofocus>Rechecked.</textarea>' in body
    assert actions_on(answer) == ["answer.publish"]


def test_undo_puts_the_answer_back_as_it_was(client, editor, answer):
    client.post(f"/p/default/answers/{answer.pk}/publish/", {"version": 1})

    response = client.post(f"/p/default/answers/{answer.pk}/undo/", {"version": 2}, headers=HTMX)

    assert response.status_code == 200
    answer.refresh_from_db()
    assert (answer.state, answer.decided_by, answer.version) == ("proposed", None, 3)
    assert actions_on(answer) == ["answer.publish", "answer.undo"]


def test_a_stale_version_is_refused_with_the_current_state_and_who_changed_it(
    client, editor, answer, django_user_model
):
    other = user_in(django_user_model, "other_editor", "Editors")
    decide_answer(answer, "withdraw", actor=other, expected_version=1)

    response = client.post(f"/p/default/answers/{answer.pk}/publish/", {"version": 1}, headers=HTMX)

    body = response.content.decode()
    assert response.status_code == 409
    assert "other_editor" in body and "Withdrawn" in body
    answer.refresh_from_db()
    assert answer.state == "withdrawn"
    assert actions_on(answer) == ["answer.withdraw"]


@pytest.mark.parametrize("action", ["publish", "withdraw", "undo"])
def test_a_get_on_an_action_is_not_allowed(client, editor, answer, action):
    assert client.get(f"/p/default/answers/{answer.pk}/{action}/").status_code == 405


@pytest.mark.parametrize("group", ["Readers", "Moderators"])
def test_a_person_who_is_not_an_editor_gets_403_and_nothing_changes(client, sign_in, answer, group):
    sign_in("someone", group)

    response = client.post(f"/p/default/answers/{answer.pk}/publish/", {"version": 1})

    assert response.status_code == 403
    answer.refresh_from_db()
    assert answer.state == "proposed" and actions_on(answer) == []


def test_an_unknown_answer_or_action_is_not_found(client, editor, answer):
    assert client.post("/p/default/answers/999999/publish/", {"version": 1}).status_code == 404
    assert client.post(f"/p/default/answers/{answer.pk}/delete/", {"version": 1}).status_code == 404
