"""An editor reads a rule's record on the insights page, and again before accepting its
entries unseen, in real Chromium."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from review.models import Decision, Entry
from tests.browser.conftest import log_in
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.plans import update_entries


def test_an_editor_reads_a_rules_record_and_confirms_twice_before_accepting_it_unseen(
    page, reviewers
) -> None:
    # Two documents' entries of rule:heading decided (3 of 4 accepted), and a new plan.
    for title in ("First guide", "Second guide"):
        decided = make_plan(1, name=f"{title}.md", title=title)
        entries = entries_of(decided)
        update_entries(Entry.objects.filter(pk=entries[0].pk), state=Entry.State.ACCEPTED)
        update_entries(
            Entry.objects.filter(pk=entries[1].pk),
            state=Entry.State.ACCEPTED if title == "First guide" else Entry.State.REJECTED,
        )
    plan = make_plan(3)
    log_in(page, "editor")

    page.get_by_role("link", name="Insights").click()
    row = page.locator('tr[data-rule="rule:heading"]')
    expect(row).to_contain_text("3 of 4")
    expect(row).to_contain_text("on 2 documents")
    expect(page.get_by_role("img", name=re.compile("accepted as proposed"))).to_be_visible()

    page.goto(f"/p/default/plans/{plan.pk}/accept-rule/?rule=rule:heading")
    record = page.locator("#rule-record")
    expect(record).to_contain_text("3 of 4")
    expect(record).to_contain_text("Not validated")
    accept = page.get_by_role("button", name=re.compile(r"^Accept \d+ entries"))
    accept.click()
    # The browser holds the form until the second confirmation is given.
    assert not Decision.objects.exists()
    page.get_by_label(re.compile("is not validated")).check()
    accept.click()
    expect(page.locator(".message")).to_contain_text("Accepted")
    assert Decision.objects.filter(action="entry.accept").count() == len(entries_of(plan))
    # What was accepted unseen does not count: the record is as it was, with them beside it.
    page.goto("/p/default/insights/")
    page.get_by_role("combobox", name="Rule").select_option("rule:heading")
    page.get_by_role("button", name="Show").click()
    row = page.locator('tr[data-rule="rule:heading"]')
    expect(row).to_contain_text("3 of 4")
    expect(row).to_contain_text(f"{len(entries_of(plan))} bulk-accepted, not counted")
    assert "rule=rule%3Aheading" in page.url
