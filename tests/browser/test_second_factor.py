"""Two-factor sign-in in Chromium, as a person does it: enrol an authenticator on /account/
from the secret the page shows (the code computed here, as the app would), sign out, and sign
in again with the password and then a code; and staff, finding someone in the security log,
reset the second factor they lost."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django_otp.plugins.otp_totp.models import TOTPDevice
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.builders.authenticator import code_from_secret
from tests.builders.users import user_in

pytestmark = pytest.mark.browser


def test_enrol_on_the_account_page_then_sign_in_with_a_code(page, reviewers) -> None:
    log_in(page, "editor")
    page.goto("/account/")
    page.get_by_role("button", name="Enrol an authenticator app").click()
    secret = page.locator("[data-secret]").inner_text().strip()
    page.get_by_label("Code").fill(code_from_secret(secret))
    page.get_by_role("button", name="Confirm").click()
    codes = page.get_by_role("list", name="Recovery codes").get_by_role("listitem")
    assert codes.count() == 10

    page.get_by_role("button", name="Log out").click()
    log_in(page, "editor")
    assert "/accounts/second-factor/" in page.url
    page.get_by_label("Code").fill(code_from_secret(secret, steps_ahead=1))
    page.get_by_role("button", name="Sign in").click()

    page.wait_for_url(lambda url: "/accounts/second-factor/" not in url)
    page.goto("/account/")
    assert page.get_by_text("Recovery codes left: 10").is_visible()


def test_staff_find_a_person_in_the_security_log_and_reset_their_second_factor(
    page, reviewers
) -> None:
    TOTPDevice.objects.create(user=reviewers["editor"], name="authenticator", confirmed=True)
    staff = user_in(User, "boss", None)
    User.objects.filter(pk=staff.pk).update(is_staff=True)
    log_in(page, "boss")

    page.goto("/security/")
    page.get_by_label("Person").fill("editor")
    page.get_by_role("button", name="Show").click()
    page.get_by_role("link", name="Reset editor's second factor").click()
    page.get_by_label("Reason").fill("lost phone and codes; called from the desk phone")
    page.get_by_role("button", name="Remove their second factor").click()

    expect(page.get_by_text("editor's second factor is removed")).to_be_visible()
    expect(page.get_by_role("cell", name="Second factor reset by staff")).to_be_visible()
    assert not TOTPDevice.objects.filter(user=reviewers["editor"]).exists()
