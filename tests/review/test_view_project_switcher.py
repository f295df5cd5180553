"""The top bar's project switcher: links to the projects the person works in, the current
one marked, and nothing of a project they are not in."""

from __future__ import annotations

import re

import pytest

from review.context_processors import project_home_url
from review.models import DEFAULT_SLUG, Membership, Project
from tests.builders.users import member

pytestmark = pytest.mark.django_db


def switcher(body: str) -> str:
    found = re.search(r'<details class="project-switcher">.*?</details>', body, re.S)
    return found.group(0) if found else ""


def test_the_switcher_lists_only_the_persons_projects_the_current_one_marked(
    client, editor
) -> None:
    default = Project.objects.get(slug=DEFAULT_SLUG)
    mine = Project.objects.create(name="Readmes", slug="readmes")
    Project.objects.create(name="Hidden team", slug="hidden")
    member(editor, mine, "editor")  # an editor of "Default" already, as the fixture makes
    menu = switcher(client.get("/").content.decode())
    links = re.findall(r'<a href="([^"]*)"( aria-current="true")?>([^<]*)</a>', menu)
    assert [(name, bool(current)) for _, current, name in links] == [
        ("Default", True),
        ("Readmes", False),
    ]
    assert [url for url, _, _ in links] == [project_home_url(default), project_home_url(mine)]
    assert "Hidden team" not in menu


def test_someone_in_no_project_gets_no_switcher(client, django_user_model) -> None:
    client.force_login(django_user_model.objects.create_user("nomad"))
    assert switcher(client.get("/").content.decode()) == ""


def test_a_project_name_in_the_switcher_is_escaped(client, django_user_model) -> None:
    project = Project.objects.create(name="<script>alert(1)</script>", slug="x")
    user = django_user_model.objects.create_user("rita")
    Membership.objects.create(project=project, user=user)
    client.force_login(user)
    menu = switcher(client.get("/").content.decode())
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in menu
    assert "<script>" not in menu
