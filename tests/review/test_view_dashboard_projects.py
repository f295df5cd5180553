"""The dashboard's projects: only those the person works in, each with what waits there for
them to decide, counted per project."""

from __future__ import annotations

import pytest

from review.models import Answer, Case, Membership, Project
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.users import member

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_projects():
    return (
        Project.objects.create(name="Moderation", slug="moderation"),
        Project.objects.create(name="Secret work", slug="secret", description="Not yours."),
    )


def cases_in(project: Project, count: int, prefix: str) -> None:
    for number in range(count):
        Case.objects.filter(pk=make_case(f"{prefix}-{number}").pk).update(project=project)


def test_the_dashboard_lists_only_the_persons_projects_with_their_own_counts(
    client, moderator, two_projects
) -> None:
    mine, theirs = two_projects
    member(moderator, mine, "moderator")
    cases_in(mine, 2, "c-mine")
    cases_in(theirs, 5, "c-theirs")
    response = client.get("/")
    listed = {item["project"].slug: item for item in response.context["projects"]}
    # The moderator works in "Default" too (everyone the fixtures make does), where none waits.
    assert set(listed) == {"default", "moderation"}
    assert [(q["queue"], q["count"]) for q in listed["moderation"]["waiting"]] == [("cases", 2)]
    assert [(q["queue"], q["count"]) for q in listed["default"]["waiting"]] == [("cases", 0)]
    body = response.content.decode()
    assert "Secret work" not in body and "Not yours." not in body


def test_staff_see_every_project_each_counted_apart(
    client, django_user_model, two_projects
) -> None:
    mine, theirs = two_projects
    cases_in(mine, 1, "c-a")
    cases_in(theirs, 3, "c-b")
    Answer.objects.filter(pk=make_answer("a-1").pk).update(project=theirs)
    client.force_login(django_user_model.objects.create_user("sam", is_staff=True))
    listed = {item["project"].slug: item for item in client.get("/").context["projects"]}
    assert {"moderation", "secret"} <= set(listed)
    counts = {q["queue"]: q["count"] for q in listed["secret"]["waiting"]}
    assert counts == {"plans": 0, "cases": 3, "answers": 1}
    assert {q["queue"]: q["count"] for q in listed["moderation"]["waiting"]}["cases"] == 1


def test_a_reader_is_told_nothing_waits_for_them_and_offered_no_members_page(
    client, reader, two_projects
) -> None:
    mine, _ = two_projects
    member(reader, mine)
    cases_in(mine, 2, "c")
    response = client.get("/")
    listed = {item["project"].slug: item for item in response.context["projects"]}
    assert set(listed) == {"default", "moderation"}  # a reader of "Default" too
    for item in listed.values():
        assert (item["roles"], item["waiting"], item["manages"]) == ("Reader", [], False)
    assert "you read this project" in response.content.decode()
    assert "/projects/moderation/members/" not in response.content.decode()


def test_a_lead_is_offered_their_projects_members_page(
    client, django_user_model, two_projects
) -> None:
    mine, _ = two_projects
    lead = django_user_model.objects.create_user("lena")
    Membership.objects.create(project=mine, user=lead, lead=True)
    client.force_login(lead)
    assert 'href="/projects/moderation/members/"' in client.get("/").content.decode()


def test_the_projects_figures_are_cached_by_the_persons_projects(
    client, moderator, two_projects, settings
) -> None:
    from django.core.cache import cache

    mine, theirs = two_projects
    cache.clear()
    settings.DASHBOARD_CACHE_SECONDS = 30
    member(moderator, mine, "moderator")
    cases_in(mine, 1, "c-a")
    cases_in(theirs, 2, "c-b")

    def counts() -> dict[str, int]:
        items = client.get("/").context["projects"]
        return {item["project"].slug: item["waiting"][0]["count"] for item in items}

    # "Default", where the moderator works too, has no case waiting.
    assert counts() == {"default": 0, "moderation": 1}
    cases_in(mine, 1, "c-c")
    assert counts() == {"default": 0, "moderation": 1}
    # Added to a project: another set of projects, counted afresh, at once.
    member(moderator, theirs, "moderator")
    assert counts() == {"default": 0, "moderation": 2, "secret": 2}
    cache.clear()
