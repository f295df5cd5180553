"""A lead's release sticks, in real Chromium: the holder has the plan open, a lead releases it
from the list, and the holder's page says who released it and when, holds nothing through
its polls and a reload, and takes it again when asked."""

from __future__ import annotations

from django.utils import timezone
from playwright.sync_api import expect

from review.models import Decision, Lease
from tests.browser.conftest import log_in, quiet
from tests.browser.test_queues import LIVE, second_person
from tests.builders.plan_views import make_plan


def polls(page, count: int) -> None:
    """Wait until the open page has polled `count` more times."""
    for _ in range(count):
        with page.expect_response(
            lambda response: response.url.endswith("/here/") and response.request.method == "POST",
            timeout=LIVE,
        ):
            pass


def test_a_lead_s_release_sticks_on_the_holder_s_open_plan_until_they_take_it_again(
    page, browser, live_server, reviewers, django_user_model
) -> None:
    plan = make_plan(3)
    log_in(page, "editor")
    page.goto("/p/default/plans/")
    page.get_by_role("button", name="Next plan").click()
    page.wait_for_url(f"**/plans/{plan.pk}/")
    strip = page.locator("#presence")
    expect(strip).to_contain_text("You hold this plan", timeout=LIVE)

    lead = second_person(browser, live_server, django_user_model, "lena", "Leads")
    try:
        lead.goto("/p/default/plans/")
        expect(lead.locator("tbody")).to_contain_text("editor since")
        lead.get_by_role("button", name="Release").click()
        expect(lead.locator(".messages")).to_contain_text("Released editor's hold.")

        released = Decision.objects.get(action="lease.release")
        at = timezone.localtime(released.at).strftime("%H:%M")
        expect(strip).to_contain_text(f"lena released your hold at {at}.", timeout=LIVE)
        expect(strip).not_to_contain_text("You hold this plan")
        # More polls, and a reload, take nothing back.
        polls(page, 2)
        assert not Lease.objects.exists()
        page.reload()
        expect(strip).to_contain_text("lena released your hold", timeout=LIVE)
        polls(page, 1)
        assert not Lease.objects.exists()
        lead.goto("/p/default/plans/")
        expect(lead.locator("tbody")).not_to_contain_text("editor since")

        strip.get_by_role("button", name="Take it again").click()
        expect(strip).to_contain_text("You hold this plan")
        expect(strip).not_to_contain_text("released your hold")
        assert list(Lease.objects.values_list("item_id", "holder__username")) == [
            (plan.pk, "editor")
        ]
        lead.goto("/p/default/plans/")
        expect(lead.locator("tbody")).to_contain_text("editor since")
    finally:
        quiet(lead)
        lead.context.close()
