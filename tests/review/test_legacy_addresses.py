"""The addresses from before projects keep working: an item's old address leads to the
item in its project, with the same rest of the path and query (302; 307 for a POST, so the
form is posted again); an old list address leads into the person's own project. An item the
person may not see answers 404, as one that does not exist."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from review.models import Case, Job, Membership, Plan, Project
from review.models.projects import default_project_id
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import make_plan

pytestmark = pytest.mark.django_db


@pytest.fixture
def other() -> Project:
    return Project.objects.create(name="Other team", slug="other")


@pytest.fixture
def olga(client, other):
    """A member of "other" only, signed in."""
    person = get_user_model().objects.create_user("olga")
    Membership.objects.create(project=other, user=person)
    client.force_login(person)
    return person


def in_project(item, project: Project):
    type(item).objects.filter(pk=item.pk).update(project=project)
    return item


def export_job(owner) -> Job:
    """A job `owner` started in "Default" (a job names its project, as every item does)."""
    return Job.objects.create(
        kind=Job.Kind.EXPORT_DECISIONS, created_by=owner, project_id=default_project_id()
    )


ITEMS = {
    "plans": lambda owner: make_plan(2),
    "documents": lambda owner: make_plan(2).document,
    "cases": lambda owner: make_case(),
    "answers": lambda owner: make_answer(),
    "jobs": lambda owner: export_job(owner),
}


@pytest.mark.parametrize("prefix", sorted(ITEMS))
def test_an_item_s_old_address_leads_to_it_in_its_project(client, olga, other, prefix) -> None:
    item = in_project(ITEMS[prefix](olga), other)

    response = client.get(f"/{prefix}/{item.pk}/")

    assert response.status_code == 302
    assert response["Location"] == f"/p/other/{prefix}/{item.pk}/"
    assert client.get(response["Location"]).status_code == 200


def test_the_rest_of_the_path_and_the_query_go_along(client, olga, other) -> None:
    plan = in_project(make_plan(2), other)

    response = client.get(f"/plans/{plan.pk}/accept-rule/?rule=rule:heading")

    assert response["Location"] == f"/p/other/plans/{plan.pk}/accept-rule/?rule=rule:heading"


def test_a_form_posted_to_an_old_address_is_posted_again_at_the_new_one(client, moderator):
    case = make_case()

    response = client.post(f"/cases/{case.pk}/uphold/", {"version": 1, "note": "Fine."})
    followed = client.post(
        f"/cases/{case.pk}/uphold/", {"version": 1, "note": "Fine."}, follow=True
    )

    assert response.status_code == 307
    assert response["Location"] == f"/p/default/cases/{case.pk}/uphold/"
    assert followed.redirect_chain[0] == (f"/p/default/cases/{case.pk}/uphold/", 307)
    assert Case.objects.get(pk=case.pk).verdict == Case.Verdict.UPHELD


@pytest.mark.parametrize("prefix", sorted(ITEMS))
def test_an_item_of_a_project_one_is_not_a_member_of_answers_as_one_that_does_not_exist(
    client, olga, prefix
) -> None:
    item = ITEMS[prefix](olga)  # in "Default", where olga is not a member
    missing = client.get(f"/{prefix}/{item.pk + 1000}/")

    response = client.get(f"/{prefix}/{item.pk}/")

    assert response.status_code == missing.status_code == 404
    assert response.content == missing.content


def test_someone_else_s_job_is_not_found_at_its_old_address(client, reader, editor) -> None:
    job = export_job(editor)
    client.force_login(reader)

    assert client.get(f"/jobs/{job.pk}/").status_code == 404


def test_a_review_copy_is_not_found_by_those_who_may_not_see_it(client, reader, editor):
    copy = make_plan(2)
    Plan.objects.filter(pk=copy.pk).update(
        review_of=make_plan(2, name="original.md"), reviewer=editor
    )
    client.force_login(reader)

    assert client.get(f"/plans/{copy.pk}/").status_code == 404


def test_an_old_address_that_never_was_a_page_is_not_found(client, reader) -> None:
    case = make_case()

    assert client.get(f"/cases/{case.pk}/no/such/page/").status_code == 404


@pytest.mark.parametrize(
    "address", ["/plans/", "/cases/?page=last", "/answers/", "/insights/", "/progress/"]
)
def test_an_old_list_address_leads_into_the_default_project_of_its_members(
    client, reader, address
) -> None:
    response = client.get(address)

    assert response.status_code == 302
    assert response["Location"] == f"/p/default{address}"


def test_an_old_list_address_leads_into_the_only_project_of_someone_outside_default(
    client, olga
) -> None:
    assert client.get("/policies/cases/")["Location"] == "/p/other/policies/cases/"


def test_an_old_list_address_leads_to_the_dashboard_for_someone_of_several_projects(
    client, olga
) -> None:
    third = Project.objects.create(name="Third", slug="third")
    Membership.objects.create(project=third, user=olga)

    response = client.get("/cases/")

    assert response.status_code == 302
    assert response["Location"] == "/"


def test_a_signed_out_person_is_sent_to_sign_in_first(client) -> None:
    case = make_case()

    response = client.get(f"/cases/{case.pk}/")

    assert response["Location"].startswith(f"/accounts/login/?next=/cases/{case.pk}/")
