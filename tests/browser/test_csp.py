"""Every page works under the Content-Security-Policy in real Chromium, with no violation, and
htmx still swaps; an inline style is refused, so the policy is really enforced."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from review.models import Entry
from tests.browser.conftest import log_in
from tests.builders.account_pages import walk_account_pages
from tests.builders.cases_answers import RULE_MATCH, make_answer, make_case, make_source
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.users import member, user_in

# Listens before any script of the page runs; a violation is reported to the test.
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.reportViolation(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
                         + ` on ${location.pathname}`);
});
"""


@pytest.fixture
def violations(page) -> list[str]:
    """Every CSP violation the pages raise, heard both ways Chromium tells of one."""
    heard: list[str] = []

    def report(violation: str) -> None:
        heard.append(violation)

    def listen(message) -> None:
        # Chromium's own words for a refusal; a 404 favicon and the like are not ours to judge.
        if "Content Security Policy" in message.text:
            heard.append(f"console {message.type}: {message.text}")

    page.expose_function("reportViolation", report)
    page.add_init_script(REPORT_VIOLATIONS)
    page.on("console", listen)
    return heard


@pytest.fixture
def lead(transactional_db, django_user_model):
    """One person who may decide plans, cases and answers, so one login reaches every page."""
    user = user_in(django_user_model, "lead", "Editors")
    member(user, None, "moderator")
    return user


def visit(page, path: str) -> None:
    response = page.goto(path)
    assert response is not None and response.ok, f"{path} answered {response and response.status}"
    page.wait_for_load_state("load")


def test_every_page_works_under_the_policy_and_htmx_still_swaps(page, violations, lead):
    plan = make_plan(3)
    case = make_case("c-950", evidence=(RULE_MATCH,), rationale="The post names a user [ev-1].")
    answer = make_answer(
        "a-950", text="Walls hold for sixty minutes [1].", sources=[make_source(1)]
    )

    visit(page, "/accounts/login/")
    visit(page, "/admin/login/")
    log_in(page, "lead")
    for path in (
        "/",
        "/p/default/plans/",
        f"/p/default/plans/{plan.pk}/",
        "/p/default/cases/",
        f"/p/default/cases/{case.pk}/",
        "/p/default/answers/",
        f"/p/default/answers/{answer.pk}/",
        "/admin/login/",
    ):
        visit(page, path)

    # Accepting by key is an htmx POST whose answer is swapped into the page.
    visit(page, f"/p/default/plans/{plan.pk}/")
    first = entries_of(plan)[0]
    expect(page.locator(f"#entry-{first.pk}")).to_be_focused()
    page.keyboard.press("a")
    expect(page.locator(f"#entry-{first.pk}")).to_have_class(re.compile(r"\bstate-accepted\b"))
    first.refresh_from_db()
    assert first.state == Entry.State.ACCEPTED

    assert violations == []


def test_an_inline_style_is_refused_and_reported(page, violations, lead):
    log_in(page, "lead")
    visit(page, "/")

    page.evaluate("document.querySelector('main').setAttribute('style', 'color: red')")

    expect(page.locator("main")).not_to_have_css("color", "rgb(255, 0, 0)")
    page.wait_for_function("() => true")  # let the violation event reach the test
    assert any("style-src" in violation for violation in violations), violations


def test_the_sign_in_and_account_pages_work_under_the_policy(page, violations) -> None:
    """Every page of signing in and of one's account, in each state it is drawn in (the
    walk signs in and enrols an authenticator through the pages, so their scripts ran)."""
    seen = walk_account_pages(page, lambda page: None)
    assert len(seen) >= 12 and violations == []


def test_the_api_reference_draws_every_operation_from_this_origin_under_the_policy(
    page, violations, lead, live_server
):
    schema = page.context.request.get(f"{live_server.url}/api/openapi.json").json()
    operations = sum(len(methods) for methods in schema["paths"].values())
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    log_in(page, "lead")

    visit(page, "/api/docs")
    blocks = page.locator("#swagger-ui .opblock")
    expect(blocks).to_have_count(operations)
    # Opening one draws its parameters (their descriptions' Markdown read as the schema
    # means it) and answers, with the stylesheet's icons.
    storing = blocks.filter(has_text="/api/projects/{project}/documents").first
    storing.locator(".opblock-summary").click()
    expect(storing.locator(".responses-wrapper")).to_be_visible()
    expect(storing.locator(".parameters code", has_text="/p/<slug>/")).to_be_visible()
    expect(page.locator("#swagger-ui .btn.authorize")).to_be_visible()

    foreign = [url for url in requested if not url.startswith((live_server.url, "data:"))]
    assert foreign == []
    assert violations == []
