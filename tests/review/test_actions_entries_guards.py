"""Defects found in review, each pinned by the test that showed it."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection

from review.actions import entries as entry_actions
from review.actions import plans as plan_actions
from review.actions.plan_reviews import adjudicate_plan
from review.decisions import ActionRefused
from review.models import Decision, Entry
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.races import reject_when, wait_until_it_waits_on_us
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

State = Entry.State


def fresh(entry: Entry) -> Entry:
    return Entry.objects.select_related("plan__document").get(pk=entry.pk)


# --- an undo never puts an entry into a state its action would refuse ------------------------


def test_undo_does_not_reject_an_entry_that_another_is_merged_into(editor) -> None:
    first, second = entries_of(make_plan(3))[:2]
    entry_actions.reject_entry(fresh(first), actor=editor, expected_version=fresh(first).version)
    entry_actions.accept_entry(fresh(first), actor=editor, expected_version=fresh(first).version)
    entry_actions.merge_entry(fresh(second), actor=editor, expected_version=fresh(second).version)
    count = Decision.objects.count()
    with pytest.raises(ActionRefused, match="is merged into it"):
        entry_actions.undo_entry(fresh(first), actor=editor, expected_version=fresh(first).version)
    assert fresh(first).state == State.ACCEPTED
    assert Decision.objects.count() == count


def test_undo_does_not_merge_an_entry_into_a_rejected_one(editor) -> None:
    first, second = entries_of(make_plan(3))[:2]
    entry_actions.merge_entry(fresh(second), actor=editor, expected_version=fresh(second).version)
    entry_actions.accept_entry(fresh(second), actor=editor, expected_version=fresh(second).version)
    entry_actions.reject_entry(fresh(first), actor=editor, expected_version=fresh(first).version)
    with pytest.raises(ActionRefused, match="is rejected"):
        entry_actions.undo_entry(
            fresh(second), actor=editor, expected_version=fresh(second).version
        )
    assert fresh(second).state == State.ACCEPTED


def _edit(entry, editor, **values):
    entry = fresh(entry)
    fields = {"title": entry.title, "path": entry.path, "start": entry.span_start}
    fields |= {"end": entry.span_end, "keep_boundaries": True} | values
    request = entry_actions.EditRequest(**fields)
    return entry_actions.edit_entry(entry, request, actor=editor, expected_version=entry.version)


def test_undo_does_not_put_back_a_span_the_next_entry_now_covers(editor) -> None:
    entries = entries_of(make_plan(3))
    first, second = entries[1], entries[2]
    end, start = first.span_end, second.span_start
    _edit(first, editor, end=end - 20)
    _edit(second, editor, start=start - 20)
    with pytest.raises(ActionRefused, match="next entry"):
        entry_actions.undo_entry(fresh(first), actor=editor, expected_version=fresh(first).version)
    assert fresh(first).span_end == end - 20


def test_undo_does_not_put_back_a_path_another_entry_now_has(editor) -> None:
    entries = entries_of(make_plan(3))
    first, second = entries[1], entries[2]
    old_path = first.path
    _edit(first, editor, path="handbook/renamed")
    _edit(second, editor, path=old_path)
    with pytest.raises(ActionRefused, match="already has"):
        entry_actions.undo_entry(fresh(first), actor=editor, expected_version=fresh(first).version)
    assert fresh(first).path == "handbook/renamed"


def test_an_entry_loaded_before_the_plan_was_adjudicated_cannot_change_it(editor) -> None:
    plan = make_plan(2)
    for entry in entries_of(plan):
        entry_actions.accept_entry(
            fresh(entry), actor=editor, expected_version=fresh(entry).version
        )
    loaded = fresh(entries_of(plan)[1])  # the page was drawn while the plan was open
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)
    count = Decision.objects.count()
    with pytest.raises(ActionRefused, match="frozen"):
        entry_actions.reject_entry(loaded, actor=editor, expected_version=loaded.version)
    assert fresh(loaded).state == State.ACCEPTED
    assert Decision.objects.count() == count


@pytest.mark.parametrize("field", ["title", "path"])
def test_an_edit_longer_than_its_column_is_refused_naming_the_field(editor, field) -> None:
    entry = entries_of(make_plan(2))[1]
    long = {"title": "T" * 501, "path": "handbook/" + "a" * 492}[field]
    with pytest.raises(entry_actions.EditRefused) as refused:
        _edit(entry, editor, **{field: long})
    assert "500" in " ".join(refused.value.errors[field])
    assert getattr(fresh(entry), field) == getattr(entry, field)


@pytest.mark.django_db(transaction=True)
def test_an_entry_decided_while_the_plan_is_being_adjudicated_waits_and_is_refused(
    monkeypatch,
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite cannot overlap the two transactions on row locks")
    editor = user_in(User, "edith", "Editors")
    plan = make_plan(2)
    for entry in entries_of(plan):
        entry_actions.accept_entry(
            fresh(entry), actor=editor, expected_version=fresh(entry).version
        )
    loaded = fresh(entries_of(plan)[1])
    locked = threading.Event()
    payload = plan_actions.adjudicated_payload
    racing: list[threading.Thread] = []

    def payload_once_the_reject_waits(*args):
        locked.set()  # the entries are locked; the plan is not frozen yet
        wait_until_it_waits_on_us(racing[0])
        return payload(*args)

    monkeypatch.setattr(plan_actions, "adjudicated_payload", payload_once_the_reject_waits)
    thread, outcome = reject_when(locked, loaded, editor)
    racing.append(thread)
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)
    thread.join(timeout=60)
    assert isinstance(outcome[0], ActionRefused), outcome
    assert fresh(loaded).state == State.ACCEPTED


def test_a_note_with_a_nul_character_is_refused_with_400_naming_the_field(client, editor) -> None:
    entry = entries_of(make_plan(2))[1]
    client.force_login(editor)
    url = f"/p/default/plans/{entry.plan_id}/entries/{entry.pk}/accept/"
    response = client.post(url, {"version": entry.version, "note": "a\x00b"})
    assert response.status_code == 400
    assert "note" in response.content.decode()
    assert not Decision.objects.exists()


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/p/default/cases/?reason=a%00b", "reason"),
        ("/p/default/answers/?q=a%00b", "q"),
        ("/p/default/cases/?tool=%00", "tool"),
    ],
)
def test_a_list_filter_with_a_nul_character_is_refused_with_400_naming_it(
    client, editor, url: str, field: str
) -> None:
    client.force_login(editor)
    response = client.get(url)
    assert response.status_code == 400
    assert repr(field) in response.content.decode()
