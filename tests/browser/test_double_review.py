"""Double review in real Chromium, each reviewer handed their item by the queue's Next: two
moderators disagree on a case, blind, and a curator settles it (then undoes and settles it
again); two editors review a plan in their own copies, and a curator undoes an agreement,
takes a side on it, and settles the one entry they differ on with an edit of their own."""

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


def take_next(page, queue: str) -> None:
    """Press Next on the queue's page, as a reviewer handed their next item does."""
    page.goto(f"/p/default/{queue}/next/")
    page.wait_for_load_state()  # the n key listens once the page's script has run
    page.keyboard.press("n")


def test_two_moderators_disagree_blind_and_a_curator_settles_the_case(page, double_reviewed_case):
    case = double_reviewed_case
    panel = page.locator("#verdict")
    log_in(page, "moderator")
    take_next(page, "cases")
    page.wait_for_url(f"**/cases/{case.pk}/")
    page.get_by_label("Note").fill("The rule match is plain.")
    page.get_by_role("button", name="Uphold").click()
    # Handed by the queue, so the next item opens: there is none, so the queue's page.
    page.wait_for_url("**/cases/next/")
    page.goto(f"/p/default/cases/{case.pk}/")
    expect(panel).to_contain_text("a second reviewer decides blind")
    expect(panel.get_by_role("button", name="Uphold")).to_have_count(0)
    log_out(page)

    log_in(page, "moderator2")
    take_next(page, "cases")
    page.wait_for_url(f"**/cases/{case.pk}/")
    expect(panel).to_contain_text("decide without seeing the first")
    expect(page.locator("body")).not_to_contain_text("The rule match is plain.")
    page.get_by_label("Note").fill("It quotes the user to criticise the call.")
    page.get_by_role("button", name="Overturn").click()
    page.wait_for_url("**/cases/next/")
    log_out(page)

    log_in(page, "moderator")
    take_next(page, "cases")  # the first reviewer is never handed it again, nor its curation
    expect(page.locator("body")).to_contain_text("Nothing is waiting in cases")
    log_out(page)

    log_in(page, "curator")
    take_next(page, "cases")
    page.wait_for_url(f"**/cases/{case.pk}/")
    opinions = panel.locator(".opinion")
    expect(opinions).to_have_count(2)
    expect(opinions.nth(0)).to_contain_text("The rule match is plain.")
    expect(opinions.nth(1)).to_contain_text("It quotes the user to criticise the call.")
    page.get_by_label("Note").fill("Upheld after all.")
    page.get_by_role("button", name="Uphold").click()
    page.wait_for_url("**/cases/next/")

    # Second thoughts: the curator takes the settlement back from the page, with its key.
    page.goto(f"/p/default/cases/{case.pk}/")
    expect(panel).to_contain_text("A curator settled two opinions")
    page.wait_for_load_state()
    page.keyboard.press("z")
    expect(panel).to_contain_text("a curator decides")
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
        "case.undo",
        "case.curate",
    ]
    assert Case.objects.get(pk=case.pk).review_stage == "curated"


def review_in_own_copy(page, plan, keys: str) -> None:
    """Be handed `plan` by the queue's Next (it opens one's own copy), decide its entries in
    order by key, then hand it in."""
    take_next(page, "plans")
    page.wait_for_url(
        lambda url: "/p/default/next/" not in url and f"/p/default/plans/{plan.pk}/" not in url
    )
    page.wait_for_load_state()  # the keys listen once the page's script has run
    expect(page.locator(".review-notice")).to_contain_text("only you see your decisions")
    # The strip's first poll has come back (it records the visit and takes the lease), so the
    # page is whole before the first key: as a person sees it, not while it still arrives.
    expect(page.locator(".presence-who")).not_to_contain_text("Looking for who else is here")
    for key in keys:
        before = page.locator("[class*='state-proposed'][id^='entry-']").count()
        page.keyboard.press(key)
        # Each key is a decision over htmx; on a machine busy with other runs one has taken
        # longer than expect's 5 s to come back, so this waits longer (it times nothing).
        expect(page.locator("[class*='state-proposed'][id^='entry-']")).to_have_count(
            before - 1, timeout=20_000
        )
    expect(page.locator("#adjudicate-button")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url("**/plans/next/")
    expect(page.locator("body")).to_contain_text("adjudicated")


def test_two_editors_review_a_plan_and_a_curator_settles_it_by_an_edit(
    page, reviewers, django_user_model
):
    user_in(django_user_model, "editor2", "Editors")
    user_in(django_user_model, "curator", "Curators")
    double_review("plans")
    plan = make_plan(2)
    last = entries_of(plan)[-1]

    log_in(page, "editor")
    review_in_own_copy(page, plan, "a" * len(entries_of(plan)))
    log_out(page)
    log_in(page, "editor2")
    review_in_own_copy(page, plan, "a" * (len(entries_of(plan)) - 1) + "r")
    log_out(page)

    log_in(page, "curator")
    take_next(page, "plans")
    page.wait_for_url(f"**/plans/{plan.pk}/curation/")
    entries = page.locator(".curation-entry")
    expect(entries).to_have_count(1)
    expect(entries.first).to_contain_text(f"Entry #{last.number}")
    expect(entries.locator(".opinion").nth(0)).to_contain_text("Accepted")
    expect(entries.locator(".opinion").nth(1)).to_contain_text("Rejected")
    # Side by side, not stacked: the two reviews start on one line, the second to the right.
    first_box, second_box = (entries.locator(".opinion").nth(n).bounding_box() for n in (0, 1))
    assert first_box["y"] == second_box["y"] and second_box["x"] > first_box["x"]
    expect(entries.locator(".opinion").nth(1).locator("mark.differs")).to_have_text("Rejected")

    # Undo the latest agreement with its key: that entry is to settle again; take a side.
    page.wait_for_load_state()
    page.keyboard.press("u")
    expect(entries).to_have_count(2)
    [reopened] = [e for e in entries_of(plan) if e.state == "proposed" and e.pk != last.pk]
    page.locator(f"#curate-entry-{reopened.pk}").get_by_role("button", name="Take editor's").click()
    expect(entries).to_have_count(1)

    # The last difference: neither version, but the curator's own edit of the kept one.
    entries.first.get_by_role("link", name="Edit from editor's…").click()
    page.get_by_label("Title").fill("Settled by the curator")
    page.get_by_role("button", name="Settle with this edit").click()
    page.wait_for_url("**/plans/next/")
    expect(page.locator("body")).to_contain_text("Every entry is settled: the plan is adjudicated.")

    plan.refresh_from_db()
    assert not plan.is_open
    payload = json.loads(export_plan(plan))
    assert payload["double_review"] is True
    edited = [e for e in payload["entries"] if e["title"] == "Settled by the curator"]
    assert [e["adjudication"]["curator"] for e in edited] == ["curator"]
    assert [e["adjudication"]["reviewers"] for e in payload["entries"]] == [
        ["editor", "editor2"]
    ] * len(payload["entries"])
    curated = Decision.objects.filter(action="entry.curate").order_by("pk")
    assert [d.object_id for d in curated] == [str(reopened.pk), str(last.pk)]
