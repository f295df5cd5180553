"""An editor uploads a revised document, sees which entries were carried and which need them,
settles those by looking (the anchor's word diff, and a span set by selecting text), adjudicates
and downloads an export that replays on the new bytes, while the old export is unchanged."""

from __future__ import annotations

import json
import re

from playwright.sync_api import expect

from grounding.segmentation import parse_segmentation_plan, slice_segments
from review.actions.plan_reviews import adjudicate_plan
from review.adapters.plans import export_plan
from review.management.commands.demo import DEMO_DATA
from review.models import Document, Entry, Plan
from tests.browser.conftest import log_in
from tests.builders.revisions import ADDED, CHANGED, NAME, SECOND, decided_plan, first_plan, revise

REVISED = DEMO_DATA / "byggteknisk-brann-revisjon-2.md"


def row(page, entry: Entry):
    return page.locator(f"#entry-{entry.pk}")


def expect_state(page, entry: Entry, state: str) -> None:
    expect(row(page, entry)).to_have_class(re.compile(rf"\bstate-{state}\b"))


def select_span_text(page, entry: Entry) -> None:
    """Select, with the mouse's own API, the text drawn for the entry's span (its blank lines
    at the end are drawn outside it)."""
    page.evaluate(
        """(id) => {
            const text = document.querySelector("#seg-" + id + " .seg-text").firstChild;
            const range = document.createRange();
            range.setStart(text, 0);
            range.setEnd(text, text.length);
            const selection = window.getSelection();
            selection.removeAllRanges();
            selection.addRange(range);
        }""",
        entry.pk,
    )


def test_an_editor_carries_a_plan_to_a_new_revision_and_settles_it_by_looking(
    page, reviewers
) -> None:
    editor = reviewers["editor"]
    first = decided_plan(editor)
    first.refresh_from_db()
    adjudicate_plan(first, actor=editor, expected_version=first.version)
    old_export = export_plan(first)

    log_in(page, "editor")
    page.goto(f"/p/default/plans/{first.pk}/")
    page.get_by_role("link", name="New revision…").click()
    page.get_by_label("Revised document").set_input_files(str(REVISED))
    page.get_by_role("button", name="Upload revision").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("revision 2")
    expect(page.locator(".message")).to_contain_text("entries need you")
    # The change by paragraph: the rewritten requirement, word by word.
    expect(page.locator(".para-changed del", has_text="90")).to_be_visible()

    revision = Document.objects.get(revision_of=first.document)
    carried = Plan.objects.get(document=revision)
    entries = list(carried.entries.order_by("position"))
    need = [entry for entry in entries if entry.needs_a_person]
    kept = [entry for entry in entries if entry.state != Entry.State.PROPOSED]
    assert need and kept
    page.get_by_role("link", name=str(carried.pk), exact=True).click()
    expect(page.locator("#need-you")).to_contain_text(f"{len(need)} of {len(entries)} entries")
    for entry in kept:
        expect_state(page, entry, entry.state)
        expect(row(page, entry)).to_contain_text("Carried from revision 1")

    # n and p jump between the entries that need the editor, in order.
    assert not entries[0].needs_a_person, "the first section was untouched and kept"
    page.goto(f"/p/default/plans/{carried.pk}/?entry={entries[0].pk}")
    page.keyboard.press("J")
    expect(row(page, need[0])).to_be_focused()
    page.keyboard.press("K")
    expect(page.locator("#announce")).to_have_text("No entry before this one needs you.")
    page.keyboard.press("J")
    expect(row(page, need[1])).to_be_focused()

    # The new section: its span set from a text selection, previewed before saving.
    added = next(entry for entry in entries if entry.title == ADDED)
    page.goto(f"/p/default/plans/{carried.pk}/?entry={added.pk}")
    select_span_text(page, added)
    page.keyboard.press("e")
    body = SECOND.decode()[added.span_start : added.span_end].rstrip()
    expect(page.get_by_label("Start")).to_have_value(str(added.span_start))
    expect(page.get_by_label("End")).to_have_value(str(added.span_start + len(body)))
    expect(row(page, added).locator("[data-span-preview]")).to_contain_text("New span")
    page.get_by_role("button", name="Save edit").click()
    expect_state(page, added, "edited")

    # Each doubtful anchor: look at what it quoted against the text there, then confirm.
    changed = next(entry for entry in entries if entry.title == CHANGED)
    expect(row(page, changed).locator(".anchor-doubt ins", has_text="60")).to_be_visible()
    expect(row(page, changed)).to_contain_text("Suggestion from revision 1: it was accepted")
    for entry in need:
        if entry.pk == added.pk:
            continue
        if entry.anchor_unsettled:
            expect(row(page, entry).locator(".anchor-doubt")).to_be_visible()
            row(page, entry).get_by_role("button", name=re.compile("^Confirm anchor")).click()
            expect(row(page, entry).locator(".anchor-doubt")).to_have_count(0)
        row(page, entry).get_by_role("button", name=re.compile("^Accept")).click()
        expect_state(page, entry, "accepted")

    expect(page.locator("#need-you")).to_contain_text(f"0 of {len(entries)} entries")
    page.get_by_role("button", name="Adjudicate plan").click()
    with page.expect_download() as download:
        page.get_by_role("link", name="Download adjudicated JSON").click()
    exported = download.value.path().read_text(encoding="utf-8")

    text = SECOND.decode()
    replayed = slice_segments(text, parse_segmentation_plan(json.loads(exported), text))
    assert json.loads(exported)["source_sha256"] == revision.sha256
    assert any(entry.title == ADDED for entry, _ in replayed)
    first.refresh_from_db()
    assert export_plan(first) == old_export


def test_an_editor_on_a_superseded_plan_is_sent_to_the_current_one_by_its_banner_and_by_next(
    page, reviewers
) -> None:
    editor = reviewers["editor"]
    first = first_plan()
    carried = revise(first, editor).plan

    log_in(page, "editor")
    page.goto(f"/p/default/plans/{first.pk}/")
    banner = page.get_by_role("note").filter(has_text="This plan is superseded")
    expect(banner).to_contain_text("(revision 2)")
    expect(page.get_by_role("button", name="Adjudicate plan")).to_have_count(0)
    banner.get_by_role("link", name=f"plan {carried.pk}", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"{NAME} (revision 2)")
    expect(page.get_by_role("note").filter(has_text="superseded")).to_have_count(0)

    page.goto(f"/p/default/plans/{first.pk}/")
    page.keyboard.press("n")
    page.wait_for_url(f"**/plans/{carried.pk}/")
