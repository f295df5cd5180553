"""Two-factor sign-in in Chromium, as a person does it: enrol an authenticator on /account/
from the secret the page shows (the code computed here, as the app would), sign out, and sign
in again with the password and then a code."""

from __future__ import annotations

import pytest

from tests.browser.conftest import log_in
from tests.builders.authenticator import code_from_secret

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
