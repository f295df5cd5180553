"""/projects/: staff make projects and say who works in them; a project's leads manage its
members too; everyone else is refused, and someone outside a project cannot tell it exists."""

from __future__ import annotations

import pytest

from review.models import Decision, Membership, Project

pytestmark = pytest.mark.django_db

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def staff(django_user_model, client):
    user = django_user_model.objects.create_user("sam", password="demo", is_staff=True)
    client.force_login(user)
    return user


@pytest.fixture
def project():
    return Project.objects.create(name="Building code", slug="code")


def member(django_user_model, username: str, project: Project, **roles) -> Membership:
    user = django_user_model.objects.create_user(username, password="demo")
    return Membership.objects.create(project=project, user=user, **roles)


def members_url(project: Project) -> str:
    return f"/projects/{project.slug}/members/"


def test_staff_make_a_project_and_the_log_says_who_made_it(client, staff) -> None:
    response = client.post(
        "/projects/new/", {"name": "Readmes", "slug": "readmes", "description": "Real ones."}
    )
    project = Project.objects.get(slug="readmes")
    assert response.status_code == 302
    assert response["Location"] == members_url(project)
    assert (project.name, project.description) == ("Readmes", "Real ones.")
    made = Decision.objects.get(action="project.create")
    assert (made.actor, made.object_type, made.object_id) == (staff, "project", str(project.pk))
    assert (made.project_id, made.after["slug"]) == (project.pk, "readmes")


@pytest.mark.parametrize(
    ("slug", "says"),
    [
        ("code", "A project with the slug “code” already exists."),
        ("two words", "“two words” is not a slug"),
    ],
)
def test_a_slug_taken_or_not_a_slug_is_refused_by_name(client, staff, project, slug, says) -> None:
    response = client.post("/projects/new/", {"name": "Another", "slug": slug})
    assert response.status_code == 422
    assert says in response.content.decode()
    assert not Project.objects.filter(name="Another").exists()
    assert not Decision.objects.exists()


def test_staff_add_a_member_with_roles_and_the_log_keeps_it(
    client, staff, project, django_user_model
) -> None:
    rita = django_user_model.objects.create_user("rita")
    response = client.post(
        f"{members_url(project)}add/", {"username": "rita", "editor": "on", "lead": "on"}
    )
    assert response.status_code == 302
    membership = Membership.objects.get(project=project, user=rita)
    assert membership.role_names == {"editor", "lead"}
    added = Decision.objects.get(action="membership.add")
    assert (added.object_type, added.object_id) == ("membership", str(membership.pk))
    assert (added.project_id, added.after["user"], added.after["editor"]) == (
        project.pk,
        "rita",
        True,
    )
    assert "rita" in client.get(members_url(project)).content.decode()


def test_an_unknown_username_or_a_member_already_there_is_refused_by_name(
    client, staff, project, django_user_model
) -> None:
    member(django_user_model, "rita", project)
    unknown = client.post(f"{members_url(project)}add/", {"username": "nobody"})
    again = client.post(f"{members_url(project)}add/", {"username": "rita"})
    assert unknown.status_code == again.status_code == 422
    assert "Nobody has the username “nobody”." in unknown.content.decode()
    assert "rita is already a member of Building code" in again.content.decode()
    assert Membership.objects.count() == 1


def test_changing_roles_moves_the_version_and_is_logged_before_and_after(
    client, staff, project, django_user_model
) -> None:
    membership = member(django_user_model, "rita", project, editor=True)
    url = f"{members_url(project)}{membership.pk}/"
    response = client.post(url, {"version": membership.version, "moderator": "on"})
    assert response.status_code == 302
    membership.refresh_from_db()
    assert (membership.role_names, membership.version) == ({"moderator"}, 2)
    changed = Decision.objects.get(action="membership.roles")
    assert (changed.before["editor"], changed.after["editor"]) == (True, False)
    assert (changed.before["moderator"], changed.after["moderator"]) == (False, True)
    assert changed.project_id == project.pk


def test_a_role_change_from_a_stale_page_is_refused_naming_who_changed_it(
    client, staff, project, django_user_model
) -> None:
    membership = member(django_user_model, "rita", project, editor=True)
    url = f"{members_url(project)}{membership.pk}/"
    seen = membership.version
    client.post(url, {"version": seen, "lead": "on"})
    response = client.post(url, {"version": seen, "curator": "on"})
    assert response.status_code == 409
    body = response.content.decode()
    assert "sam (membership.roles" in body
    membership.refresh_from_db()
    assert membership.role_names == {"lead"}
    # The form is drawn again as the membership is now, ready to change from there.
    assert f'value="{membership.version}" id="member-{membership.pk}-version"' in body
    assert Decision.objects.filter(action="membership.roles").count() == 1


def test_removing_a_member_is_logged_with_the_roles_they_held(
    client, staff, project, django_user_model
) -> None:
    membership = member(django_user_model, "rita", project, curator=True)
    response = client.post(
        f"{members_url(project)}{membership.pk}/remove/", {"version": membership.version}
    )
    assert response.status_code == 302
    assert not Membership.objects.filter(pk=membership.pk).exists()
    removed = Decision.objects.get(action="membership.remove")
    assert (removed.before["user"], removed.before["curator"], removed.after) == (
        "rita",
        True,
        {},
    )


def test_a_removal_from_a_stale_page_is_refused(client, staff, project, django_user_model) -> None:
    membership = member(django_user_model, "rita", project)
    client.post(f"{members_url(project)}{membership.pk}/", {"version": 1, "editor": "on"})
    response = client.post(f"{members_url(project)}{membership.pk}/remove/", {"version": 1})
    assert response.status_code == 409
    assert Membership.objects.filter(pk=membership.pk).exists()


def test_the_pages_that_change_something_refuse_a_get(client, staff, project) -> None:
    assert client.get(f"{members_url(project)}add/").status_code == 405
    assert client.get(f"{members_url(project)}1/remove/").status_code == 405


def test_people_who_are_not_staff_may_not_see_or_make_projects(
    client, project, django_user_model
) -> None:
    lead = member(django_user_model, "lena", project, lead=True)
    client.force_login(lead.user)
    assert client.get("/projects/").status_code == 403
    assert client.get("/projects/new/").status_code == 403
    assert client.post("/projects/new/", {"name": "Mine", "slug": "mine"}).status_code == 403
    assert not Project.objects.filter(slug="mine").exists()


def test_a_lead_manages_the_members_of_their_own_project(
    client, project, django_user_model
) -> None:
    lead = member(django_user_model, "lena", project, lead=True)
    django_user_model.objects.create_user("rita")
    client.force_login(lead.user)
    assert client.get(members_url(project)).status_code == 200
    response = client.post(f"{members_url(project)}add/", {"username": "rita", "editor": "on"})
    assert response.status_code == 302
    assert Membership.objects.get(user__username="rita").project == project


def test_a_member_who_is_not_a_lead_is_refused_and_changes_nothing(
    client, project, django_user_model
) -> None:
    editor = member(django_user_model, "ed", project, editor=True)
    client.force_login(editor.user)
    assert client.get(members_url(project)).status_code == 403
    url = f"{members_url(project)}{editor.pk}/"
    assert client.post(url, {"version": 1, "lead": "on"}).status_code == 403
    editor.refresh_from_db()
    assert not editor.lead


def test_a_lead_of_another_project_cannot_tell_this_one_exists(
    client, project, django_user_model
) -> None:
    other = Project.objects.create(name="Cases", slug="cases")
    lead = member(django_user_model, "lena", other, lead=True)
    rita = member(django_user_model, "rita", project)
    client.force_login(lead.user)
    assert client.get(members_url(project)).status_code == 404
    removal = {"version": rita.version}
    assert client.post(f"{members_url(project)}{rita.pk}/remove/", removal).status_code == 404
    # Nor reach this project's member through their own project's address.
    assert client.post(f"{members_url(other)}{rita.pk}/remove/", removal).status_code == 404
    assert Membership.objects.filter(pk=rita.pk).exists()


def test_project_names_descriptions_and_usernames_are_escaped(
    client, staff, django_user_model
) -> None:
    project = Project.objects.create(name=HOSTILE, slug="hostile", description=HOSTILE)
    member(django_user_model, "x<b>y", project)
    for url in ("/projects/", members_url(project), "/"):
        body = client.get(url).content.decode()
        assert HOSTILE not in body and "x<b>y" not in body
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_a_lead_who_leaves_their_project_is_sent_to_the_dashboard(
    client, project, django_user_model
) -> None:
    lead = member(django_user_model, "lena", project, lead=True)
    client.force_login(lead.user)
    response = client.post(f"{members_url(project)}{lead.pk}/remove/", {"version": lead.version})
    assert response.status_code == 302
    assert response["Location"] == "/"
    assert not Membership.objects.filter(pk=lead.pk).exists()
