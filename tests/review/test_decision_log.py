"""The decision log is append-only, underneath the ORM as well as in it."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from review.models import AppendOnlyError, Decision
from review.models.projects import default_project_id

pytestmark = pytest.mark.django_db


def log_one(**overrides) -> Decision:
    fields = {
        "actor_name": "editor",
        "action": "entry.accept",
        "object_type": "entry",
        "object_id": "1",
        "before": {"state": "proposed"},
        "after": {"state": "accepted"},
    }
    fields.update(overrides)
    return Decision.objects.create(project_id=default_project_id(), **fields)


def test_a_logged_decision_cannot_be_saved_again_with_changes() -> None:
    row = log_one()
    row.note = "rewritten history"
    with pytest.raises(AppendOnlyError):
        row.save()


def test_a_logged_decision_cannot_be_deleted_through_the_orm() -> None:
    row = log_one()
    with pytest.raises(AppendOnlyError):
        row.delete()
    with pytest.raises(AppendOnlyError):
        Decision.objects.filter(pk=row.pk).delete()
    with pytest.raises(AppendOnlyError):
        Decision.objects.filter(pk=row.pk).update(note="x")


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE review_decision SET note = 'x' WHERE id = %s",
        "DELETE FROM review_decision WHERE id = %s",
    ],
    ids=["update", "delete"],
)
def test_raw_sql_that_changes_a_logged_decision_is_refused_by_the_database(statement) -> None:
    row = log_one()
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement, [row.pk])
    assert Decision.objects.get(pk=row.pk).note == ""


def test_new_decisions_can_still_be_appended() -> None:
    log_one()
    log_one(action="entry.undo")
    assert list(Decision.objects.values_list("action", flat=True)) == ["entry.accept", "entry.undo"]
