"""Taking back one "accept all of a rule" in one step: one undo per entry, all or none."""

from __future__ import annotations

import pytest

from review.actions import entries as entry_actions
from review.models import Decision, Entry
from tests.builders.pages import html_of
from tests.builders.plan_views import entries_of, make_plan

pytestmark = pytest.mark.django_db


def accept_all(client, plan) -> None:
    listed = [f"{entry.pk}:{entry.version}" for entry in entries_of(plan)]
    client.post(
        f"/p/default/plans/{plan.pk}/accept-rule/",
        {"rule": "rule:heading", "entry": listed, "unvalidated": "1"},
    )


def offered_batch(client, plan) -> str:
    body = html_of(client.get(f"/p/default/plans/{plan.pk}/"))
    assert "Undo the accept of 3 entries of rule:heading" in body
    return client.session["rule_batch"]["batch"]


def test_the_plan_page_offers_to_undo_the_accept_all_and_it_undoes_every_entry(client, editor):
    plan = make_plan(2)
    accept_all(client, plan)
    batch = offered_batch(client, plan)
    response = client.post(
        f"/p/default/plans/{plan.pk}/accept-rule/undo/", {"batch": batch}, follow=True
    )
    assert "Undid the accept of 3 entries." in html_of(response)
    assert {entry.state for entry in entries_of(plan)} == {"proposed"}
    undos = Decision.objects.filter(action="entry.undo")
    assert undos.count() == 3
    assert {row.undoes.action for row in undos} == {"entry.accept"}
    assert "Undo the accept of" not in html_of(client.get(f"/p/default/plans/{plan.pk}/"))


def test_an_entry_decided_again_since_refuses_the_whole_undo(client, editor) -> None:
    plan = make_plan(2)
    accept_all(client, plan)
    batch = offered_batch(client, plan)
    last = Entry.objects.select_related("plan").get(pk=entries_of(plan)[-1].pk)
    entry_actions.reject_entry(last, actor=editor, expected_version=last.version)
    response = client.post(
        f"/p/default/plans/{plan.pk}/accept-rule/undo/", {"batch": batch}, follow=True
    )
    assert "Entry #3" in html_of(response) and "nothing was undone" in html_of(response)
    assert not Decision.objects.filter(action="entry.undo").exists()
    assert [entry.state for entry in entries_of(plan)] == ["accepted", "accepted", "rejected"]


def test_undoing_an_unknown_batch_changes_nothing(client, editor) -> None:
    plan = make_plan(2)
    accept_all(client, plan)
    response = client.post(
        f"/p/default/plans/{plan.pk}/accept-rule/undo/", {"batch": "0" * 10}, follow=True
    )
    assert "Nothing of that accept-all is left to undo." in html_of(response)
    assert (
        client.post(f"/p/default/plans/{plan.pk}/accept-rule/undo/", {"batch": "x"}).status_code
        == 302
    )
    assert not Decision.objects.filter(action="entry.undo").exists()


def test_a_reader_may_not_undo_an_accept_all(client, editor, reader) -> None:
    plan = make_plan(2)
    response = client.post(f"/p/default/plans/{plan.pk}/accept-rule/undo/", {"batch": "0" * 10})
    assert response.status_code == 403
    assert client.get(f"/p/default/plans/{plan.pk}/accept-rule/undo/").status_code in (403, 405)
