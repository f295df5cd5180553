"""A moderator audits a flagged case in real Chromium; hostile rationale text stays text."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from review.models import Case, Decision
from tests.browser.conftest import log_in
from tests.builders.cases_answers import RULE_MATCH, make_case

HISTORY = ("user_history", "success", "Two earlier removals", 230, {"removals": 2})
TIMEOUT = ("toxicity_classifier", "timeout", "Timed out", 5000, None)


def has_class(name: str) -> re.Pattern:
    return re.compile(rf"(^|\s){name}(\s|$)")


@pytest.fixture
def flagged_case(reviewers):
    return make_case(
        "c-900",
        evidence=(RULE_MATCH, HISTORY, TIMEOUT),
        rationale=(
            "The post tells readers to report a named user until she leaves [ev-1]. "
            "The author was removed twice before for the same thing [ev-2]. "
            "The classifier found the post highly toxic and targeted [ev-3]."
        ),
    )


def test_a_moderator_walks_the_sentences_by_keyboard_and_overturns_with_a_note(page, flagged_case):
    log_in(page, "moderator")
    page.goto("/p/default/cases/")
    page.get_by_role("link", name="c-900").click()
    page.wait_for_url(f"**/cases/{flagged_case.pk}/")
    page.wait_for_load_state()  # the keys listen once the page's script has run
    sentences = page.locator("[data-sentence]")
    expect(sentences).to_have_count(3)

    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("j")
    expect(sentences.nth(2)).to_be_focused()
    expect(sentences.nth(2)).to_contain_text("cites non-success evidence: ev-3")
    page.keyboard.press("k")
    expect(sentences.nth(1)).to_be_focused()
    expect(page.locator("#ev-2")).to_have_class(has_class("is-cited-by-current"))

    # Tab from the current sentence reaches its citation, which lights up its evidence.
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="[ev-2]")).to_be_focused()
    expect(page.locator("#ev-2")).to_have_class(has_class("is-highlighted"))

    page.keyboard.press("Escape")
    page.keyboard.press("o")
    note = page.get_by_label("Note")
    expect(note).to_be_focused()
    expect(page.locator("[data-note-hint]")).to_contain_text("Overturn needs a note")
    page.keyboard.type("The earlier removals were for other things.")
    page.keyboard.press("Control+Enter")

    panel = page.locator("#verdict")
    expect(panel).to_contain_text("Overturned")
    expect(panel).to_contain_text("by moderator")
    expect(panel).to_contain_text("Note: The earlier removals were for other things.")
    # The keyboard leaves the note once the verdict lands: the next key decides, not types.
    expect(panel.locator(".verdict-state")).to_be_focused()
    expect(page.locator("#verdict-badge")).to_have_text("Verdict: Overturned")
    flagged_case.refresh_from_db()
    assert flagged_case.verdict == Case.Verdict.OVERTURNED
    decision = Decision.objects.get(object_type="case", object_id=str(flagged_case.pk))
    assert (decision.action, decision.note) == (
        "case.overturn",
        "The earlier removals were for other things.",
    )
    page.keyboard.press("u")
    expect(panel.locator(".verdict-state")).to_contain_text("Upheld")
    assert page.get_by_label("Note").input_value() == ""


def test_a_sentence_reached_from_the_evidence_table_is_where_the_keys_walk_on_from(
    page, flagged_case
):
    log_in(page, "reader")
    page.goto(f"/p/default/cases/{flagged_case.pk}/")
    page.wait_for_load_state()
    sentences = page.locator("[data-sentence]")

    page.get_by_role("link", name="sentence 2").click()
    expect(sentences.nth(1)).to_be_focused()
    expect(sentences.nth(1)).to_have_class(has_class("is-current"))
    expect(page.locator("#ev-2")).to_have_class(has_class("is-cited-by-current"))
    page.keyboard.press("j")
    expect(sentences.nth(2)).to_be_focused()


def test_a_verdict_someone_else_gave_first_takes_the_focus_and_keeps_the_note(
    page, browser, live_server, flagged_case
):
    other = browser.new_context(base_url=live_server.url)
    try:
        first = other.new_page()
        log_in(first, "moderator")
        log_in(page, "moderator")
        first.goto(f"/p/default/cases/{flagged_case.pk}/")
        page.goto(f"/p/default/cases/{flagged_case.pk}/")
        first.get_by_role("button", name="Uphold").click()
        expect(first.locator("#verdict .verdict-state")).to_contain_text("Upheld")
    finally:
        other.close()

    page.get_by_label("Note").fill("The earlier removals were for other things.")
    page.get_by_role("button", name="Overturn").click()
    alert = page.locator("#verdict-stale")
    expect(alert).to_be_focused()
    expect(alert).to_contain_text("it is now upheld. Your decision was not saved.")
    expect(alert).to_contain_text("Decide again if you still want to.")
    expect(page.get_by_label("Note")).to_have_value("The earlier removals were for other things.")
    flagged_case.refresh_from_db()
    assert flagged_case.verdict == Case.Verdict.UPHELD


def test_markup_in_a_rationale_is_shown_as_text_and_never_runs(page, reviewers):
    case = make_case(
        "c-901",
        text='<script>window.__xss = "content"</script>',
        author="<img src=x onerror=\"window.__xss = 'author'\">",
        rationale=(
            'It says <script>window.__xss = "rationale"; alert(1)</script> in the post [ev-1]. '
            "It adds <img src=x onerror=\"window.__xss = 'img'; alert(2)\"> as well [ev-1]."
        ),
    )
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    log_in(page, "reader")

    page.goto(f"/p/default/cases/{case.pk}/")

    expect(page.locator("[data-sentence]").first).to_contain_text(
        '<script>window.__xss = "rationale"; alert(1)</script>'
    )
    expect(page.locator("[data-sentence]").nth(1)).to_contain_text("<img src=x onerror=")
    expect(page.locator(".flagged-text")).to_have_text('<script>window.__xss = "content"</script>')
    assert page.evaluate("window.__xss") is None
    assert page.locator("main script, main img").count() == 0
    assert dialogs == []
