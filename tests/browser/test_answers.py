"""A reader follows a citation to its reference; an editor publishes, in real Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

import review
from review.adapters.answers import import_answers
from review.models import Answer, Decision
from tests.browser.conftest import log_in
from tests.builders.cases_answers import make_answer, make_source


@pytest.fixture
def answer(reviewers):
    return make_answer(
        "a-900",
        question="How are fire compartments sized?",
        text=(
            "Compartments are limited by floor area [3]. Sprinklers double the limit [1].\n\n"
            "Walls between them must hold for sixty minutes [2]."
        ),
        sources=[make_source(n) for n in (1, 2, 3)],
    )


def test_a_reader_follows_a_citation_to_its_reference(page, answer):
    log_in(page, "reader")
    page.goto("/p/default/answers/")
    page.get_by_label("Search questions and answers").fill("compartments")
    page.get_by_role("button", name="Search").click()
    page.get_by_role("link", name="How are fire compartments sized?").click()

    page.locator("article").get_by_role("link", name="[2]").click()

    expect(page).to_have_url(re.compile(r"#ref-2$"))
    reference = page.locator("#ref-2")
    expect(reference).to_contain_text("Study number 1")  # the raw [1] is shown as [2]
    expect(reference).to_contain_text("was [1] in the raw text")
    assert reference.evaluate("el => el.matches(':target')")
    assert page.locator("#ref-1").evaluate("el => !el.matches(':target')")
    expect(reference).to_be_in_viewport()
    expect(page.get_by_role("button", name="Publish")).to_have_count(0)


def test_an_editor_publishes_an_answer_without_leaving_the_page(page, answer):
    log_in(page, "editor")
    page.goto(f"/p/default/answers/{answer.pk}/")

    page.get_by_role("button", name="Publish").click()

    panel = page.locator("#decision")
    expect(panel).to_contain_text("Published")
    expect(panel.get_by_role("button", name="Withdraw")).to_be_visible()
    # The button pressed was swapped away; the focus lands on the new state, not on the page.
    expect(panel.locator(".verdict-state")).to_be_focused()
    expect(page.locator("#state-badge")).to_have_text("State: published")
    answer.refresh_from_db()
    assert answer.state == Answer.State.PUBLISHED
    assert Decision.objects.filter(action="answer.publish", object_id=str(answer.pk)).exists()


def test_publishing_an_answer_someone_withdrew_first_says_so_and_what_to_do(
    page, browser, live_server, answer
):
    other = browser.new_context(base_url=live_server.url)
    try:
        first = other.new_page()
        log_in(first, "editor")
        log_in(page, "editor")
        first.goto(f"/p/default/answers/{answer.pk}/")
        page.goto(f"/p/default/answers/{answer.pk}/")
        first.get_by_role("button", name="Withdraw").click()
        expect(first.locator("#decision .verdict-state")).to_contain_text("Withdrawn")
    finally:
        other.close()

    page.get_by_role("button", name="Publish").click()
    alert = page.locator("#decision-stale")
    expect(alert).to_be_focused()
    expect(alert).to_contain_text("it is now withdrawn. Your decision was not saved.")
    expect(alert).to_contain_text("Publish or withdraw again if you still want to.")
    answer.refresh_from_db()
    assert answer.state == Answer.State.WITHDRAWN


def test_a_reader_tells_the_citations_finalization_added_from_the_models_own(page, reviewers):
    # The demo's answer whose middle paragraph cited only phantoms and whose neighbour's
    # source was put there instead.
    demo = Path(review.__file__).parent / "demo_data" / "answers.jsonl"
    (line,) = [text for text in demo.read_text().splitlines() if '"a-124"' in text]
    import_answers([line])
    answer = Answer.objects.get(answer_id="a-124")
    log_in(page, "reader")
    page.goto(f"/p/default/answers/{answer.pk}/")

    body = page.get_by_label("Finalized answer")
    replaced = body.get_by_role("link", name="[1], citation replaced, unverified")
    expect(replaced).to_be_visible()
    expect(replaced).to_have_class(re.compile(r"\bcite-replaced\b"))
    # The model's own [1] keeps its plain name and look.
    own = body.get_by_role("link", name="[1]", exact=True).first
    expect(own).not_to_have_class(re.compile(r"cite-(added|replaced)"))
    assert own.evaluate("el => getComputedStyle(el).borderTopStyle") == "none"
    assert replaced.evaluate("el => getComputedStyle(el).borderTopStyle") == "dotted"
    expect(page.locator("#cite-legend")).to_contain_text("citation replaced, unverified")
    first_change = page.locator("#changes-heading ~ h3").first
    expect(first_change).to_have_text("Citations replaced, unverified (1)")
