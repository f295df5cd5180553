"""One section, one entry, through the real doors: a revision whose section kept its heading
and had its body rewritten, uploaded as a person uploads it, carries that section as one
proposed entry over heading and new body with the earlier decision beside it, and the
proposer offers nothing for the body a carried entry claims."""

from __future__ import annotations

from collections import Counter

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from review.actions.entries import accept_entry
from review.adapters.plans import propose_document
from review.decisions import decisions_on
from review.models import Document, Entry, Plan
from tests.builders.revisions import CHANGED, FIRST, decided_plan, revise
from tests.builders.sections import NEW_BODY, probe, rewrite_body
from tests.builders.urls import url_of

pytestmark = pytest.mark.django_db
State = Entry.State


def accept_all(plan: Plan, actor) -> Plan:
    for entry in plan.entries.order_by("position"):
        accept_entry(entry, actor=actor, expected_version=entry.version)
    return plan


def assert_one_proposed_entry_with_the_earlier_decision_beside_it(entry: Entry, heading: str):
    text = entry.plan.document.text[entry.span_start : entry.span_end]
    assert text.startswith(heading)
    assert entry.state == State.PROPOSED and entry.anchor_unsettled
    assert entry.suggestion["state"] == State.ACCEPTED and entry.suggestion["by"] == "alice"
    assert not decisions_on(entry).exists()


def test_a_section_whose_body_was_rewritten_comes_back_as_one_proposed_entry(alice) -> None:
    data = rewrite_body(FIRST.decode(), f"### {CHANGED}", NEW_BODY).encode()

    revised = revise(decided_plan(alice), alice, data)
    entries = list(revised.plan.entries.select_related("plan__document"))

    assert Counter(entry.title for entry in entries)[CHANGED] == 1
    (entry,) = [entry for entry in entries if entry.title == CHANGED]
    assert_one_proposed_entry_with_the_earlier_decision_beside_it(entry, f"### {CHANGED}")
    assert NEW_BODY in revised.revision.text[entry.span_start : entry.span_end]
    assert [entry.title for entry in entries if entry.carried["fate"] == "new"] == []


def test_an_uploaded_thirty_section_revision_has_one_entry_per_rewritten_section(
    client, editor, alice
) -> None:
    old, new, rewritten = probe()
    plan = accept_all(propose_document("probe.md", old.encode()), alice)

    response = client.post(
        url_of("revision-upload", plan.document.pk),
        {"file": SimpleUploadedFile("probe.md", new.encode())},
    )

    assert response.status_code == 302
    revision = Document.objects.get(revision_of=plan.document)
    carried = Plan.objects.get(document=revision)
    entries = list(carried.entries.select_related("plan__document"))
    assert Counter(entry.title for entry in entries) == Counter(
        entry.title for entry in plan.entries.all()
    )
    for heading in rewritten:
        (entry,) = [entry for entry in entries if entry.title == heading.removeprefix("## ")]
        assert_one_proposed_entry_with_the_earlier_decision_beside_it(entry, heading)
    # Nothing undecided on the new text is decided: only what was placed beyond doubt is.
    for entry in entries:
        if entry.state != State.PROPOSED:
            assert entry.anchor_status in ("exact", "moved") and entry.carried["fate"] == "kept"
    assert sum(entry.state == State.ACCEPTED for entry in entries) == len(entries) - len(rewritten)


def test_the_demo_revision_is_still_one_entry_per_section(alice) -> None:
    revised = revise(decided_plan(alice), alice)

    titles = Counter(revised.plan.entries.values_list("title", flat=True))

    assert max(titles.values()) == 1, titles
