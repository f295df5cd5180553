"""POST /cases/<id>/<action>/ and /cases/<id>/undo/: a moderator's verdict,
versioned and logged."""

from __future__ import annotations

import pytest

from review.actions.cases import decide_case
from review.models import Case, Decision
from tests.builders.cases_answers import make_case
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def case():
    return make_case()


def decisions_on(case: Case) -> list[Decision]:
    return list(Decision.objects.filter(object_type="case", object_id=str(case.pk)))


def test_upholding_over_htmx_answers_with_the_verdict_panel_and_logs_it(client, moderator, case):
    response = client.post(f"/p/default/cases/{case.pk}/uphold/", {"version": 1}, headers=HTMX)

    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and 'id="verdict"' in body
    assert "Upheld" in body
    case.refresh_from_db()
    assert (case.verdict, case.version, case.decided_by) == ("upheld", 2, moderator)
    [decision] = decisions_on(case)
    assert (decision.action, decision.actor_name) == ("case.uphold", "moderator")
    assert decision.before["verdict"] == "proposed" and decision.after["verdict"] == "upheld"


def test_a_plain_post_redirects_back_to_the_case(client, moderator, case):
    response = client.post(
        f"/p/default/cases/{case.pk}/needs-rewrite/", {"version": 1, "note": "Vague."}
    )

    assert response.status_code == 302
    assert response["Location"] == f"/p/default/cases/{case.pk}/"
    case.refresh_from_db()
    assert (case.verdict, case.note) == ("needs_rewrite", "Vague.")
    assert [d.action for d in decisions_on(case)] == ["case.needs_rewrite"]


@pytest.mark.parametrize("action", ["overturn", "needs-rewrite"])
def test_overturning_or_asking_for_a_rewrite_needs_a_note(client, moderator, case, action):
    response = client.post(
        f"/p/default/cases/{case.pk}/{action}/", {"version": 1, "note": "  "}, headers=HTMX
    )

    assert response.status_code == 422
    assert "needs a note" in response.content.decode()
    case.refresh_from_db()
    assert (case.verdict, case.version) == ("proposed", 1)
    assert decisions_on(case) == []


def test_overturning_with_a_note_keeps_the_note(client, moderator, case):
    client.post(
        f"/p/default/cases/{case.pk}/overturn/", {"version": 1, "note": "Satire."}, headers=HTMX
    )

    case.refresh_from_db()
    assert (case.verdict, case.note) == ("overturned", "Satire.")
    assert decisions_on(case)[0].note == "Satire."


def test_a_stale_version_is_refused_with_the_current_state_and_who_changed_it(
    client, moderator, case, django_user_model
):
    other = user_in(django_user_model, "other_moderator", "Moderators")
    decide_case(case, "overturn", actor=other, expected_version=1, note="Context matters.")

    response = client.post(f"/p/default/cases/{case.pk}/uphold/", {"version": 1}, headers=HTMX)

    body = response.content.decode()
    assert response.status_code == 409
    assert "other_moderator" in body and "Overturned" in body
    assert 'name="version" value="2"' in body
    case.refresh_from_db()
    assert (case.verdict, case.version) == ("overturned", 2)
    assert len(decisions_on(case)) == 1


def test_a_stale_plain_post_shows_the_whole_page_with_409(
    client, moderator, case, django_user_model
):
    other = user_in(django_user_model, "other_moderator", "Moderators")
    decide_case(case, "uphold", actor=other, expected_version=1, note="")

    response = client.post(f"/p/default/cases/{case.pk}/uphold/", {"version": 1})

    assert response.status_code == 409
    assert "<html" in response.content.decode()
    assert "other_moderator" in response.content.decode()


def test_undo_puts_back_what_the_latest_decision_replaced_and_is_logged(client, moderator, case):
    client.post(f"/p/default/cases/{case.pk}/uphold/", {"version": 1}, headers=HTMX)
    client.post(
        f"/p/default/cases/{case.pk}/overturn/", {"version": 2, "note": "Satire."}, headers=HTMX
    )

    response = client.post(f"/p/default/cases/{case.pk}/undo/", {"version": 3}, headers=HTMX)

    assert response.status_code == 200
    case.refresh_from_db()
    assert (case.verdict, case.note, case.version) == ("upheld", "", 4)
    overturn, undo = decisions_on(case)[1:]
    assert undo.action == "case.undo" and undo.undoes == overturn

    client.post(f"/p/default/cases/{case.pk}/undo/", {"version": 4}, headers=HTMX)
    case.refresh_from_db()
    assert (case.verdict, case.decided_by, case.decided_at) == ("proposed", None, None)


def test_undo_with_nothing_to_undo_is_refused(client, moderator, case):
    response = client.post(f"/p/default/cases/{case.pk}/undo/", {"version": 1}, headers=HTMX)

    assert response.status_code == 422
    assert "no decision to undo" in response.content.decode()


@pytest.mark.parametrize("action", ["uphold", "overturn", "needs-rewrite", "undo"])
def test_a_get_on_an_action_is_not_allowed(client, moderator, case, action):
    assert client.get(f"/p/default/cases/{case.pk}/{action}/").status_code == 405


@pytest.mark.parametrize("group", ["Readers", "Editors"])
def test_a_person_who_is_not_a_moderator_gets_403_and_nothing_changes(client, sign_in, case, group):
    sign_in("someone", group)

    response = client.post(f"/p/default/cases/{case.pk}/uphold/", {"version": 1})

    assert response.status_code == 403
    case.refresh_from_db()
    assert case.verdict == "proposed" and decisions_on(case) == []


def test_staff_may_decide_without_a_group(client, django_user_model, case):
    client.force_login(django_user_model.objects.create_user("boss", is_staff=True))

    assert client.post(f"/p/default/cases/{case.pk}/uphold/", {"version": 1}).status_code == 302


def test_an_unknown_case_or_action_is_not_found(client, moderator, case):
    assert client.post("/p/default/cases/999999/uphold/", {"version": 1}).status_code == 404
    assert client.post(f"/p/default/cases/{case.pk}/delete/", {"version": 1}).status_code == 404


def test_a_post_without_the_version_seen_is_refused(client, moderator, case):
    assert client.post(f"/p/default/cases/{case.pk}/uphold/", {}).status_code == 400
    assert decisions_on(case) == []


def test_a_missing_note_on_a_stale_version_answers_409_not_a_form_at_the_new_version(
    client, moderator, case
):
    # Someone else upholds the case after this moderator opened it at version 1.
    client.post(f"/p/default/cases/{case.pk}/uphold/", {"version": 1})
    response = client.post(f"/p/default/cases/{case.pk}/overturn/", {"version": 1}, headers=HTMX)

    assert response.status_code == 409
    assert [d.action for d in decisions_on(case)] == ["case.uphold"]
