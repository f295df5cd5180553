"""Every page through axe-core (shipped by the axe-playwright-python package) in real
Chromium: no serious or critical violation, text contrast (axe's color-contrast rule, 4.5:1
for body text) included."""

from __future__ import annotations

import pytest

from tests.browser.conftest import log_in
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import make_plan
from tests.builders.users import user_in

SERIOUS = {"serious", "critical"}


def violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    page.wait_for_load_state()
    found = Axe().run(page).response["violations"]
    return [
        f"{item['id']} ({item['impact']}): {node['target']} {node.get('failureSummary', '')}"
        for item in found
        if item["impact"] in SERIOUS
        for node in item["nodes"]
    ]


@pytest.fixture
def everything(reviewers, django_user_model):
    user_in(django_user_model, "lena", "Leads")
    plan = make_plan(3)
    case = make_case("c-1012")
    answer = make_answer("a-114")
    return {
        "plan": plan,
        "pages": [
            "/",
            "/plans/",
            f"/plans/{plan.pk}/",
            f"/plans/{plan.pk}/history/",
            f"/plans/{plan.pk}/accept-rule/?rule=rule:heading",
            "/plans/next/",
            "/cases/",
            f"/cases/{case.pk}/",
            "/cases/next/",
            "/answers/",
            f"/answers/{answer.pk}/",
            "/answers/next/",
        ],
    }


def test_the_login_page_has_no_serious_accessibility_violation(page, reviewers) -> None:
    page.goto("/accounts/login/")
    assert violations(page) == []


@pytest.mark.parametrize("username", ["editor", "moderator", "reader"])
def test_every_page_has_no_serious_accessibility_violation(page, everything, username) -> None:
    log_in(page, username)
    problems = {}
    for path in everything["pages"]:
        page.goto(path)
        if found := violations(page):
            problems[path] = found
    assert problems == {}


def test_the_progress_page_has_no_serious_accessibility_violation(page, everything) -> None:
    log_in(page, "lena")
    page.goto("/progress/")
    assert violations(page) == []
