"""Projects in real Chromium: staff make a project and give a person a place in it with a
role, and that person finds it on their dashboard and in the top bar's switcher."""

from __future__ import annotations

from django.contrib.auth.models import User
from playwright.sync_api import expect

from review.models import Membership
from tests.browser.conftest import log_in
from tests.builders.users import user_in


def test_staff_make_a_project_add_an_editor_and_the_editor_switches_to_it(page, reviewers) -> None:
    staff = user_in(User, "boss", None)
    User.objects.filter(pk=staff.pk).update(is_staff=True)
    log_in(page, "boss")
    page.goto("/projects/")
    page.get_by_role("link", name="New project").click()
    page.get_by_label("Name").fill("Readmes")
    page.get_by_label("Slug").fill("readmes")
    page.get_by_role("button", name="Make the project").click()
    page.wait_for_url("**/projects/readmes/members/")

    adding = page.get_by_role("region", name="Add a person")
    adding.get_by_label("Username").fill("editor")
    adding.get_by_label("Editor").check()
    adding.get_by_role("button", name="Add to Readmes").click()
    expect(page.get_by_role("row", name="editor")).to_be_visible()
    membership = Membership.objects.get(project__slug="readmes", user__username="editor")
    assert membership.role_names == {"editor"}

    page.context.clear_cookies()
    log_in(page, "editor")
    page.goto("/")
    expect(page.get_by_role("heading", name="Readmes")).to_be_visible()
    page.locator(".project-switcher summary").click()
    page.get_by_role("list", name="Your projects").get_by_role("link", name="Readmes").click()
    page.wait_for_url("**/plans/")
