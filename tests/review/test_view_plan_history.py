"""A plan's history: every decision on the plan and its entries, with who, when, before and
after."""

from __future__ import annotations

import pytest

from review.actions import entries as entry_actions
from review.models import Entry
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db


def test_the_history_lists_each_decision_with_who_what_and_before_and_after(
    client, django_user_model
) -> None:
    editor = user_in(django_user_model, "editor", "Editors")
    plan = make_plan(2)
    other_plan = make_plan(1, name="other.md", title="Other")
    entry = Entry.objects.select_related("plan").get(pk=entries_of(plan)[1].pk)
    entry_actions.accept_entry(entry, actor=editor, expected_version=entry.version)
    entry_actions.undo_entry(entry, actor=editor, expected_version=entry.version)
    elsewhere = Entry.objects.select_related("plan").get(pk=entries_of(other_plan)[0].pk)
    entry_actions.reject_entry(elsewhere, actor=editor, expected_version=elsewhere.version)

    client.force_login(user_in(django_user_model, "rita", "Readers"))
    body = client.get(f"/p/default/plans/{plan.pk}/history/").content.decode()
    assert body.count("<code>entry.") == 2
    assert "entry.accept" in body and "entry.undo" in body
    assert "entry.reject" not in body
    assert "editor" in body
    assert f"#2 {entry.path}" in body
    assert "<del>proposed</del> → <ins>accepted</ins>" in body
    assert "<del>accepted</del> → <ins>proposed</ins>" in body


def test_a_plan_nobody_decided_says_so(client, django_user_model) -> None:
    plan = make_plan(1)
    client.force_login(user_in(django_user_model, "rita", "Readers"))
    body = client.get(f"/p/default/plans/{plan.pk}/history/").content.decode()
    assert "Nobody has decided anything" in body


def test_the_history_and_the_dashboard_say_what_was_done_in_the_product_s_words(
    client, django_user_model
) -> None:
    editor = user_in(django_user_model, "editor", "Editors")
    plan = make_plan(3)
    fourth = Entry.objects.select_related("plan").get(pk=entries_of(plan)[3].pk)
    entry_actions.accept_entry(fourth, actor=editor, expected_version=fourth.version)
    entry_actions.undo_entry(fourth, actor=editor, expected_version=fourth.version)
    entry_actions.merge_entry(fourth, actor=editor, expected_version=fourth.version)
    client.force_login(editor)
    history = client.get(f"/p/default/plans/{plan.pk}/history/").content.decode()
    assert "undid the accept of entry #4" in history
    assert "merged entry #4 into #3" in history
    dashboard = client.get("/").content.decode()
    assert f"undid the accept of entry #4 ({fourth.path}) of plan {plan.pk}" in dashboard
