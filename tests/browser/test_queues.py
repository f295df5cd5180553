"""Reviewers sharing queues in real Chromium: Next hands two people different cases and
leaving lets one go; two editors on one plan see each other and each other's decisions
without reloading; a note being typed survives another moderator's verdict; u and J."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from review.models import Entry, Lease
from review.views.presenters import ENTRY_CHUNK
from tests.browser.conftest import log_in, quiet
from tests.builders.cases_answers import make_case
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.users import user_in

# A poll comes every 4 seconds; what it brings shows within two of them.
LIVE = 10_000


def second_person(browser, live_server, django_user_model, username: str, group: str):
    user_in(django_user_model, username, group)
    context = browser.new_context(base_url=live_server.url)
    other = context.new_page()
    other.set_default_timeout(10_000)
    log_in(other, username)
    return other


def test_next_hands_two_moderators_different_cases_and_leaving_lets_one_go(
    page, browser, live_server, reviewers, django_user_model
) -> None:
    first, second = make_case("c-1"), make_case("c-2")
    log_in(page, "moderator")
    page.goto("/p/default/cases/")
    page.wait_for_load_state()
    page.keyboard.press("n")
    page.wait_for_url(f"**/cases/{first.pk}/")
    expect(page.locator("#presence")).to_contain_text("You hold this case", timeout=LIVE)

    other = second_person(browser, live_server, django_user_model, "moderator2", "Moderators")
    try:
        other.goto("/p/default/cases/")
        expect(other.locator("tbody tr").first).to_contain_text("moderator since")
        other.get_by_role("button", name="Next case").click()
        other.wait_for_url(f"**/cases/{second.pk}/")
        # The first moderator leaves: the beacon lets the case go at once. The second still
        # holds theirs (looked at from another tab, since leaving a page lets its case go).
        page.goto("/")
        tab = other.context.new_page()
        tab.goto("/p/default/cases/")
        expect(tab.locator("tbody tr").first).not_to_contain_text("moderator since")
        expect(tab.locator("tbody tr").nth(1)).to_contain_text("moderator2 since")
        assert list(Lease.objects.values_list("item_id", flat=True)) == [second.pk]
    finally:
        quiet(other)
        other.context.close()


def test_two_editors_see_each_other_and_each_other_s_decisions_in_place(
    page, browser, live_server, reviewers, django_user_model
) -> None:
    plan = make_plan(3)
    first = entries_of(plan)[0]
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/")
    other = second_person(browser, live_server, django_user_model, "editor2", "Editors")
    try:
        other.goto(f"/p/default/plans/{plan.pk}/")
        expect(page.locator("#presence")).to_contain_text("Also here: editor2", timeout=LIVE)
        expect(other.locator("#presence")).to_contain_text("Also here: editor", timeout=LIVE)

        expect(other.locator(f"#entry-{first.pk}")).to_be_focused()
        other.keyboard.press("a")
        expect(other.locator(f"#entry-{first.pk}")).to_have_class(re.compile(r"\bstate-accepted\b"))
        # The first editor never reloads: the row, its mark and the counters come by the poll.
        expect(page.locator(f"#entry-{first.pk}")).to_have_class(
            re.compile(r"\bstate-accepted\b"), timeout=LIVE
        )
        expect(page.locator(f"#mark-{first.pk}")).to_contain_text("accepted")
        expect(page.locator("#plan-counters")).to_contain_text("1 of")
    finally:
        quiet(other)
        other.context.close()


def test_a_decision_on_a_far_entry_comes_into_its_light_list_whole_and_can_be_decided_again(
    page, browser, live_server, reviewers, django_user_model
) -> None:
    # The first editor's page draws the last list light, and never draws it whole here (its
    # request is held): the other editor's accept comes by the poll as a whole row, whose
    # buttons work in the light list.
    plan = make_plan(ENTRY_CHUNK * 4 + 5, paragraphs=1)
    last = entries_of(plan)[-1]
    page.route("**/entries/list/**", lambda request: None)
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/")
    expect(page.locator(f"#entry-{last.pk}")).to_have_class(re.compile(r"\bentry-light\b"))
    other = second_person(browser, live_server, django_user_model, "editor2", "Editors")
    try:
        other.goto(f"/p/default/plans/{plan.pk}/?entry={last.pk}")
        expect(other.locator(f"#entry-{last.pk}")).to_be_focused()
        other.keyboard.press("a")
        expect(other.locator(f"#entry-{last.pk}")).to_have_class(re.compile(r"\bstate-accepted\b"))
    finally:
        quiet(other)
        other.context.close()
    row = page.locator(f"#entry-{last.pk}")
    expect(row).to_have_class(re.compile(r"\bstate-accepted\b"), timeout=LIVE)
    expect(row).not_to_have_class(re.compile(r"\bentry-light\b"))
    row.get_by_role("button", name="Reject", exact=True).click()
    expect(row).to_have_class(re.compile(r"\bstate-rejected\b"))
    assert Entry.objects.get(pk=last.pk).state == "rejected"


def test_a_note_being_typed_survives_another_moderator_s_verdict(
    page, browser, live_server, reviewers, django_user_model
) -> None:
    case = make_case("c-1")
    log_in(page, "moderator")
    page.goto(f"/p/default/cases/{case.pk}/")
    note = page.get_by_label("Note")
    note.fill("Reads as a threat to me.")
    other = second_person(browser, live_server, django_user_model, "moderator2", "Moderators")
    try:
        other.goto(f"/p/default/cases/{case.pk}/")
        other.get_by_label("Note").fill("Satire, clearly.")
        other.get_by_role("button", name="Overturn").click()
        expect(other.locator("#verdict-badge")).to_have_text("Verdict: Overturned")
    finally:
        quiet(other)
        other.context.close()
    expect(page.locator("#verdict-badge")).to_have_text("Verdict: Overturned", timeout=LIVE)
    expect(page.locator("#live-news")).to_contain_text("moderator2 decided this case")
    expect(note).to_have_value("Reads as a threat to me.")
    page.get_by_role("button", name="Uphold").click()
    expect(page.locator("#verdict")).to_contain_text("Someone decided first")
    expect(page.get_by_label("Note")).to_have_value("Reads as a threat to me.")


def test_u_takes_back_the_last_decision_from_anywhere_and_j_jumps_to_what_needs_a_person(
    page, reviewers
) -> None:
    plan = make_plan(4)
    first, second, third = entries_of(plan)[:3]
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/")
    expect(page.locator(f"#entry-{first.pk}")).to_be_focused()
    page.keyboard.press("a")
    expect(page.locator(f"#entry-{first.pk}")).to_have_class(re.compile(r"\bstate-accepted\b"))
    page.keyboard.press("j")  # accepting moved on to the second; j goes to the third
    expect(page.locator(f"#entry-{third.pk}")).to_be_focused()
    # Two entries on from the accepted one, u still takes the accept back, and goes there.
    page.keyboard.press("u")
    expect(page.locator(f"#entry-{first.pk}")).to_have_class(re.compile(r"\bstate-proposed\b"))
    expect(page.locator(f"#entry-{first.pk}")).to_be_focused()

    page.keyboard.press("j")
    page.keyboard.press("r")  # rejects the second, moves on to the third
    expect(page.locator(f"#entry-{second.pk}")).to_have_class(re.compile(r"\bstate-rejected\b"))
    page.keyboard.press("k")
    page.keyboard.press("k")
    expect(page.locator(f"#entry-{first.pk}")).to_be_focused()
    # J passes over the rejected second entry to the third, still proposed.
    page.keyboard.press("J")
    expect(page.locator(f"#entry-{third.pk}")).to_be_focused()
    page.keyboard.press("K")
    expect(page.locator(f"#entry-{first.pk}")).to_be_focused()


def test_a_moderator_upholds_and_takes_it_back_by_keyboard(page, reviewers) -> None:
    case = make_case("c-1")
    log_in(page, "moderator")
    page.goto(f"/p/default/cases/{case.pk}/")
    page.wait_for_load_state()
    page.keyboard.press("u")
    expect(page.locator("#verdict-badge")).to_have_text("Verdict: Upheld")
    page.keyboard.press("z")
    expect(page.locator("#verdict-badge")).to_have_text("Verdict: Proposed")


def test_the_entry_filter_and_find_in_the_document(page, reviewers) -> None:
    plan = make_plan(3)
    first, second, third, fourth = entries_of(plan)
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/")
    expect(page.locator("#doc-pane")).to_have_js_property("scrollTop", 0)
    page.keyboard.press("a")
    expect(page.locator(f"#entry-{first.pk}")).to_have_class(re.compile(r"\bstate-accepted\b"))
    page.get_by_label("State", exact=True).select_option("accepted")
    expect(page.locator(f"#entry-{first.pk}")).to_be_visible()
    for hidden in (second, third, fourth):
        expect(page.locator(f"#entry-{hidden.pk}")).to_be_hidden()
    page.get_by_label("State", exact=True).select_option("")
    expect(page.locator(f"#entry-{fourth.pk}")).to_be_visible()

    page.get_by_label("Find in the document").fill("section 3 says")
    page.get_by_role("button", name="Find next").click()
    selected = page.evaluate("() => window.getSelection().toString()")
    assert selected.lower() == "section 3 says"


def test_z_after_next_moved_on_undoes_the_verdict_left_behind(page, reviewers) -> None:
    first, second = make_case("c-1"), make_case("c-2")
    log_in(page, "moderator")
    page.goto("/p/default/cases/")
    page.wait_for_load_state()
    page.keyboard.press("n")
    page.wait_for_url(f"**/cases/{first.pk}/")
    page.locator("body").focus()
    page.keyboard.press("u")
    page.wait_for_url(f"**/cases/{second.pk}/")
    offer = page.get_by_role("button", name=re.compile("Undo your verdict on c-1"))
    expect(offer).to_be_visible()

    page.locator("body").focus()
    page.keyboard.press("z")
    page.wait_for_url(f"**/cases/{first.pk}/")
    expect(page.locator("#verdict-badge")).to_have_text("Verdict: Proposed")
    first.refresh_from_db()
    assert first.verdict == "proposed"
    # Back on c-1 and holding it again: deciding it moves on once more.
    expect(page.locator("#presence")).to_contain_text("You hold this case", timeout=LIVE)
    page.locator("body").focus()
    page.keyboard.press("u")
    page.wait_for_url(f"**/cases/{second.pk}/")
