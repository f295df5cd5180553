"""Real Chromium, driven by Playwright, against pytest-django's live server.

Chromium is Debian's package (/usr/bin/chromium, or $CHROMIUM_PATH). In CI a missing
browser fails the run; elsewhere these tests are skipped with the install command.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.builders.users import user_in

# Playwright's sync API keeps an event loop in this thread; the ORM calls the tests
# make between page actions are still plain synchronous calls.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    candidate = os.environ.get("CHROMIUM_PATH") or "/usr/bin/chromium"
    if Path(candidate).is_file():
        return candidate
    return shutil.which("chromium")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        message = (
            "Chromium not found; install it with `apt-get install -y chromium`"
            " (or set CHROMIUM_PATH)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=path, headless=True, args=CHROMIUM_FLAGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    quiet(page)
    context.close()


def quiet(page) -> None:
    """Stop an open item page's polling and its leave beacon, and let requests in flight end,
    so none reaches the live server while the test's database is being emptied."""
    for open_page in page.context.pages:
        open_page.evaluate("document.querySelectorAll('[data-presence]').forEach(e => e.remove())")
        open_page.wait_for_load_state("networkidle")


@pytest.fixture
def reviewers(transactional_db, django_user_model):
    """The three demo roles, each with the password "demo"."""
    roles = (("editor", "Editors"), ("moderator", "Moderators"), ("reader", "Readers"))
    return {username: user_in(django_user_model, username, group) for username, group in roles}


def log_in(page, username: str, password: str = "demo") -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
