"""Projects in real Chromium: staff make a project and give a person a place in it with a
role, and that person finds it on their dashboard and in the top bar's switcher; a lead
invites someone, resends the invitation and then withdraws it."""

from __future__ import annotations

from django.contrib.auth.models import User
from playwright.sync_api import expect

from review.models import Invitation, Membership
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


def test_a_lead_invites_resends_and_withdraws_from_the_members_page(page, reviewers) -> None:
    user_in(User, "lena", "Leads")
    log_in(page, "lena")
    page.goto("/projects/default/members/")
    inviting = page.get_by_role("region", name="Invite by email")
    inviting.get_by_label("Email address").fill("new@example.org")
    inviting.get_by_label("Editor").check()
    inviting.get_by_role("button", name="Mail the invitation").click()
    row = page.get_by_role("row", name="new@example.org")
    expect(row).to_contain_text("lena")
    first = Invitation.objects.get()

    row.get_by_role("button", name="Resend").click()
    expect(page.get_by_text("A new link is mailed to new@example.org")).to_be_visible()
    first.refresh_from_db()
    assert first.replaced_by is not None

    page.get_by_role("row", name="new@example.org").get_by_role("button", name="Withdraw").click()
    expect(page.get_by_text("The invitation of new@example.org is withdrawn")).to_be_visible()
    expect(page.get_by_role("row", name="new@example.org")).to_have_count(0)
    assert not Invitation.objects.filter(withdrawn_at=None).exists()
