"""An editor adjudicates a whole plan with the keyboard alone and downloads the export, which
replays; takes an adjudicated plan as W3C Web Annotations, and as a Label Studio task, and
imports each back as a proposal; a reader sees the plan but no decision buttons."""

from __future__ import annotations

import json
import re

from playwright.sync_api import expect

from grounding.segmentation import parse_segmentation_plan, slice_segments
from review.actions import entries as entry_actions
from review.actions.plan_reviews import adjudicate_plan
from review.adapters.plans import export_plan
from review.models import Decision, Entry, Plan
from review.views.presenters import ENTRY_CHUNK
from tests.browser.conftest import log_in
from tests.browser.test_accessibility import violations
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.plans import update_entries


def row(page, entry):
    return page.locator(f"#entry-{entry.pk}")


def expect_state(page, entry, state: str) -> None:
    expect(row(page, entry)).to_have_class(re.compile(rf"\bstate-{state}\b"))


def test_an_editor_adjudicates_a_plan_with_the_keyboard_and_the_export_replays(
    page, reviewers
) -> None:
    plan = make_plan(4)
    first, second, third, fourth, fifth = entries_of(plan)
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/")
    expect(row(page, first)).to_be_focused()

    page.keyboard.press("?")
    expect(page.get_by_role("group", name="Keyboard keys")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("group", name="Keyboard keys")).to_be_hidden()
    expect(row(page, first)).to_be_focused()

    page.keyboard.press("a")
    expect_state(page, first, "accepted")
    expect(row(page, second)).to_be_focused()
    page.keyboard.press("m")
    expect_state(page, second, "merged")
    page.keyboard.press("r")
    expect_state(page, third, "rejected")
    expect(page.locator(f"#mark-{third.pk}")).to_have_text("3 ✕ rejected")
    struck = page.locator(f"#seg-{third.pk} .seg-text")
    expect(struck).to_have_css("text-decoration-line", "line-through")

    # Back to the rejected entry, take the rejection back, and accept it instead.
    page.keyboard.press("k")
    expect(row(page, third)).to_be_focused()
    # The reason was about the entry left behind; it is not read out again for this one.
    expect(page.locator("#announce")).to_have_text("")
    page.keyboard.press("u")
    expect_state(page, third, "proposed")
    page.keyboard.press("a")
    expect_state(page, third, "accepted")

    # Edit the fourth entry's title: the form takes the keys until it is saved.
    page.keyboard.press("e")
    title = page.get_by_label("Title")
    expect(title).to_be_focused()
    title.press_sequentially("Fire safety, renamed")
    page.keyboard.press("Enter")
    expect_state(page, fourth, "edited")
    expect(row(page, fourth)).to_contain_text("Fire safety, renamed")

    page.keyboard.press("j")
    page.keyboard.press("a")
    expect_state(page, fifth, "accepted")
    adjudicate = page.get_by_role("button", name="Adjudicate plan")
    expect(adjudicate).to_be_focused()
    page.keyboard.press("Enter")

    download_link = page.get_by_role("link", name="Download adjudicated JSON")
    expect(download_link).to_be_focused()
    with page.expect_download() as download:
        page.keyboard.press("Enter")
    exported = download.value.path().read_text(encoding="utf-8")

    plan = Plan.objects.get(pk=plan.pk)
    assert plan.status == Plan.Status.ADJUDICATED
    assert exported == export_plan(plan)
    text = plan.document.text
    replayed = slice_segments(text, parse_segmentation_plan(json.loads(exported), text))
    assert [entry.title for entry, _ in replayed] == [
        first.title,
        third.title,
        "Fire safety, renamed",
        fifth.title,
    ]
    # The merged second entry's text joined the first.
    assert replayed[0][1] == text[first.span_start : second.span_end]
    actions = list(Decision.objects.order_by("pk").values_list("action", flat=True))
    assert actions == [
        "entry.accept",
        "entry.merge",
        "entry.reject",
        "entry.undo",
        "entry.accept",
        "entry.edit",
        "entry.accept",
        "plan.adjudicate",
    ]


def test_an_editor_imports_an_adjudicated_plans_web_annotations_back_as_a_proposal(
    page, reviewers, tmp_path
) -> None:
    editor = reviewers["editor"]
    plan = make_plan(3)
    for entry in entries_of(plan):
        entry_actions.accept_entry(entry, actor=editor, expected_version=entry.version)
    plan.refresh_from_db()
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)
    log_in(page, "editor")

    page.goto(f"/p/default/plans/{plan.pk}/")
    assert violations(page) == []
    with page.expect_download() as download:
        page.get_by_role("link", name="As W3C Web Annotations").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    page.goto("/p/default/plans/")
    form = page.locator("form", has=page.get_by_role("button", name="Import plan"))
    form.get_by_label("Stored document").select_option(str(plan.document_id))
    form.get_by_label("W3C Web Annotation collection").check()
    form.locator("input[type=file]").set_input_files(saved)
    form.get_by_role("button", name="Import plan").click()

    expect(page.get_by_text("Imported a plan for")).to_be_visible()
    proposal = Plan.objects.exclude(pk=plan.pk).get()
    assert page.url.endswith(f"/p/default/plans/{proposal.pk}/")
    assert saved.name == f"handbook-plan-{plan.pk}.jsonld"
    placed = [(e.path, e.span_start, e.span_end, e.state) for e in entries_of(proposal)]
    assert placed == [(e.path, e.span_start, e.span_end, Entry.State.PROPOSED)
                      for e in entries_of(plan)]  # fmt: skip


def test_an_editor_takes_a_plan_to_label_studio_and_imports_the_task_back_as_a_proposal(
    page, reviewers, tmp_path
) -> None:
    editor = reviewers["editor"]
    plan = make_plan(3)
    for entry in entries_of(plan):
        entry_actions.accept_entry(entry, actor=editor, expected_version=entry.version)
    plan.refresh_from_db()
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)
    log_in(page, "editor")

    page.goto(f"/p/default/plans/{plan.pk}/")
    with page.expect_download() as download:
        page.get_by_role("link", name="As a Label Studio task").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    page.goto("/p/default/plans/")
    form = page.locator("form", has=page.get_by_role("button", name="Import plan"))
    form.get_by_label("Stored document").select_option(str(plan.document_id))
    form.get_by_label("Label Studio JSON export").check()
    assert violations(page) == []
    form.locator("input[type=file]").set_input_files(saved)
    form.get_by_role("button", name="Import plan").click()

    expect(page.get_by_text("Imported a plan for")).to_be_visible()
    proposal = Plan.objects.exclude(pk=plan.pk).get()
    assert page.url.endswith(f"/p/default/plans/{proposal.pk}/")
    assert saved.name == f"handbook-plan-{plan.pk}-ls.json"
    placed = [(e.path, e.title, e.span_start, e.span_end, e.state) for e in entries_of(proposal)]
    assert placed == [(e.path, e.title, e.span_start, e.span_end, Entry.State.PROPOSED)
                      for e in entries_of(plan)]  # fmt: skip


def test_a_reader_sees_the_plan_but_no_decision_buttons(page, reviewers) -> None:
    plan = make_plan(2)
    first, entry = entries_of(plan)[:2]
    first = Entry.objects.select_related("plan").get(pk=first.pk)
    entry_actions.accept_entry(first, actor=reviewers["editor"], expected_version=first.version)
    log_in(page, "reader")
    page.goto(f"/p/default/plans/{plan.pk}/")
    # The page opens on the first entry still proposed, in both panes.
    expect(row(page, entry)).to_have_class(re.compile(r"\bis-current\b"))
    expect(page.locator(f"#seg-{entry.pk}")).to_have_class(re.compile(r"\bis-current\b"))
    for name in ("Accept", "Reject", "Merge into previous", "Edit", "Undo", "Adjudicate plan"):
        expect(page.get_by_role("button", name=name, exact=True)).to_have_count(0)
        expect(page.get_by_role("link", name=name, exact=True)).to_have_count(0)
    page.keyboard.press("a")
    expect(page.locator("#announce")).to_have_text("Accept is not available for this entry.")
    assert Decision.objects.count() == 1


def test_with_javascript_off_an_editor_still_decides_and_edits(
    browser, live_server, reviewers
) -> None:
    plan = make_plan(2)
    first, second, third = entries_of(plan)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        log_in(page, "editor")
        page.goto(f"/p/default/plans/{plan.pk}/")
        row(page, first).get_by_role("button", name="Accept").click()
        expect_state(page, first, "accepted")
        row(page, second).get_by_role("button", name="Merge into previous").click()
        expect_state(page, second, "merged")
        row(page, second).get_by_role("button", name="Undo").click()
        expect_state(page, second, "proposed")

        row(page, third).get_by_role("link", name="Edit").click()
        page.get_by_label("Title").fill("Renamed without scripts")
        page.get_by_role("button", name="Save edit").click()
        expect_state(page, third, "edited")
        expect(row(page, third)).to_contain_text("Renamed without scripts")
    finally:
        context.close()
    assert Entry.objects.get(pk=second.pk).state == "proposed"


def test_a_refused_keyboard_decision_brings_the_editor_back_to_the_entry_and_says_why(
    page, reviewers
) -> None:
    plan = make_plan(3)
    first, second, third = entries_of(plan)[:3]
    first = Entry.objects.select_related("plan").get(pk=first.pk)
    entry_actions.reject_entry(first, actor=reviewers["editor"], expected_version=first.version)
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/?entry={second.pk}")
    expect(row(page, second)).to_be_focused()

    # "m" moves on at once; the server refuses (the entry before is rejected), so the
    # keyboard goes back to the refused entry and the live region reads out the reason.
    page.keyboard.press("m")
    expect(row(page, second)).to_be_focused()
    expect(row(page, second).locator(".row-message")).to_contain_text("is rejected")
    expect(page.locator("#announce")).to_contain_text("is rejected")
    expect_state(page, second, "proposed")
    page.keyboard.press("a")
    expect_state(page, second, "accepted")
    expect(row(page, third)).to_be_focused()
    # The reason was about the entry left behind; it is not read out again for this one.
    expect(page.locator("#announce")).to_have_text("")


def test_an_edit_that_comes_back_with_a_question_or_an_error_puts_the_keyboard_there(
    page, reviewers
) -> None:
    plan = make_plan(2)
    entry = entries_of(plan)[1]
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/?entry={entry.pk}")
    page.keyboard.press("e")
    expect(page.get_by_label("Title")).to_be_focused()

    path = page.get_by_label("Path")
    path.fill("Not A Path!")
    path.press("Enter")
    expect(path).to_be_focused()
    expect(path).to_have_attribute("aria-invalid", "true")
    expect(page.locator(f"#edit-path-error-{entry.pk}")).to_contain_text("Not A Path!")

    path.fill(entry.path)
    page.get_by_label("Start").fill(str(entry.span_start + 3))
    page.get_by_label("Start").press("Enter")
    # A start inside a paragraph: the nearest boundaries are offered, and the first has focus.
    expect(row(page, entry).locator(".offers button").first).to_be_focused()
    page.keyboard.press("Enter")
    expect(row(page, entry)).not_to_have_class(re.compile(r"\bediting\b"))
    assert Decision.objects.filter(action__startswith="entry.").count() == 1


def test_on_a_long_plan_the_keys_cross_from_one_list_of_entries_to_the_next(
    page, reviewers
) -> None:
    # The entries are drawn in lists of ENTRY_CHUNK, each laid out only when in view; j and k,
    # the decision keys and the undo key work across them, and the far span scrolls into view.
    plan = make_plan(ENTRY_CHUNK + 5)
    entries = entries_of(plan)
    last_of_first, first_of_second = entries[ENTRY_CHUNK - 1], entries[ENTRY_CHUNK]
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/?entry={last_of_first.pk}")
    expect(row(page, last_of_first)).to_be_focused()
    page.keyboard.press("j")
    expect(row(page, first_of_second)).to_be_focused()
    expect(page.locator(f"#seg-{first_of_second.pk}")).to_be_in_viewport()
    accept = row(page, first_of_second).get_by_role("button", name="Accept", exact=True)
    expect(accept).to_be_visible()
    page.keyboard.press("a")
    expect_state(page, first_of_second, "accepted")
    expect(page.locator(f"#mark-{first_of_second.pk}")).to_have_class(
        re.compile(r"\bstate-accepted\b")
    )
    page.keyboard.press("k")
    page.keyboard.press("k")
    expect(row(page, last_of_first)).to_be_focused()
    page.keyboard.press("u")
    expect_state(page, first_of_second, "proposed")


def test_far_lists_of_a_long_plan_are_drawn_whole_as_they_come_into_view_or_a_key_needs_them(
    page, reviewers
) -> None:
    # The page draws the lists near the current entry whole and the others light; scrolling to
    # a light list draws it whole, and a key on a light row waits for its list.
    plan = make_plan(ENTRY_CHUNK * 5 + 10, paragraphs=1)
    entries = entries_of(plan)
    middle, last = entries[ENTRY_CHUNK * 3], entries[-1]
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/")
    expect(row(page, entries[0])).to_be_focused()
    for far in (middle, last):
        expect(row(page, far)).to_have_class(re.compile(r"\bentry-light\b"))
        expect(row(page, far).get_by_role("button", name="Accept", exact=True)).to_have_count(0)

    row(page, middle).scroll_into_view_if_needed()
    expect(row(page, middle)).not_to_have_class(re.compile(r"\bentry-light\b"))
    expect(row(page, middle).get_by_role("button", name="Accept", exact=True)).to_be_visible()

    # A key pressed while the row's list is still on its way waits for it, then decides.
    held = []
    page.route("**/entries/list/**", lambda request: held.append(request))
    page.goto(f"/p/default/plans/{plan.pk}/")
    expect(row(page, last)).to_have_class(re.compile(r"\bentry-light\b"))
    page.evaluate("window.stillHere = true")
    row(page, last).locator(".entry-title a").click()
    expect(row(page, last)).to_have_class(re.compile(r"\bis-current\b"))
    page.keyboard.press("a")
    expect(row(page, last)).to_have_class(re.compile(r"\bentry-light\b"))
    assert held and Entry.objects.get(pk=last.pk).state == "proposed"
    for request in held:
        request.continue_()
    page.unroute("**/entries/list/**")
    expect_state(page, last, "accepted")
    expect(row(page, last)).not_to_have_class(re.compile(r"\bentry-light\b"))
    assert Entry.objects.get(pk=last.pk).state == "accepted"
    # The light title, which without JavaScript opens the page anew at the entry, did not.
    assert page.evaluate("window.stillHere === true")


def test_the_entry_filter_hides_rows_in_place_and_a_decided_row_follows_it(page, reviewers) -> None:
    plan = make_plan(4)
    first, second, third, fourth = entries_of(plan)[:4]
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/?entry={second.pk}")
    page.locator("#filter-state").select_option("proposed")
    expect(page.locator("#announce")).to_have_text(f"{len(entries_of(plan))} entries shown.")
    row(page, second).click()
    page.keyboard.press("a")
    expect_state(page, second, "accepted")
    # Redrawn as accepted, the row no longer passes the filter; the keys pass it by.
    expect(row(page, second)).to_be_hidden()
    expect(row(page, third)).to_be_focused()
    page.keyboard.press("k")
    expect(row(page, first)).to_be_focused()
    page.keyboard.press("j")
    expect(row(page, third)).to_be_focused()
    expect(row(page, fourth)).to_be_visible()


def test_a_on_a_fuzzy_entry_stays_there_and_asks_so_c_confirms_that_anchor(page, reviewers) -> None:
    plan = make_plan(2)
    first, fuzzy, third = entries_of(plan)[:3]
    update_entries(Entry.objects.filter(pk=fuzzy.pk), anchor_status="fuzzy")
    log_in(page, "editor")
    page.goto(f"/p/default/plans/{plan.pk}/?entry={fuzzy.pk}")
    expect(row(page, fuzzy)).to_be_focused()

    page.keyboard.press("a")
    expect_state(page, fuzzy, "accepted")
    expect(row(page, fuzzy).locator(".row-message")).to_contain_text("nobody has confirmed it")
    expect(row(page, fuzzy)).to_be_focused()
    page.keyboard.press("c")
    expect(row(page, fuzzy)).to_contain_text("confirmed by an editor")

    settled = Entry.objects.get(pk=fuzzy.pk)
    assert (settled.state, settled.anchor_confirmed) == ("accepted", True)
    assert Entry.objects.get(pk=third.pk).state == "proposed"
    actions = list(Decision.objects.order_by("pk").values_list("action", flat=True))
    assert actions == ["entry.accept", "entry.confirm_anchor"]
