"""Migration 0017 moves today's data into the project "Default": every row and every log entry
stays, each belongs to "Default" after it, and today's people become its members with the
roles their groups gave (a Reader, or someone in no group, a member with none)."""

from __future__ import annotations

import pytest

from tests.builders.migrating import migrate, migrate_to_latest

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("review", "0016_decision_batch")
AFTER = ("review", "0017_projects")
IN_PROJECT = ("Document", "Plan", "Case", "Answer", "ReviewPolicy", "Decision")


@pytest.fixture(autouse=True)
def _back_to_the_latest_schema():
    """Later tests on this database expect every migration applied."""
    yield
    migrate_to_latest()


def _rows_before(apps) -> dict[str, list[int]]:
    """One of each kind of row, made with the models as they were at 0016."""
    model = lambda name: apps.get_model("review", name)  # noqa: E731
    document = model("Document").objects.create(
        name="a.md", media_type="markdown", data=b"# A\n", sha256="a" * 64, text="# A\n"
    )
    model("Plan").objects.create(document=document, source_sha256="a" * 64, original_payload="{}")
    model("Case").objects.create(case_id="c-1", content_text="x", rationale_text="y")
    model("Answer").objects.create(answer_id="a-1", question="q", raw_text="t", body="t")
    model("ReviewPolicy").objects.create(queue="cases")
    for number in range(3):
        model("Decision").objects.create(
            actor_name="editor", action="entry.accept", object_type="entry", object_id=str(number)
        )
    return {name: list(model(name).objects.values_list("pk", flat=True)) for name in IN_PROJECT}


def _people(apps) -> dict[str, int]:
    User = apps.get_model("auth", "User")
    Group = apps.get_model("auth", "Group")
    groups = {"editor": ["Editors", "Curators"], "moderator": ["Moderators"], "rita": ["Readers"]}
    made = {}
    for name, names in (*groups.items(), ("nobody", [])):
        user = User.objects.create(username=name)
        user.groups.set(Group.objects.get_or_create(name=group)[0] for group in names)
        made[name] = user.pk
    return made


def test_every_row_and_log_entry_is_kept_and_belongs_to_the_default_project():
    before = migrate(*BEFORE)
    made = _rows_before(before)

    after = migrate(*AFTER)

    default = after.get_model("review", "Project").objects.get(slug="default")
    for name, pks in made.items():
        rows = after.get_model("review", name).objects.order_by("pk")
        assert list(rows.values_list("pk", flat=True)) == pks, name
        assert set(rows.values_list("project", flat=True)) == {default.pk}, name
    notes = after.get_model("review", "Decision").objects.values_list("object_id", flat=True)
    assert sorted(notes) == ["0", "1", "2"]


def test_todays_people_become_members_of_default_with_their_groups_as_roles():
    people = _people(migrate(*BEFORE))

    after = migrate(*AFTER)

    memberships = after.get_model("review", "Membership").objects.select_related("project")
    roles = {
        m.user_id: {r for r in ("editor", "moderator", "curator", "lead") if getattr(m, r)}
        for m in memberships
    }
    assert {m.project.slug for m in memberships} == {"default"}
    assert roles == {
        people["editor"]: {"editor", "curator"},
        people["moderator"]: {"moderator"},
        people["rita"]: set(),
        people["nobody"]: set(),
    }
    # The groups themselves are kept; they confer nothing now.
    assert after.get_model("auth", "Group").objects.filter(name="Editors").exists()
