"""A walk through the pages of signing in and of a person's account, in a real browser, for
the accessibility and Content-Security-Policy tests: each page in each state it is drawn in
(a form empty and answered, a secret shown once, a list with rows), with `look(page)` called
at each so the caller judges the page as it stands."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone

from review.actions.invitations import invite
from review.actions.sign_on import map_claim
from review.actions.tokens import create_token
from review.models import Project
from tests.browser.conftest import log_in
from tests.builders.authenticator import code_from_secret
from tests.builders.users import user_in


def _invitation_link(project: Project, actor) -> str:
    links: list[str] = []
    invite(
        project,
        "new@example.org",
        actor=actor,
        roles={"editor": True},
        link_for=lambda token: links.append(f"/invitations/{token}/") or links[-1],
    )
    return links[0]


def _locked_out_account() -> None:
    """Enough failures on one account to lock it, as django-axes counts them."""
    AccessAttempt.objects.create(
        username="mallory",
        ip_address="203.0.113.9",
        user_agent="a script",
        failures_since_start=settings.AXES_FAILURE_LIMIT,
        attempt_time=timezone.now() - dt.timedelta(seconds=5),
    )


def walk_account_pages(page, look: Callable[[object], None]) -> list[str]:
    """Visit every sign-in and account page in each of its states, calling `look(page)` on
    each; returns the paths seen, in order. Makes a staff member "boss" (password "demo") who
    leads the project "Default", a token of theirs, a pending invitation, a lockout and a
    mapped claim, so that every list has a row."""
    seen: list[str] = []

    def at(path: str | None = None) -> None:
        if path is not None:
            response = page.goto(path)
            assert response is not None and response.ok, f"{path}: {response and response.status}"
        page.wait_for_load_state("load")
        seen.append(page.url)
        look(page)

    boss = user_in(User, "boss", "Leads")
    User.objects.filter(pk=boss.pk).update(is_staff=True)
    boss.refresh_from_db()
    default = Project.objects.get(slug="default")
    create_token(boss, "nightly export")
    map_claim(actor=boss, claim_value="reviewers", project=default, roles={"editor": True})
    _locked_out_account()
    invitation = _invitation_link(default, boss)

    # Signed out: a password forgotten, and an invitation's link.
    at("/accounts/password/reset/")
    page.get_by_label("Email").fill("nobody@example.org")
    page.get_by_role("button", name="Mail me a link").click()
    at()
    at(invitation)

    log_in(page, "boss")
    for path in (
        "/account/",
        "/accounts/password/change/",
        "/tokens/",
        "/security/",
        "/security/lockouts/",
        "/sign-on/roles/",
    ):
        at(path)

    # A token made on the page: its key shown once.
    page.goto("/tokens/")
    page.get_by_label("Name").fill("from the page")
    page.get_by_role("button", name="Make the token").click()
    at()

    # A second factor enrolled: the secret shown, then the recovery codes, then the code asked
    # for at the next sign-in.
    page.goto("/account/")
    page.get_by_role("button", name="Enrol an authenticator app").click()
    at()
    secret = page.locator("[data-secret]").inner_text().strip()
    page.get_by_label("Code").fill(code_from_secret(secret))
    page.get_by_role("button", name="Confirm").click()
    at()
    page.get_by_role("button", name="Log out").click()
    log_in(page, "boss")
    at()
    assert "/accounts/second-factor/" in page.url
    return seen
