"""Optimistic versions: a decision applies only to the version the person saw."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection, connections

from review.decisions import StaleVersion, decide
from review.models import Decision, Entry
from tests.builders.plans import stored_entry

pytestmark = pytest.mark.django_db


def make_entry() -> Entry:
    text = "## 1 Scope\n\nWhat this covers.\n"
    return stored_entry(text, name="scope.md", digest="d" * 64, path="scope", title="1 Scope")


def accept(entry: Entry, user: User, expected_version: int, note: str = "") -> Decision:
    return decide(
        entry,
        expected_version=expected_version,
        actor=user,
        action="entry.accept",
        changes={"state": Entry.State.ACCEPTED, "decided_by": user, "note": note},
        note=note,
    )


def test_a_decision_on_the_version_seen_applies_and_is_logged_with_before_and_after() -> None:
    editor = User.objects.create_user("editor")
    entry = make_entry()

    row = accept(entry, editor, expected_version=1, note="heading is right")

    assert (entry.state, entry.version, entry.decided_by, entry.note) == (
        "accepted",
        2,
        editor,
        "heading is right",
    )
    assert Entry.objects.get(pk=entry.pk).version == 2
    assert list(Decision.objects.all()) == [row]
    assert (row.actor, row.actor_name, row.action, row.object_type, row.object_id) == (
        editor,
        "editor",
        "entry.accept",
        "entry",
        str(entry.pk),
    )
    assert row.before == {"state": "proposed", "decided_by": None, "note": ""}
    assert row.after == {"state": "accepted", "decided_by": "editor", "note": "heading is right"}


def test_a_decision_on_a_version_someone_else_moved_is_refused_and_changes_nothing() -> None:
    first, second = User.objects.create_user("first"), User.objects.create_user("second")
    entry = make_entry()
    seen_by_second = Entry.objects.get(pk=entry.pk)
    accept(entry, first, expected_version=1)

    with pytest.raises(StaleVersion) as refused:
        decide(
            seen_by_second,
            expected_version=seen_by_second.version,
            actor=second,
            action="entry.reject",
            changes={"state": Entry.State.REJECTED, "decided_by": second},
        )

    assert refused.value.current.version == 2
    assert refused.value.latest.actor_name == "first"
    assert "first" in str(refused.value)
    current = Entry.objects.get(pk=entry.pk)
    assert (current.state, current.decided_by, current.version) == ("accepted", first, 2)
    assert list(Decision.objects.values_list("action", flat=True)) == ["entry.accept"]


def test_an_undo_is_a_new_decision_that_points_at_the_one_it_undoes() -> None:
    editor = User.objects.create_user("editor")
    entry = make_entry()
    accepted = accept(entry, editor, expected_version=1)

    undo = decide(
        entry,
        expected_version=entry.version,
        actor=editor,
        action="entry.undo",
        changes={"state": Entry.State.PROPOSED, "decided_by": None},
        undoes=accepted,
    )

    assert (entry.state, entry.version) == ("proposed", 3)
    assert undo.undoes == accepted
    assert Decision.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_two_people_deciding_one_entry_at_the_same_moment_give_one_success_and_one_refusal():
    if connection.vendor != "postgresql":
        pytest.skip(
            "needs PostgreSQL: SQLite locks the whole database for a write, so the two "
            "decisions cannot overlap on a row lock the way they do in production"
        )
    entry = make_entry()
    people = [User.objects.create_user("first"), User.objects.create_user("second")]
    # Both opened the page before either clicked: each holds version 1.
    seen = [Entry.objects.get(pk=entry.pk), Entry.objects.get(pk=entry.pk)]
    both_ready = threading.Barrier(2, timeout=30)
    outcomes: dict[str, object] = {}

    def click(index: int) -> None:
        try:
            both_ready.wait()
            accept(seen[index], people[index], expected_version=1)
            outcomes[people[index].username] = "decided"
        except StaleVersion as refused:
            outcomes[people[index].username] = refused
        except Exception as error:  # surfaced by the assertions below
            outcomes[people[index].username] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=click, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert sorted(type(value).__name__ for value in outcomes.values()) == ["StaleVersion", "str"]
    winner = next(name for name, value in outcomes.items() if value == "decided")
    current = Entry.objects.get(pk=entry.pk)
    assert (current.version, current.decided_by.username) == (2, winner)
    assert list(Decision.objects.values_list("actor_name", flat=True)) == [winner]
