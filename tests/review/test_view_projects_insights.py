"""/projects/insights/: the insights of several projects side by side, for someone who may read
each project's; a project they may not read is left out as if it did not exist."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from review.views.insights import MAX_COMPARED
from tests.builders.cases_answers import make_case
from tests.builders.users import make_project, member

pytestmark = pytest.mark.django_db
PAGE = "/projects/insights/"


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def settle(client: Client, slug: str, case_id: str, verdict: str) -> None:
    project = make_project(slug)
    case = make_case(case_id, project=project)
    # An overturn says why; an uphold may.
    response = client.post(
        f"/p/{slug}/cases/{case.pk}/{verdict}/", {"version": 1, "note": "as the guidelines say"}
    )
    assert response.status_code in (200, 302), response.content[:300]


def reason_row(body: str, reason: str) -> str:
    found = re.search(rf'<tr data-reason="{reason}">(.*?)</tr>', body, re.S)
    assert found, f"no row for {reason}"
    return found.group(1)


def test_each_project_s_verdicts_stand_in_its_own_column():
    both = User.objects.create_user("both")
    for slug in ("alpha", "beta"):
        member(both, make_project(slug), "moderator")
    client = signed_in(both)
    # An unflagged rationale upheld agrees with the validator; overturned, it does not.
    settle(client, "alpha", "a-1", "uphold")
    settle(client, "beta", "b-1", "overturn")

    body = client.get(PAGE).content.decode()

    cells = re.findall(r"<td>(.*?)</td>", reason_row(body, "unflagged"), re.S)
    assert body.index(">Alpha</a>") < body.index(">Beta</a>")
    assert "1 of 1" in cells[0] and "100 %" in cells[0]
    assert "0 of 1" in cells[1] and "0 %" in cells[1]


def test_a_project_one_may_not_read_is_neither_offered_nor_shown_when_asked_for():
    person = User.objects.create_user("person")
    member(person, make_project("alpha"), "moderator")
    member(person, make_project("gamma"), "moderator")
    member(person, make_project("readers"))  # a reader there: no insights
    make_project("secret", name="Secret Project")

    body = signed_in(person).get(PAGE, {"project": ["alpha", "secret", "readers"]}).content
    body = body.decode()

    assert "Secret Project" not in body and "secret" not in body
    assert 'value="readers"' not in body
    assert 'value="gamma"' in body  # offered, though not chosen
    assert re.findall(r'class="compared-project"[^>]*>([^<]*)<', body) == ["Alpha"]


def test_with_fewer_than_two_projects_there_is_nothing_to_compare():
    person = User.objects.create_user("person")
    member(person, make_project("alpha"), "editor")

    body = signed_in(person).get(PAGE).content.decode()

    assert "There is nothing to compare" in body
    assert 'href="/p/alpha/insights/"' in body


def test_project_names_are_escaped():
    person = User.objects.create_user("person")
    member(person, make_project("one", name="<script>alert(1)</script>"), "editor")
    member(person, make_project("two"), "editor")

    body = signed_in(person).get(PAGE).content.decode()

    assert "<script>alert(1)" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_more_projects_than_fit_are_cut_and_named():
    staff = User.objects.create_user("staff", is_staff=True)
    for number in range(MAX_COMPARED + 2):
        make_project(f"p{number}", name=f"Project {number}")

    body = signed_in(staff).get(PAGE).content.decode()

    assert body.count('class="compared-project"') == MAX_COMPARED
    assert "left out:" in body and f"Project {MAX_COMPARED + 1}" in body
