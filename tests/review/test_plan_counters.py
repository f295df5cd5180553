"""A plan's stored counters and the recorded path collisions: kept by every change of an
entry (the actions, undo, double review, revisions, imports; the counters by the database's
triggers, whichever door wrote the entries), always equal to a recount, and rebuilt by
`manage.py recount`."""

from __future__ import annotations

import contextlib
import io
from itertools import product

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from review import counter_triggers
from review.actions import entries as entry_actions
from review.actions.plan_reviews import adjudicate_plan
from review.actions.plans import undo_accept_rule
from review.actions.revisions import add_revision
from review.adapters.plans import path_collisions
from review.apps import _reinstall_counter_triggers
from review.decisions import ActionRefused, StaleVersion
from review.models import Entry, PathCollision, Plan, PlanCounts
from review.models.projects import default_project_id
from tests.builders.plan_views import entries_of, handbook_text, make_plan
from tests.builders.plans import update_entries

pytestmark = pytest.mark.django_db

ACTIONS = ("accept", "reject", "merge", "undo", "confirm-anchor", "edit")


def stored(plan: Plan) -> PlanCounts:
    return Plan.objects.get(pk=plan.pk).counts


def recounted(plan: Plan) -> PlanCounts:
    return Entry.objects.filter(plan=plan).counts()


def recorded_collisions() -> set[tuple[str, int]]:
    return set(PathCollision.objects.values_list("path", "document_id"))


def collisions_by_recount() -> set[tuple[str, int]]:
    before = recorded_collisions()
    PathCollision.objects.refresh()
    after = recorded_collisions()
    PathCollision.objects.all().delete()
    PathCollision.objects.bulk_create(
        PathCollision(project_id=default_project_id(), path=p, document_id=d) for p, d in before
    )
    return after


def _act(entry: Entry, action: str, editor) -> Entry:
    current = Entry.objects.select_related("plan").get(pk=entry.pk)
    if action == "edit":
        request = entry_actions.EditRequest(
            title=current.title + " (edited)",
            path=current.path + "-edited",
            start=current.span_start,
            end=current.span_end,
        )
        entry_actions.edit_entry(current, request, actor=editor, expected_version=current.version)
        return current
    act = entry_actions.ENTRY_ACTIONS[action]
    act(current, actor=editor, expected_version=current.version)
    return current


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(
        st.tuples(st.integers(min_value=0, max_value=4), st.sampled_from(ACTIONS)),
        min_size=1,
        max_size=25,
    ),
    doubtful=st.sets(st.integers(min_value=0, max_value=4), max_size=3),
)
def test_the_stored_counters_equal_a_recount_after_any_sequence_of_decisions(
    editor, steps, doubtful
) -> None:
    plan = make_plan(4, name="counted.md")
    other = make_plan(4, name="other.md", paragraphs=1)
    entries = entries_of(plan)
    for index in doubtful:
        update_entries(Entry.objects.filter(pk=entries[index].pk), anchor_status="fuzzy")
    for index, action in steps:
        # A refusal changes nothing, counters included.
        with contextlib.suppress(ActionRefused, StaleVersion):
            decided = _act(entries[index], action, editor)
            # The counters the row's reply draws are those the triggers stored.
            assert decided.plan.counts == stored(plan), (index, action)
        assert stored(plan) == recounted(plan), (index, action)
        assert recorded_collisions() == collisions_by_recount(), (index, action)
    assert stored(other) == recounted(other)


def test_an_accept_moves_the_counters_in_its_own_transaction(editor) -> None:
    plan = make_plan(3)
    entry = Entry.objects.select_related("plan").get(pk=entries_of(plan)[1].pk)
    before = stored(plan)
    entry_actions.accept_entry(entry, actor=editor, expected_version=entry.version)
    after = stored(plan)
    assert (after.proposed, after.accepted) == (before.proposed - 1, before.accepted + 1)
    # The entry's plan holds the counters just stored: the row's fragment reads them.
    assert entry.plan.counts == after


def test_a_refused_decision_on_a_frozen_plan_leaves_the_counters_alone(editor) -> None:
    plan = make_plan(2)
    for entry in entries_of(plan):
        entry_actions.accept_entry(entry, actor=editor, expected_version=entry.version)
    stale = entries_of(plan)[0]
    adjudicate_plan(plan, actor=editor, expected_version=Plan.objects.get(pk=plan.pk).version)
    stale.plan.status = Plan.Status.OPEN  # as loaded before the plan was adjudicated
    before = stored(plan)
    with pytest.raises(ActionRefused, match="frozen"):
        entry_actions.reject_entry(stale, actor=editor, expected_version=stale.version)
    assert stored(plan) == before
    assert Entry.objects.get(pk=stale.pk).state == Entry.State.ACCEPTED


def test_a_stale_decision_leaves_the_counters_alone(editor) -> None:
    plan = make_plan(2)
    entry = entries_of(plan)[1]
    before = stored(plan)
    with pytest.raises(StaleVersion):
        entry_actions.reject_entry(entry, actor=editor, expected_version=entry.version + 1)
    assert stored(plan) == before


def test_undoing_an_accept_all_puts_the_counters_back(editor) -> None:
    plan = make_plan(3)
    entry = entries_of(plan)[0]
    entry_actions.accept_entry(entry, actor=editor, expected_version=entry.version, note="x")
    proposed = stored(plan).proposed
    batch_note = "accepted with all of rule:heading"
    second = entries_of(plan)[1]
    entry_actions.accept_entry(
        second, actor=editor, expected_version=second.version, note=batch_note, batch="0123456789"
    )
    undo_accept_rule(plan, "0123456789", actor=editor)
    assert stored(plan) == recounted(plan)
    assert stored(plan).proposed == proposed


def test_a_carried_plan_and_a_review_copy_are_counted_when_stored(editor) -> None:
    document_plan = make_plan(3)
    accepted = entries_of(document_plan)[1]
    entry_actions.accept_entry(accepted, actor=editor, expected_version=accepted.version)
    revised = add_revision(
        document_plan.document,
        "handbook.md",
        handbook_text(3).replace("in words an editor", "in the words an editor").encode(),
        actor=editor,
    )
    assert revised.plan is not None
    assert stored(revised.plan) == recounted(revised.plan)
    assert stored(revised.plan).total == revised.plan.entries.count()


def test_an_imported_plan_is_counted_when_stored() -> None:
    plan = make_plan(5)
    counts = stored(plan)
    assert counts == recounted(plan)
    assert counts.total == plan.entries.count() > 0
    assert counts.proposed == counts.need_you == counts.total


# --- every door: the database keeps the counters -------------------------------------------

# Every state an entry's counters tell apart: each state, with each kind of anchor, confirmed
# or not.
EVERY_STATE = list(product(Entry.State, Entry.AnchorStatus, (False, True)))


def assert_kept(*plans: Plan) -> None:
    """The counters as the triggers left them equal a recount, and the rows' own rule."""
    kept = {plan.pk: stored(plan) for plan in plans}
    Plan.objects.filter(pk__in=kept).recount()
    for plan in plans:
        assert kept[plan.pk] == stored(plan) == PlanCounts.of_entries(entries_of(plan))


def entries_in_every_state(plan: Plan, first_position: int = 100) -> list[Entry]:
    return [
        Entry(
            plan=plan,
            position=first_position + number,
            path=f"bulk/{number}",
            title=f"Bulk {number}",
            span_start=0,
            span_end=1,
            quote="x",
            state=state,
            anchor_status=anchor,
            anchor_confirmed=confirmed,
        )
        for number, (state, anchor, confirmed) in enumerate(EVERY_STATE)
    ]


def test_entries_inserted_in_bulk_in_every_state_are_counted_as_they_are_stored() -> None:
    plan = make_plan(2)
    proposed = len(entries_of(plan))
    Entry.objects.bulk_create(entries_in_every_state(plan))
    assert stored(plan).total == proposed + len(EVERY_STATE)
    assert_kept(plan)


def test_a_queryset_update_moves_the_counters_of_every_plan_it_touches() -> None:
    plan, other = make_plan(3, name="a.md"), make_plan(2, name="b.md")
    Entry.objects.bulk_create(entries_in_every_state(plan))
    entries = Entry.objects.filter(plan__in=[plan, other])
    for state, anchor, confirmed in EVERY_STATE[::7]:
        entries.filter(state=state).update(anchor_status=anchor, anchor_confirmed=confirmed)
        assert_kept(plan, other)
        entries.filter(anchor_status=anchor).update(state=state)
        assert_kept(plan, other)
    others = len(entries_of(other))
    moved = Entry.objects.filter(plan=plan, position__gte=100, position__lt=110)
    moved.update(plan=other)
    assert stored(other).total == others + 10
    assert_kept(plan, other)


def test_a_delete_takes_its_entries_out_of_the_counters() -> None:
    plan = make_plan(3)
    Entry.objects.bulk_create(entries_in_every_state(plan))
    total = stored(plan).total
    merged = Entry.objects.filter(plan=plan, state=Entry.State.MERGED)
    assert merged.count() == stored(plan).merged > 0
    merged.delete()
    assert stored(plan).merged == 0
    assert_kept(plan)
    entries_of(plan)[0].delete()
    assert stored(plan).total == total - len(EVERY_STATE) // len(Entry.State) - 1
    assert_kept(plan)


def test_an_entry_saved_or_created_one_at_a_time_as_the_admin_would_is_counted() -> None:
    plan = make_plan(3)
    before = stored(plan)
    entry = entries_of(plan)[1]
    entry.state, entry.anchor_status = Entry.State.ACCEPTED, Entry.AnchorStatus.ORPHANED
    entry.save()
    after = stored(plan)
    assert (after.accepted, after.unsettled_anchors) == (
        before.accepted + 1,
        before.unsettled_anchors + 1,
    )
    assert_kept(plan)
    entry.anchor_confirmed = True
    entry.save()
    entries_in_every_state(plan, first_position=200)[-1].save()
    assert_kept(plan)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row versions are PostgreSQL's")
def test_an_update_of_nothing_counted_writes_no_plan_row() -> None:
    from django.db.models.expressions import RawSQL

    plan = make_plan(3)

    def place() -> str:
        return Plan.objects.annotate(place=RawSQL("ctid::text", ())).get(pk=plan.pk).place

    before = place()
    Entry.objects.filter(plan=plan).update(title="Another title", note="a note")
    assert place() == before
    Entry.objects.filter(plan=plan).update(state=Entry.State.REJECTED)
    assert place() != before


def test_after_a_migration_the_plan_counters_triggers_are_put_back() -> None:
    plan = make_plan(2)
    entries = len(entries_of(plan))
    counter_triggers.remove_plan_counts(connection)
    Entry.objects.filter(plan=plan).update(state=Entry.State.REJECTED)
    assert stored(plan).rejected == 0

    _reinstall_counter_triggers(sender=None, using="default")
    if connection.vendor == "sqlite":
        # Lifted for every migration there, so counted again once they are back.
        assert stored(plan) == recounted(plan)
    before = stored(plan)
    Entry.objects.filter(plan=plan).update(state=Entry.State.ACCEPTED)

    after = stored(plan)
    assert (after.accepted - before.accepted, after.rejected - before.rejected) == (
        entries,
        -entries,
    )


# --- path collisions ---------------------------------------------------------------------


def test_collisions_are_recorded_when_a_plan_is_stored() -> None:
    first = make_plan(2, name="a.md", paragraphs=1)
    assert path_collisions() == {}
    second = make_plan(2, name="b.md", paragraphs=2)
    collisions = path_collisions()
    assert set(collisions) == {entry.path for entry in entries_of(second)}
    assert {d.pk for d in collisions["handbook/1-section-number-1"]} == {
        first.document_id,
        second.document_id,
    }


def test_rejecting_and_un_rejecting_an_entry_changes_the_recorded_collisions(editor) -> None:
    make_plan(2, name="a.md", paragraphs=1)
    second = make_plan(2, name="b.md", paragraphs=2)
    entry = next(e for e in entries_of(second) if e.path == "handbook/1-section-number-1")
    entry_actions.reject_entry(entry, actor=editor, expected_version=entry.version)
    assert "handbook/1-section-number-1" not in path_collisions()
    entry = Entry.objects.select_related("plan").get(pk=entry.pk)
    entry_actions.undo_entry(entry, actor=editor, expected_version=entry.version)
    assert "handbook/1-section-number-1" in path_collisions()


def test_an_edit_to_another_path_moves_the_collision(editor) -> None:
    make_plan(2, name="a.md", paragraphs=1)
    second = make_plan(2, name="b.md", paragraphs=2)
    entry = next(e for e in entries_of(second) if e.path == "handbook/2-section-number-2")
    request = entry_actions.EditRequest(
        title=entry.title, path="b/2-section", start=entry.span_start, end=entry.span_end
    )
    entry_actions.edit_entry(entry, request, actor=editor, expected_version=entry.version)
    assert "handbook/2-section-number-2" not in path_collisions()
    assert "b/2-section" not in path_collisions()
    assert recorded_collisions() == collisions_by_recount()


def test_a_superseded_revision_no_longer_collides(editor) -> None:
    first = make_plan(2, name="a.md", paragraphs=1)
    make_plan(2, name="b.md", paragraphs=2)
    assert "handbook/1-section-number-1" in path_collisions()
    add_revision(
        first.document,
        "a.md",
        handbook_text(2, paragraphs=1).replace("Paragraph 1", "Paragraph one").encode(),
        actor=editor,
    )
    assert recorded_collisions() == collisions_by_recount()
    documents = {d.pk for d in path_collisions().get("handbook/1-section-number-1", [])}
    assert first.document_id not in documents


# --- manage.py recount ---------------------------------------------------------------------


def test_recount_rebuilds_counters_and_collisions_from_rows_inserted_in_bulk() -> None:
    plan = make_plan(3, name="a.md", paragraphs=1)
    other = make_plan(3, name="b.md", paragraphs=2)
    empty = Plan.objects.create(
        project_id=default_project_id(),
        document=plan.document,
        source_sha256=plan.source_sha256,
        extractor_id="x",
        extractor_version="1",
        proposed_by="p",
        original_payload="{}",
        count_total=9,
    )
    # Rows written behind the decisions' back, as a bulk load would.
    Entry.objects.filter(plan=plan).update(state=Entry.State.REJECTED)
    Plan.objects.update(count_total=0, count_proposed=0)
    PathCollision.objects.all().delete()
    out = io.StringIO()
    call_command("recount", stdout=out)
    for each in (plan, other, empty):
        assert stored(each) == recounted(each)
    assert stored(empty).total == 0
    assert recorded_collisions() == collisions_by_recount()
    assert path_collisions() == {}  # plan's entries are all rejected now
    assert "recounted 3 plans" in out.getvalue()


def test_recount_is_a_fixed_number_of_statements_whatever_the_number_of_plans() -> None:
    for number in range(3):
        make_plan(2, name=f"doc-{number}.md", paragraphs=number + 1)
    with CaptureQueriesContext(connection) as few:
        call_command("recount", stdout=io.StringIO())
    for number in range(3, 8):
        make_plan(2, name=f"doc-{number}.md", paragraphs=number + 1)
    with CaptureQueriesContext(connection) as many:
        call_command("recount", stdout=io.StringIO())
    assert len(many) == len(few)


@pytest.mark.django_db(transaction=True)
def test_a_decision_meeting_an_accept_all_in_flight_waits_and_neither_deadlocks(
    monkeypatch,
) -> None:
    """Every change of an entry takes its plan's row first (the counters), so a batch that
    holds it and a single decision on one of its entries queue up instead of deadlocking."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: SQLite cannot overlap the two transactions on row locks")
    import threading

    from django.contrib.auth.models import User

    from review.actions import plans as plan_actions
    from tests.builders.races import reject_when, wait_until_it_waits_on_us
    from tests.builders.users import user_in

    editor = user_in(User, "edith", "Editors")
    plan = make_plan(4)
    entries = entries_of(plan)
    single = Entry.objects.select_related("plan").get(pk=entries[-1].pk)
    first_done = threading.Event()
    accept = plan_actions.accept_entry
    racing: list[threading.Thread] = []

    def accept_then_let_the_reject_wait(entry, **kwargs):
        decision = accept(entry, **kwargs)
        if not first_done.is_set():
            first_done.set()  # the batch holds the plan's row now
            wait_until_it_waits_on_us(racing[0])
        return decision

    monkeypatch.setattr(plan_actions, "accept_entry", accept_then_let_the_reject_wait)
    thread, outcome = reject_when(first_done, single, editor)
    racing.append(thread)
    plan_actions.accept_rule(
        plan,
        "rule:heading",
        actor=editor,
        versions={entry.pk: entry.version for entry in entries},
        unvalidated_confirmed=True,
    )
    thread.join(timeout=60)
    # The batch accepted the entry first; the rejection then met a version it never saw.
    assert isinstance(outcome[0], StaleVersion), outcome
    assert Entry.objects.get(pk=single.pk).state == Entry.State.ACCEPTED
    assert stored(plan) == recounted(plan)
