"""Migration 0016 moves the accept-all batch out of the note into its own column: rows logged
before it keep their note and get their batch, and the log stays append-only after it."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from tests.builders.migrating import migrate, migrate_to_latest

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("review", "0015_merge_part14")
AFTER = ("review", "0016_decision_batch")


@pytest.fixture(autouse=True)
def _back_to_the_latest():
    """The schema of every later migration again after each test: a test after these on the
    same database (the next one in this process) expects their tables."""
    yield
    migrate_to_latest()


def test_the_batch_of_an_earlier_accept_all_is_read_out_of_its_note():
    old = migrate(*BEFORE).get_model("review", "Decision")
    notes = {
        "in-batch": ("entry.accept", "accepted with all of rule:heading (batch 0123456789)"),
        "other-batch": ("entry.accept", "accepted with all of rule:a (b) (batch abcdef0123)"),
        "undo": ("entry.undo", "undoes accepted with all of rule:x (batch 0123456789)"),
        "not-a-batch": ("entry.accept", "accepted with all of rule:x (batch XYZ)"),
        "person": ("entry.accept", "looks right"),
    }
    made = {
        key: old.objects.create(
            actor_name="editor", action=action, object_type="entry", object_id="1", note=note
        ).pk
        for key, (action, note) in notes.items()
    }
    new = migrate(*AFTER).get_model("review", "Decision")
    batches = {key: new.objects.get(pk=pk).batch for key, pk in made.items()}
    assert batches == {
        "in-batch": "0123456789",
        "other-batch": "abcdef0123",
        "undo": "",
        "not-a-batch": "",
        "person": "",
    }
    # The notes are as they were logged.
    assert {new.objects.get(pk=pk).note for pk in made.values()} == {
        note for _, note in notes.values()
    }


def test_the_log_refuses_an_update_in_the_database_after_the_migration():
    migrate(*BEFORE)
    migrate(*AFTER)
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO review_decision (actor_name, action, object_type, object_id, before,"
            " after, note, at, batch) VALUES ('e', 'entry.accept', 'entry', '1', '{}', '{}',"
            " '', CURRENT_TIMESTAMP, '')"
        )
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE review_decision SET note = 'changed'")
