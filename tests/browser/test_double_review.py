"""Double review in real Chromium: two moderators disagree on a case, blind, and a curator
settles it; two editors review a plan in their own copies, and a curator settles the one
entry they differ on."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from review.adapters.plans import export_plan
from review.models import Case, Decision
from tests.browser.conftest import log_in
from tests.builders.cases_answers import make_case
from tests.builders.plan_views import entries_of, make_plan
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


def review_in_own_copy(page, plan, keys: str) -> None:
    """Open one's own copy of `plan` and decide its entries in order by key, then hand it in."""
    page.goto(f"/plans/{plan.pk}/")
    page.get_by_role("button", name="Review it in your own copy").click()
    page.wait_for_url(lambda url: f"/plans/{plan.pk}/" not in url)
    page.wait_for_load_state()  # the keys listen once the page's script has run
    expect(page.locator(".review-notice")).to_contain_text("only you see your decisions")
    for key in keys:
        before = page.locator("[class*='state-proposed'][id^='entry-']").count()
        page.keyboard.press(key)
        expect(page.locator("[class*='state-proposed'][id^='entry-']")).to_have_count(before - 1)
    expect(page.locator("#adjudicate-button")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_contain_text("adjudicated")


def test_two_editors_review_a_plan_and_a_curator_settles_their_one_difference(
    page, reviewers, django_user_model
):
    user_in(django_user_model, "editor2", "Editors")
    user_in(django_user_model, "curator", "Curators")
    double_review("plans")
    plan = make_plan(2)
    last = entries_of(plan)[-1]

    log_in(page, "editor")
    review_in_own_copy(page, plan, "aaa")
    log_out(page)
    log_in(page, "editor2")
    review_in_own_copy(page, plan, "aar")
    log_out(page)

    log_in(page, "curator")
    page.goto(f"/plans/{plan.pk}/")
    page.get_by_role("link", name="Curate 1 difference").click()
    entries = page.locator(".curation-entry")
    expect(entries).to_have_count(1)
    expect(entries.first).to_contain_text(f"Entry #{last.number}")
    expect(entries.locator(".opinion").nth(0)).to_contain_text("Accepted")
    expect(entries.locator(".opinion").nth(1)).to_contain_text("Rejected")
    page.get_by_role("button", name="Take editor2's").click()
    page.wait_for_url(f"**/plans/{plan.pk}/")
    expect(page.locator("body")).to_contain_text("Every entry is settled: the plan is adjudicated.")

    plan.refresh_from_db()
    assert not plan.is_open
    payload = json.loads(export_plan(plan))
    assert payload["double_review"] is True
    assert payload["rejected"][0]["adjudication"]["curator"] == "curator"
    assert [e["adjudication"]["reviewers"] for e in payload["entries"]] == [
        ["editor", "editor2"]
    ] * len(payload["entries"])
