"""Double review in real Chromium: two moderators disagree on a case, blind, and a curator
settles it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from review.models import Case, Decision
from tests.browser.conftest import log_in
from tests.builders.cases_answers import make_case
from tests.builders.reviews import double_review
from tests.builders.users import user_in


@pytest.fixture
def double_reviewed_case(reviewers, django_user_model):
    user_in(django_user_model, "moderator2", "Moderators")
    user_in(django_user_model, "curator", "Curators")
    double_review("cases")
    return make_case("c-500")


def log_out(page) -> None:
    page.get_by_role("button", name="Log out").click()


def test_two_moderators_disagree_blind_and_a_curator_settles_the_case(page, double_reviewed_case):
    case = double_reviewed_case
    log_in(page, "moderator")
    page.goto("/cases/")
    page.get_by_role("link", name="Review next").click()
    page.wait_for_url(f"**/cases/{case.pk}/")
    page.get_by_label("Note").fill("The rule match is plain.")
    page.get_by_role("button", name="Uphold").click()
    panel = page.locator("#verdict")
    expect(panel).to_contain_text("a second reviewer decides blind")
    expect(panel.get_by_role("button", name="Uphold")).to_have_count(0)
    log_out(page)

    log_in(page, "moderator2")
    page.goto("/cases/")
    page.get_by_role("link", name="Review next").click()
    page.wait_for_url(f"**/cases/{case.pk}/")
    expect(panel).to_contain_text("decide without seeing the first")
    expect(page.locator("body")).not_to_contain_text("The rule match is plain.")
    page.get_by_label("Note").fill("It quotes the user to criticise the call.")
    page.get_by_role("button", name="Overturn").click()
    expect(panel).to_contain_text("a curator decides")
    expect(panel.get_by_role("button", name="Overturn")).to_have_count(0)
    log_out(page)

    log_in(page, "curator")
    page.goto("/cases/")
    page.get_by_role("link", name="Review next").click()
    page.wait_for_url(f"**/cases/{case.pk}/")
    opinions = panel.locator(".opinion")
    expect(opinions).to_have_count(2)
    expect(opinions.nth(0)).to_contain_text("The rule match is plain.")
    expect(opinions.nth(1)).to_contain_text("It quotes the user to criticise the call.")
    page.get_by_label("Note").fill("Satire: the second reading holds.")
    page.get_by_role("button", name="Overturn").click()
    expect(panel).to_contain_text("A curator settled two opinions")
    expect(page.locator("#verdict-badge")).to_have_text("Verdict: Overturned")

    case.refresh_from_db()
    assert (case.verdict, case.decided_by.username) == ("overturned", "curator")
    actions = Decision.objects.filter(object_type="case", object_id=str(case.pk)).order_by("pk")
    assert [d.action for d in actions] == [
        "case.first_opinion",
        "case.second_opinion",
        "case.curate",
    ]
    assert Case.objects.get(pk=case.pk).review_stage == "curated"
