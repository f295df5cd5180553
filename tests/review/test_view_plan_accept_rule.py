"""Accepting every remaining entry of one rule, after a page that lists them."""

from __future__ import annotations

import pytest

from review.actions import entries as entry_actions
from review.models import Decision, Entry
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.plans import update_entries
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db


def test_the_confirmation_lists_the_proposed_entries_of_the_rule(client, editor) -> None:
    plan = make_plan(3)
    entries = entries_of(plan)
    first = Entry.objects.select_related("plan").get(pk=entries[0].pk)
    entry_actions.reject_entry(first, actor=editor, expected_version=first.version)
    client.force_login(editor)
    body = client.get(
        f"/p/default/plans/{plan.pk}/accept-rule/", {"rule": "rule:heading"}
    ).content.decode()
    assert "Accept 3 entries" in body
    for entry in entries[1:]:
        assert f'value="{entry.pk}:{entry.version}"' in body
    assert f'value="{entries[0].pk}:' not in body


def test_confirming_accepts_each_listed_entry_with_its_own_decision(client, editor) -> None:
    plan = make_plan(3)
    entries = entries_of(plan)
    client.force_login(editor)
    listed = [f"{entry.pk}:{entry.version}" for entry in entries]
    response = client.post(
        f"/p/default/plans/{plan.pk}/accept-rule/",
        {"rule": "rule:heading", "entry": listed, "unvalidated": "1"},
    )
    assert response.status_code == 302
    assert {entry.state for entry in entries_of(plan)} == {"accepted"}
    assert Decision.objects.filter(action="entry.accept").count() == len(entries)


def test_an_entry_changed_since_the_list_was_shown_refuses_them_all(
    client, editor, django_user_model
) -> None:
    plan = make_plan(2)
    entries = entries_of(plan)
    listed = [f"{entry.pk}:{entry.version}" for entry in entries]
    other = user_in(django_user_model, "otto", "Editors")
    last = Entry.objects.select_related("plan").get(pk=entries[-1].pk)
    entry_actions.accept_entry(last, actor=other, expected_version=last.version)
    entry_actions.undo_entry(last, actor=other, expected_version=last.version)
    client.force_login(editor)
    response = client.post(
        f"/p/default/plans/{plan.pk}/accept-rule/",
        {"rule": "rule:heading", "entry": listed, "unvalidated": "1"},
    )
    assert response.status_code == 409
    assert "otto" in response.content.decode()
    assert not Decision.objects.filter(actor=editor).exists()


def test_a_listed_entry_someone_else_decided_meanwhile_is_left_and_the_message_says_so(
    client, editor, django_user_model
) -> None:
    plan = make_plan(2)
    entries = entries_of(plan)
    listed = [f"{entry.pk}:{entry.version}" for entry in entries]
    last = Entry.objects.select_related("plan").get(pk=entries[-1].pk)
    entry_actions.reject_entry(
        last, actor=user_in(django_user_model, "otto", "Editors"), expected_version=1
    )
    client.force_login(editor)
    response = client.post(
        f"/p/default/plans/{plan.pk}/accept-rule/",
        {"rule": "rule:heading", "entry": listed, "unvalidated": "1"},
        follow=True,
    )
    assert [str(message) for message in response.context["messages"]] == [
        "Accepted 2 entries of rule:heading. Left as someone else decided them meanwhile:"
        " 1 entry on the list (the plan's history says who)."
    ]
    assert Entry.objects.get(pk=last.pk).state == "rejected"


def test_a_reader_may_not_accept_by_rule(client, django_user_model) -> None:
    plan = make_plan(2)
    client.force_login(user_in(django_user_model, "rita", "Readers"))
    assert (
        client.get(f"/p/default/plans/{plan.pk}/accept-rule/?rule=rule:heading").status_code == 403
    )
    response = client.post(f"/p/default/plans/{plan.pk}/accept-rule/", {"rule": "rule:heading"})
    assert response.status_code == 403


# --- the rule's record on the confirmation ------------------------------------------------------


def test_the_confirmation_shows_the_rules_record_and_asks_again_when_it_is_not_validated(
    client, editor
) -> None:
    plan = make_plan(3)
    body = client.get(
        f"/p/default/plans/{plan.pk}/accept-rule/", {"rule": "rule:heading"}
    ).content.decode()
    record = body[body.index('id="rule-record"') :]
    assert "Not validated" in record and "none of its" in record
    assert 'name="unvalidated" value="1" required' in body


def test_an_unvalidated_rule_accepts_nothing_without_the_second_confirmation(
    client, editor
) -> None:
    plan = make_plan(3)
    listed = [f"{entry.pk}:{entry.version}" for entry in entries_of(plan)]

    response = client.post(
        f"/p/default/plans/{plan.pk}/accept-rule/", {"rule": "rule:heading", "entry": listed}
    )

    assert response.status_code == 422
    assert "rule:heading is not validated" in response.content.decode()
    assert not Decision.objects.exists()
    assert {entry.state for entry in entries_of(plan)} == {"proposed"}


def test_a_validated_rule_is_accepted_without_the_second_confirmation(
    client, editor, settings
) -> None:
    settings.INSIGHTS_MIN_DOCUMENTS = 2
    settings.INSIGHTS_MIN_LOWER_BOUND = 0.5
    # The rule's record: every entry accepted on two other documents.
    for title in ("First guide", "Second guide"):
        decided = make_plan(6, name=f"{title}.md", title=title)
        update_entries(Entry.objects.filter(plan=decided), state=Entry.State.ACCEPTED)
    plan = make_plan(3)
    listed = [f"{entry.pk}:{entry.version}" for entry in entries_of(plan)]

    body = client.get(
        f"/p/default/plans/{plan.pk}/accept-rule/", {"rule": "rule:heading"}
    ).content.decode()
    assert "✓ validated" in body and 'name="unvalidated"' not in body
    response = client.post(
        f"/p/default/plans/{plan.pk}/accept-rule/", {"rule": "rule:heading", "entry": listed}
    )
    assert response.status_code == 302
    assert {entry.state for entry in entries_of(plan)} == {"accepted"}
