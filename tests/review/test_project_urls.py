"""Project work under /p/<slug>/: the address names the project, its members (and staff)
work there, and anyone else gets the 404 an unknown project gets; the pages link within the
project they show."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from review.models import Case, Membership, Project
from tests.builders.cases_answers import make_case

pytestmark = pytest.mark.django_db


@pytest.fixture
def other() -> Project:
    return Project.objects.create(name="Other team", slug="other")


def test_a_member_works_in_the_project_the_address_names(client, reader) -> None:
    response = client.get("/p/default/cases/")

    assert response.status_code == 200
    assert response.wsgi_request.project.slug == "default"


def test_a_project_one_is_not_a_member_of_answers_as_one_that_does_not_exist(
    client, reader, other
) -> None:
    not_a_member = client.get("/p/other/cases/")
    unknown = client.get("/p/no-such-project/cases/")

    assert not_a_member.status_code == unknown.status_code == 404
    assert not_a_member.content == unknown.content


def test_a_member_of_another_project_only_works_in_that_one(client, other) -> None:
    person = get_user_model().objects.create_user("olga")
    Membership.objects.create(project=other, user=person)
    client.force_login(person)

    assert client.get("/p/other/cases/").status_code == 200
    assert client.get("/p/default/cases/").status_code == 404


def test_staff_work_in_every_project_without_a_membership(client, other) -> None:
    client.force_login(get_user_model().objects.create_user("boss", is_staff=True))

    assert client.get("/p/other/cases/").status_code == 200


def test_a_signed_out_person_is_sent_to_sign_in_before_anything_says_the_project_exists(
    client,
) -> None:
    response = client.get("/p/no-such-project/cases/")

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/p/no-such-project/cases/")


def test_a_project_s_pages_link_within_that_project(client, other) -> None:
    person = get_user_model().objects.create_user("olga")
    Membership.objects.create(project=other, user=person)
    case = make_case("c-77")
    Case.objects.filter(pk=case.pk).update(project=other)
    client.force_login(person)

    body = client.get("/p/other/cases/").content.decode()

    assert f'href="/p/other/cases/{case.pk}/"' in body
    assert 'href="/p/other/answers/"' in body  # the top bar
    assert "/p/default/" not in body


def test_the_dashboard_s_queues_lead_into_the_person_s_only_project(client, other) -> None:
    person = get_user_model().objects.create_user("olga")
    Membership.objects.create(project=other, user=person)
    client.force_login(person)

    response = client.get("/")

    assert response.status_code == 200
    assert {queue["url"] for queue in response.context["queues"]} == {
        "/p/other/plans/?status=open",
        "/p/other/cases/",
        "/p/other/answers/",
    }
