"""The rules of entry decisions: what an editor may do to a plan, and what each action leaves
in the entry and in the decision log."""

from __future__ import annotations

import pytest

from grounding.paragraphs import paragraph_boundaries
from review.actions import entries as entry_actions
from review.actions import plans as plan_actions
from review.actions.plan_reviews import adjudicate_plan
from review.adapters.plans import export_plan
from review.decisions import ActionRefused, StaleVersion, undoable_entry_ids
from review.models import Decision, Entry
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.plans import update_entries

pytestmark = pytest.mark.django_db

State = Entry.State


@pytest.fixture
def plan():
    return make_plan(4)


def fresh(entry: Entry) -> Entry:
    return Entry.objects.select_related("plan__document").get(pk=entry.pk)


def accept(entry, editor):
    entry = fresh(entry)
    return entry_actions.accept_entry(entry, actor=editor, expected_version=entry.version)


def edit(entry, editor, **values):
    entry = fresh(entry)
    fields = {"title": entry.title, "path": entry.path, "start": entry.span_start}
    fields |= {"end": entry.span_end, "keep_boundaries": True} | values
    request = entry_actions.EditRequest(**fields)
    return entry_actions.edit_entry(entry, request, actor=editor, expected_version=entry.version)


def test_accepting_an_entry_records_who_and_one_decision(plan, editor) -> None:
    entry = entries_of(plan)[1]
    decision = accept(entry, editor)
    entry.refresh_from_db()
    assert entry.state == State.ACCEPTED
    assert entry.decided_by == editor
    assert decision.action == "entry.accept"
    assert decision.before["state"] == State.PROPOSED
    assert decision.after["state"] == State.ACCEPTED


def test_a_decision_on_a_version_that_moved_is_refused_and_changes_nothing(plan, editor) -> None:
    entry = fresh(entries_of(plan)[1])
    seen = entry.version
    accept(entry, editor)
    with pytest.raises(StaleVersion) as refused:
        entry_actions.reject_entry(fresh(entry), actor=editor, expected_version=seen)
    assert refused.value.latest.actor_name == "editor"
    assert fresh(entry).state == State.ACCEPTED
    assert Decision.objects.count() == 1


def test_the_first_entry_cannot_be_merged_into_anything(plan, editor) -> None:
    first = fresh(entries_of(plan)[0])
    with pytest.raises(ActionRefused, match="first entry"):
        entry_actions.merge_entry(first, actor=editor, expected_version=first.version)


def test_an_entry_cannot_merge_into_a_rejected_one(plan, editor) -> None:
    first, second = entries_of(plan)[:2]
    first = fresh(first)
    entry_actions.reject_entry(first, actor=editor, expected_version=first.version)
    second = fresh(second)
    with pytest.raises(ActionRefused, match="rejected"):
        entry_actions.merge_entry(second, actor=editor, expected_version=second.version)


def test_an_entry_that_another_is_merged_into_cannot_be_rejected(plan, editor) -> None:
    first, second = entries_of(plan)[:2]
    second = fresh(second)
    entry_actions.merge_entry(second, actor=editor, expected_version=second.version)
    first = fresh(first)
    with pytest.raises(ActionRefused, match="undo that merge"):
        entry_actions.reject_entry(first, actor=editor, expected_version=first.version)


def test_undo_takes_back_decisions_one_at_a_time_newest_first(plan, editor) -> None:
    entry = entries_of(plan)[2]
    accept(entry, editor)
    edit(entry, editor, title="A better title")
    assert fresh(entry).state == State.EDITED

    first_undo = entry_actions.undo_entry(
        fresh(entry), actor=editor, expected_version=fresh(entry).version
    )
    after_first = fresh(entry)
    assert (after_first.state, after_first.title) == (State.ACCEPTED, entry.title)
    assert first_undo.undoes.action == "entry.edit"

    entry_actions.undo_entry(after_first, actor=editor, expected_version=after_first.version)
    after_second = fresh(entry)
    assert after_second.state == State.PROPOSED
    assert after_second.decided_by is None
    assert after_second.decided_at is None

    with pytest.raises(ActionRefused, match="nothing"):
        entry_actions.undo_entry(after_second, actor=editor, expected_version=after_second.version)
    actions = list(Decision.objects.order_by("pk").values_list("action", flat=True))
    assert actions == ["entry.accept", "entry.edit", "entry.undo", "entry.undo"]


def test_an_undone_decision_is_not_undone_twice(plan, editor) -> None:
    entry = entries_of(plan)[1]
    accept(entry, editor)
    undo = entry_actions.undo_entry(
        fresh(entry), actor=editor, expected_version=fresh(entry).version
    )
    assert entry_actions.undo_target(fresh(entry)) is None
    assert undoable_entry_ids(plan) == set()
    assert undo.undoes.action == "entry.accept"


def test_an_edit_moves_the_span_and_makes_a_fresh_exact_anchor(plan, editor) -> None:
    entry = fresh(entries_of(plan)[2])
    text = plan.document.text
    heading_end = text.index("\n", entry.span_start)
    edit(entry, editor, start=heading_end + 2)
    entry = fresh(entry)
    assert entry.state == State.EDITED
    assert entry.span_start == heading_end + 2
    assert entry.quote == text[entry.span_start : entry.span_end]
    assert entry.anchor_status == Entry.AnchorStatus.EXACT


def test_a_path_outside_the_plan_grammar_is_refused_with_grounding_s_reason(plan, editor) -> None:
    entry = entries_of(plan)[1]
    with pytest.raises(entry_actions.EditRefused) as refused:
        edit(entry, editor, path="Not A Path")
    assert "path" in refused.value.errors
    assert "slugs" in refused.value.errors["path"][0]
    assert fresh(entry).path == entry.path


def test_a_path_another_entry_has_is_refused(plan, editor) -> None:
    first, second = entries_of(plan)[1:3]
    with pytest.raises(entry_actions.EditRefused) as refused:
        edit(second, editor, path=first.path)
    assert "already has this path" in refused.value.errors["path"][0]


def test_a_span_that_overlaps_its_neighbour_or_leaves_the_text_is_refused(plan, editor) -> None:
    first, second = entries_of(plan)[1:3]
    with pytest.raises(entry_actions.EditRefused) as overlap:
        edit(second, editor, start=first.span_end - 5)
    assert "previous entry" in overlap.value.errors["start"][0]
    last = entries_of(plan)[-1]
    with pytest.raises(entry_actions.EditRefused) as outside:
        edit(last, editor, end=len(plan.document.text) + 10)
    assert "within" in outside.value.errors["form"][0]


def test_a_boundary_moved_into_a_paragraph_is_offered_the_nearest_paragraph_boundaries(
    plan, editor
) -> None:
    entry = fresh(entries_of(plan)[2])
    text = plan.document.text
    inside = text.index("Paragraph 1", entry.span_start) + 4
    request = entry_actions.EditRequest(
        title=entry.title, path=entry.path, start=inside, end=entry.span_end
    )
    with pytest.raises(entry_actions.BoundaryOffer) as offer:
        entry_actions.edit_entry(entry, request, actor=editor, expected_version=entry.version)
    offered = [boundary.offset for boundary in offer.value.offers["start"]]
    assert inside - 4 in offered
    assert all(text[offset - 2 : offset] == "\n\n" for offset in offered)
    assert fresh(entry).span_start == entry.span_start


def test_accepting_an_edited_entry_keeps_it_an_edit(plan, editor) -> None:
    entry = entries_of(plan)[1]
    edit(entry, editor, title="Renamed")
    current = fresh(entry)
    entry_actions.reject_entry(current, actor=editor, expected_version=current.version)
    accept(entry, editor)
    assert fresh(entry).state == State.EDITED


def test_an_edit_back_to_the_proposal_is_an_accept(plan, editor) -> None:
    entry = entries_of(plan)[1]
    edit(entry, editor, title="Renamed")
    edit(entry, editor, title=entry.title)
    assert fresh(entry).state == State.ACCEPTED


def test_confirming_an_anchor_re_anchors_it_at_its_span(plan, editor) -> None:
    entry = entries_of(plan)[1]
    update_entries(
        Entry.objects.filter(pk=entry.pk), anchor_status="fuzzy", quote="x" * len(entry.quote)
    )
    assert plan.entries.counts().unsettled_anchors == 1
    current = fresh(entry)
    entry_actions.confirm_anchor(current, actor=editor, expected_version=current.version)
    confirmed = fresh(entry)
    assert confirmed.anchor_confirmed
    assert confirmed.quote == plan.document.text[entry.span_start : entry.span_end]
    assert plan.entries.counts().unsettled_anchors == 0


def test_an_exact_anchor_needs_no_confirming(plan, editor) -> None:
    entry = fresh(entries_of(plan)[1])
    with pytest.raises(ActionRefused, match="no confirming"):
        entry_actions.confirm_anchor(entry, actor=editor, expected_version=entry.version)


def test_accepting_a_rule_decides_each_listed_entry_once(plan, editor) -> None:
    entries = entries_of(plan)
    listed = {entry.pk: entry.version for entry in entries[1:]}
    decisions = plan_actions.accept_rule(
        plan, "rule:heading", actor=editor, versions=listed, unvalidated_confirmed=True
    )
    assert len(decisions) == len(listed)
    assert Decision.objects.filter(action="entry.accept").count() == len(listed)
    assert fresh(entries[0]).state == State.PROPOSED


def test_accepting_a_rule_accepts_nothing_when_a_listed_entry_changed_since(plan, editor) -> None:
    entries = entries_of(plan)
    listed = {entry.pk: entry.version for entry in entries}
    # Accepted and undone by someone else: proposed again, but not the version listed.
    accept(entries[-1], editor)
    entry_actions.undo_entry(
        fresh(entries[-1]), actor=editor, expected_version=fresh(entries[-1]).version
    )
    with pytest.raises(StaleVersion):
        plan_actions.accept_rule(
            plan, "rule:heading", actor=editor, versions=listed, unvalidated_confirmed=True
        )
    assert Decision.objects.count() == 2
    assert {fresh(entry).state for entry in entries} == {State.PROPOSED}


def test_counts_say_what_blocks_adjudication(plan, editor) -> None:
    entries = entries_of(plan)
    counts = plan.entries.counts()
    assert not counts.ready
    assert counts.blockers == [f"{len(entries)} entries still proposed"]
    for entry in entries:
        accept(entry, editor)
    assert plan.entries.counts().ready


def test_a_decided_plan_adjudicates_and_then_refuses_every_action(plan, editor) -> None:
    for entry in entries_of(plan):
        accept(entry, editor)
    plan.refresh_from_db()
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)
    assert export_plan(plan)
    entry = fresh(entries_of(plan)[1])
    with pytest.raises(ActionRefused, match="frozen"):
        entry_actions.reject_entry(entry, actor=editor, expected_version=entry.version)


def test_paragraph_boundaries_are_where_blank_lines_are() -> None:
    text = "one\n\ntwo two\n\n\nthree"
    starts, ends = paragraph_boundaries(text)
    assert [text[offset:].split()[0] for offset in starts] == ["one", "two", "three"]
    assert [text[:offset].split()[-1] for offset in ends] == ["one", "two", "three"]


def test_an_end_moved_into_a_paragraph_is_offered_ends_where_paragraphs_start(plan, editor) -> None:
    entry = fresh(entries_of(plan)[2])
    text = plan.document.text
    second = text.index("Paragraph 2", entry.span_start)
    request = entry_actions.EditRequest(
        title=entry.title, path=entry.path, start=entry.span_start, end=second + 3
    )
    with pytest.raises(entry_actions.BoundaryOffer) as offer:
        entry_actions.edit_entry(entry, request, actor=editor, expected_version=entry.version)
    offered = [boundary.offset for boundary in offer.value.offers["end"]]
    assert second in offered
    assert "start" not in offer.value.offers


def test_the_unsettled_anchor_rule_says_the_same_in_python_and_in_the_database(plan) -> None:
    from itertools import product

    entry = entries_of(plan)[0]
    expected = set()
    for state, status, confirmed in product(Entry.State, Entry.AnchorStatus, (False, True)):
        update_entries(
            Entry.objects.filter(pk=entry.pk),
            state=state,
            anchor_status=status,
            anchor_confirmed=confirmed,
        )
        row = Entry.objects.get(pk=entry.pk)
        in_db = Entry.objects.filter(Entry.unsettled_anchor_q(), pk=entry.pk).exists()
        assert row.anchor_unsettled == in_db, (state, status, confirmed)
        if in_db:
            expected.add((state, status))
    # Only a doubtful anchor, not confirmed, on an entry neither edited nor rejected.
    assert {status for _, status in expected} == {"fuzzy", "ambiguous", "orphaned"}
    assert {state for state, _ in expected} == {"proposed", "accepted", "merged"}
