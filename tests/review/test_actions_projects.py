"""The project actions refuse on their own, whatever door calls them: only staff make a
project, only staff and the project's leads change who works in it, and nothing is written
when they refuse."""

from __future__ import annotations

import pytest

from review.actions.projects import create_project, remove_membership, set_membership
from review.decisions import ActionRefused
from review.models import Decision, Membership, Project

pytestmark = pytest.mark.django_db


@pytest.fixture
def project():
    return Project.objects.create(name="Readmes", slug="readmes")


def test_only_staff_make_a_project(django_user_model) -> None:
    lead = django_user_model.objects.create_user("lena")
    with pytest.raises(ActionRefused, match="Only staff create projects."):
        create_project(actor=lead, name="Mine", slug="mine")
    assert not Project.objects.filter(slug="mine").exists()


def test_a_member_who_is_not_a_lead_changes_no_roles(django_user_model, project) -> None:
    editor = django_user_model.objects.create_user("ed")
    membership = Membership.objects.create(project=project, user=editor, editor=True)
    with pytest.raises(ActionRefused, match="Only staff and the leads of Readmes"):
        set_membership(
            project, "ed", actor=editor, roles={"lead": True}, expected_version=membership.version
        )
    membership.refresh_from_db()
    assert (membership.lead, membership.version) == (False, 1)
    assert not Decision.objects.exists()


def test_a_role_that_does_not_exist_is_refused_by_name(django_user_model, project) -> None:
    staff = django_user_model.objects.create_user("sam", is_staff=True)
    django_user_model.objects.create_user("rita")
    with pytest.raises(ActionRefused, match="No such role: owner."):
        set_membership(project, "rita", actor=staff, roles={"owner": True})
    assert not Membership.objects.filter(project=project).exists()


def test_a_membership_already_taken_away_is_refused_not_taken_again(
    django_user_model, project
) -> None:
    staff = django_user_model.objects.create_user("sam", is_staff=True)
    rita = django_user_model.objects.create_user("rita")
    membership = Membership.objects.create(project=project, user=rita)
    remove_membership(membership, actor=staff, expected_version=1)
    with pytest.raises(ActionRefused, match="rita is no longer a member of Readmes."):
        remove_membership(membership, actor=staff, expected_version=1)
    assert Decision.objects.filter(action="membership.remove").count() == 1
