"""Adding a revision and carrying the plan onto it: what keeps its decision, what comes back
to a person, what is gone or new, and that the old revision's plan and export stay as they were."""

from __future__ import annotations

import json

import pytest

from grounding.segmentation import parse_segmentation_plan, slice_segments
from review.actions.entries import accept_entry, confirm_anchor, merge_entry, undo_entry
from review.actions.plan_reviews import adjudicate_plan
from review.actions.revisions import CARRY, add_revision
from review.adapters.errors import ImportRefused, PlanNotAdjudicable
from review.adapters.plans import export_plan
from review.decisions import decisions_on, latest_decision
from review.models import Entry, Plan
from tests.builders.plans import row_counts, sha256
from tests.builders.revisions import (
    ADDED,
    CHANGED,
    FIRST,
    MOVED,
    REMOVED,
    SECOND,
    UNTOUCHED,
    decided_plan,
    first_plan,
    revise,
    titled,
)
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db
State = Entry.State


@pytest.fixture
def uploader(django_user_model):
    return user_in(django_user_model, "uploader", "Editors")


def fresh(entry: Entry) -> Entry:
    return Entry.objects.select_related("plan").get(pk=entry.pk)


def settle(plan: Plan, actor) -> None:
    """Decide what the carried plan left to a person: confirm each doubtful anchor, accept
    each proposed entry."""
    for entry in plan.entries.order_by("position"):
        if entry.anchor_unsettled:
            confirm_anchor(fresh(entry), actor=actor, expected_version=entry.version)
        entry = fresh(entry)
        if entry.state == State.PROPOSED:
            accept_entry(entry, actor=actor, expected_version=entry.version)


def test_a_revision_is_a_document_of_its_own_and_the_one_before_is_untouched(alice) -> None:
    plan = first_plan()

    revised = revise(plan, alice)
    revision, earlier = revised.revision, plan.document
    earlier.refresh_from_db()

    assert revision.pk != earlier.pk
    assert (revision.revision, revision.revision_of) == (2, earlier)
    assert bytes(revision.data) == SECOND and revision.sha256 == sha256(SECOND)
    assert revision.text == SECOND.decode()
    assert bytes(earlier.data) == FIRST and earlier.revision == 1
    assert revised.plan.document == revision and revised.plan.carried_from == plan


def test_entries_placed_beyond_doubt_keep_their_decision_logged_as_a_carry_by_the_uploader(
    alice, uploader
) -> None:
    plan = decided_plan(alice)
    earlier = titled(plan, UNTOUCHED)

    revised = revise(plan, uploader)
    kept = titled(revised.plan, UNTOUCHED)
    carry = latest_decision(kept)

    assert kept.anchor_status in ("exact", "moved")
    assert kept.state == State.ACCEPTED and kept.decided_by == alice
    assert (carry.action, carry.actor, carry.before["state"]) == (CARRY, uploader, "proposed")
    came_from = carry.after["carried_from"]
    assert came_from["decision"] == latest_decision(earlier).pk
    assert (came_from["revision"], came_from["entry"]) == (1, earlier.pk)
    assert f"decision {came_from['decision']}" in carry.note and "revision 1" in carry.note
    assert len(revised.carried) == revised.plan.entries.exclude(state=State.PROPOSED).count()


def test_a_changed_or_moved_section_comes_back_proposed_with_the_earlier_decision_beside_it(
    alice, uploader
) -> None:
    revised = revise(decided_plan(alice), uploader)

    for title in (CHANGED, MOVED):
        entry = titled(revised.plan, title)
        assert entry.state == State.PROPOSED, title
        assert entry.anchor_status in ("fuzzy", "ambiguous", "orphaned"), title
        assert entry.suggestion["state"] == State.ACCEPTED and entry.suggestion["by"] == "alice"
        assert not decisions_on(entry).exists()


def test_nothing_is_decided_on_the_new_text_unless_its_anchor_was_placed_beyond_doubt(
    alice, uploader
) -> None:
    revised = revise(decided_plan(alice), uploader)

    for entry in revised.plan.entries.all():
        if entry.state != State.PROPOSED:
            assert entry.anchor_status in ("exact", "moved"), entry.title
            assert entry.carried["fate"] == "kept"


def test_a_section_whose_text_was_removed_is_listed_as_gone(alice, uploader) -> None:
    plan = decided_plan(alice)

    revised = revise(plan, uploader)

    gone = revised.plan.options["gone"]
    assert [item["title"] for item in gone] == [REMOVED]
    assert gone[0]["entry"] == titled(plan, REMOVED).pk and gone[0]["state"] == "accepted"
    assert not revised.plan.entries.filter(title=REMOVED).exists()


def test_a_new_section_is_offered_with_the_proposers_entry_for_it(alice, uploader) -> None:
    revised = revise(decided_plan(alice), uploader)

    added = titled(revised.plan, ADDED)

    assert (added.state, added.carried["fate"]) == (State.PROPOSED, "new")
    assert revised.revision.text[added.span_start : added.span_end].startswith("### 4.4")


def test_the_carried_plan_is_a_proposal_for_the_new_bytes(alice, uploader) -> None:
    revised = revise(decided_plan(alice), uploader)
    payload = json.loads(revised.plan.original_payload)

    parsed = parse_segmentation_plan(payload, revised.revision.text)

    assert parsed.source_sha256 == sha256(SECOND)
    assert all(entry.is_proposed for entry in parsed.entries)
    rows = list(revised.plan.entries.order_by("position"))
    assert [(e.path, e.span) for e in parsed.entries] == [
        (row.path, (row.span_start, row.span_end)) for row in rows
    ]


def test_the_old_adjudicated_plan_and_its_export_stay_byte_for_byte(alice, uploader) -> None:
    plan = decided_plan(alice)
    plan.refresh_from_db()
    adjudicate_plan(plan, actor=alice, expected_version=plan.version)
    before = export_plan(plan)
    rows_before = list(plan.entries.values())

    revise(plan, uploader)
    plan.refresh_from_db()

    assert export_plan(plan) == before
    assert plan.status == Plan.Status.ADJUDICATED
    assert list(plan.entries.values()) == rows_before


def test_the_carried_plan_is_not_adjudicable_until_a_person_settles_what_came_back(
    alice, uploader
) -> None:
    revised = revise(decided_plan(alice), uploader)
    plan = revised.plan

    with pytest.raises(PlanNotAdjudicable, match="still undecided"):
        adjudicate_plan(plan, actor=uploader, expected_version=plan.version)


def test_the_new_plans_export_replays_on_the_new_bytes(alice, uploader) -> None:
    revised = revise(decided_plan(alice), uploader)
    plan = revised.plan
    settle(plan, uploader)
    plan.refresh_from_db()

    adjudicate_plan(plan, actor=uploader, expected_version=plan.version)
    exported = json.loads(export_plan(plan))
    replayed = slice_segments(SECOND.decode(), parse_segmentation_plan(exported, SECOND.decode()))

    assert exported["source_sha256"] == sha256(SECOND)
    rows = [row for row in plan.entries.order_by("position") if row.state in Entry.KEPT_STATES]
    assert [body for _, body in replayed] == [
        SECOND.decode()[row.span_start : row.span_end] for row in rows
    ]
    kept = next(e for e in exported["entries"] if e["title"] == UNTOUCHED)
    assert kept["adjudication"]["by"] == "alice"


def test_undoing_a_carried_decision_puts_the_entry_back_to_proposed(alice, uploader) -> None:
    revised = revise(decided_plan(alice), uploader)
    kept = fresh(titled(revised.plan, UNTOUCHED))

    undo_entry(kept, actor=uploader, expected_version=kept.version)
    kept = fresh(kept)

    assert kept.state == State.PROPOSED and kept.decided_by is None
    assert latest_decision(kept).undoes.action == CARRY


def test_a_merge_is_kept_only_into_the_same_neighbour(alice, uploader) -> None:
    plan = first_plan()
    entries = list(plan.entries.order_by("position"))
    first, second = entries[0], entries[1]
    accept_entry(fresh(first), actor=alice, expected_version=first.version)
    merge_entry(fresh(second), actor=alice, expected_version=second.version)

    revised = revise(plan, uploader)
    carried = revised.plan.entries.get(carried__entry=second.pk)

    assert carried.state == State.MERGED
    assert revised.plan.entries.get(position=carried.position - 1).carried["entry"] == first.pk


def test_bytes_already_stored_are_refused_as_a_revision_and_nothing_is_written(alice) -> None:
    plan = first_plan()
    before = row_counts()

    with pytest.raises(ImportRefused, match="already stored as document"):
        add_revision(plan.document, "copy.md", FIRST, actor=alice)

    assert row_counts() == before


def test_a_revision_is_added_to_the_latest_revision_only(alice) -> None:
    plan = first_plan()
    revise(plan, alice)
    before = row_counts()

    with pytest.raises(ImportRefused, match="already has a next revision"):
        add_revision(plan.document, "third.md", SECOND + b"\nMore.\n", actor=alice)

    assert row_counts() == before


def test_a_revision_of_a_document_without_a_plan_carries_nothing(alice) -> None:
    plan = first_plan()
    document = plan.document
    # A document stored on its own, with no plan yet.
    Plan.objects.filter(pk=plan.pk).delete()

    revised = add_revision(document, "byggteknisk-brann.md", SECOND, actor=alice)

    assert revised.plan is None and revised.carried == ()
    assert revised.revision.revision == 2


def test_a_revision_that_replaces_every_word_is_stored_with_no_plan(alice) -> None:
    plan = decided_plan(alice)

    revised = add_revision(
        plan.document, "byggteknisk-brann.md", b"Helt ny tekst uten overskrifter.\n", actor=alice
    )

    assert revised.plan is None and revised.revision.revision == 2
    assert Plan.objects.filter(document=revised.revision).count() == 0
