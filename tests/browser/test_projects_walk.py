"""Two projects in real Chromium, walked by three people: a member of the building codes
only, a member of the moderation only, and a member of both. Each finds their own project's
items; an address of the other project's item answers the 404 page, as an address that
never existed would; the member of both switches between the two from the top bar; and every
dashboard lists exactly the projects its person works in."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from review.models import Case, Plan
from tests.browser.conftest import log_in
from tests.builders.cases_answers import make_case
from tests.builders.plan_views import make_plan
from tests.builders.users import make_project, member

CODES, MODERATION = "Building codes", "Moderation"


@dataclass(frozen=True)
class Walk:
    plan: Plan  # the building codes' plan
    case: Case  # the moderation's case


@pytest.fixture
def walk(transactional_db, django_user_model) -> Walk:
    codes = make_project("codes", CODES)
    moderation = make_project("moderation", MODERATION)
    people = {
        name: django_user_model.objects.create_user(name, password="demo")
        for name in ("alma", "bo", "cai")
    }
    member(people["alma"], codes, "editor")
    member(people["bo"], moderation, "moderator")
    member(people["cai"], codes, "editor")
    member(people["cai"], moderation, "moderator")
    plan = make_plan(2, name="brannkode.md", project=codes)
    return Walk(plan=plan, case=make_case("c-4242", project=moderation))


def plan_url(walk: Walk) -> str:
    return f"/p/codes/plans/{walk.plan.pk}/"


def case_url(walk: Walk) -> str:
    return f"/p/moderation/cases/{walk.case.pk}/"


def expect_dashboard_lists(page, *names: str) -> None:
    page.goto("/")
    listed = page.get_by_role("region", name="Your projects").get_by_role("heading", level=3)
    expect(listed).to_have_text(list(names))


def expect_not_found(page, url: str, hidden: str) -> None:
    response = page.goto(url)
    assert response.status == 404, url
    expect(page.get_by_role("heading", name="Not Found")).to_be_visible()
    expect(page.locator("body")).not_to_contain_text(hidden)


def test_a_member_of_the_building_codes_only_sees_its_plan_and_not_the_moderations_case(
    page, walk
) -> None:
    log_in(page, "alma")
    expect_dashboard_lists(page, CODES)

    page.goto(plan_url(walk))
    expect(page.get_by_role("heading", level=1, name="brannkode.md")).to_be_visible()

    expect_not_found(page, case_url(walk), "c-4242")
    # Under the address of a project they do work in, the case is not found either.
    expect_not_found(page, f"/p/codes/cases/{walk.case.pk}/", "c-4242")
    page.goto("/p/codes/plans/")
    expect(plan_row(page)).to_be_visible()
    expect(page.locator(".project-switcher")).not_to_contain_text(MODERATION)


def test_a_member_of_the_moderation_only_sees_its_case_and_not_the_building_codes_plan(
    page, walk
) -> None:
    log_in(page, "bo")
    expect_dashboard_lists(page, MODERATION)

    page.goto(case_url(walk))
    expect(page.get_by_role("heading", level=1, name="Case c-4242")).to_be_visible()

    expect_not_found(page, plan_url(walk), "brannkode.md")
    expect_not_found(page, f"/p/moderation/plans/{walk.plan.pk}/", "brannkode.md")
    page.goto("/p/moderation/cases/")
    expect(page.get_by_role("link", name="c-4242")).to_be_visible()
    expect(page.locator(".project-switcher")).not_to_contain_text(CODES)


def plan_row(page):
    """The plans list's row of the building codes' plan."""
    return page.get_by_role("row").filter(has_text="brannkode.md")


def switch_to(page, name: str, slug: str) -> None:
    page.locator(".project-switcher summary").click()
    page.get_by_role("list", name="Your projects").get_by_role("link", name=name).click()
    page.wait_for_url(f"**/p/{slug}/plans/")
    expect(page.locator(".project-switcher summary")).to_contain_text(name)


def test_a_member_of_both_switches_between_them_and_sees_each_ones_items(page, walk) -> None:
    log_in(page, "cai")
    expect_dashboard_lists(page, CODES, MODERATION)

    page.goto(plan_url(walk))
    expect(page.get_by_role("heading", level=1, name="brannkode.md")).to_be_visible()

    switch_to(page, MODERATION, "moderation")
    expect(page.get_by_role("heading", level=1, name="Segmentation plans")).to_be_visible()
    expect(plan_row(page)).to_have_count(0)
    page.get_by_role("navigation").get_by_role("link", name="Cases").click()
    page.get_by_role("link", name="c-4242").click()
    page.wait_for_url(f"**{case_url(walk)}")
    expect(page.get_by_role("heading", level=1, name="Case c-4242")).to_be_visible()

    switch_to(page, CODES, "codes")
    plan_row(page).get_by_role("link", name=f"Plan {walk.plan.pk}").click()
    page.wait_for_url(f"**{plan_url(walk)}")
    page.get_by_role("navigation").get_by_role("link", name="Cases").click()
    page.wait_for_url("**/p/codes/cases/")
    expect(page.get_by_role("link", name="c-4242")).to_have_count(0)
