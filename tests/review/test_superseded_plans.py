"""A plan whose document gets a newer revision while it is open is superseded: through every
door that stores a revision, logged, out of the queue and its counts, and refused (naming the
plan that stands for it now) to every decision on it. Also the migration that marks the plans
stored before the status existed."""

from __future__ import annotations

import importlib
import io

import pytest
from django.apps import apps as django_apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from review.actions import leases
from review.actions.entries import accept_entry, reject_entry
from review.actions.plan_reviews import adjudicate_plan, open_review_copy, plans_needing_review_by
from review.actions.revisions import SUPERSEDE, add_revision
from review.adapters.errors import ImportRefused, PlanNotAdjudicable
from review.adapters.plans import export_plan, import_plan, propose_document
from review.decisions import ActionRefused, decisions_on
from review.models import Decision, Document, Entry, Lease, Plan
from review.models.projects import default_project_id
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.plans import payload_text, proposed_payload
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.revisions import FIRST, NAME, SECOND, decided_plan, first_plan, revise
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db
PLANS = Lease.Queue.PLANS
Status = Plan.Status


@pytest.fixture
def bob(django_user_model):
    return user_in(django_user_model, "bob", "Editors")


def fresh(plan: Plan) -> Plan:
    return Plan.objects.select_related("document").get(pk=plan.pk)


# --- storing a revision supersedes ---------------------------------------------------------


def test_storing_a_revision_supersedes_the_open_plan_before_it_logged_by_the_uploader(
    alice,
) -> None:
    plan = first_plan()

    revised = revise(plan, alice)

    old = fresh(plan)
    assert old.status == Status.SUPERSEDED and old.is_superseded and not old.is_open
    assert old.version == plan.version + 1
    (logged,) = decisions_on(old).filter(action=SUPERSEDE)
    assert logged.actor == alice
    assert (logged.before, logged.after) == ({"status": "open"}, {"status": "superseded"})
    assert f"revision 2 (document {revised.revision.pk})" in logged.note
    assert fresh(revised.plan).status == Status.OPEN


def test_an_adjudicated_plan_stays_adjudicated_when_a_revision_is_stored(alice) -> None:
    plan = decided_plan(alice)
    adjudicate_plan(plan, actor=alice, expected_version=plan.version)

    revise(fresh(plan), alice)

    assert fresh(plan).status == Status.ADJUDICATED
    assert not Decision.objects.filter(action=SUPERSEDE).exists()


def test_the_api_door_supersedes_the_plan_before_it(alice) -> None:
    plan = first_plan()
    pipeline = pipeline_user()

    response = api_client().post(
        f"{API}/documents/{plan.document.pk}/revisions",
        {"file": SimpleUploadedFile(NAME, SECOND)},
    )

    assert response.status_code == 201
    assert fresh(plan).status == Status.SUPERSEDED
    assert Decision.objects.get(action=SUPERSEDE).actor == pipeline


def test_the_command_door_supersedes_the_plan_before_it(alice, tmp_path) -> None:
    plan = first_plan()
    (tmp_path / NAME).write_bytes(SECOND)

    call_command(
        "add_revision", str(plan.document.pk), str(tmp_path / NAME), "--by", "alice",
        stdout=io.StringIO(),
    )  # fmt: skip

    assert fresh(plan).status == Status.SUPERSEDED
    assert Decision.objects.get(action=SUPERSEDE).actor == alice


def test_a_revision_that_carries_no_plan_still_supersedes_the_one_before(alice) -> None:
    plan = first_plan()

    revised = add_revision(plan.document, NAME, b"Helt ny tekst uten overskrifter.\n", actor=alice)

    assert revised.plan is None
    old = fresh(plan)
    assert old.is_superseded
    assert old.current_plan() == (revised.revision, None)
    assert "which has no plan yet" in old.superseded_reason()


def test_a_refused_revision_supersedes_nothing(alice) -> None:
    plan = first_plan()

    with pytest.raises(ImportRefused):
        add_revision(plan.document, NAME, FIRST, actor=alice)

    assert fresh(plan).status == Status.OPEN
    assert not Decision.objects.filter(action=SUPERSEDE).exists()


def test_the_current_plan_of_a_superseded_plan_is_the_latest_revisions_plan(alice) -> None:
    plan = first_plan()
    second = revise(plan, alice)
    third = add_revision(
        second.revision, NAME, SECOND + b"\n## 9 Tillegg\n\nNy tekst.\n", actor=alice
    )

    assert fresh(plan).current_plan() == (third.revision, third.plan)
    assert fresh(second.plan).current_plan() == (third.revision, third.plan)
    assert fresh(second.plan).is_superseded


def test_not_superseded_leaves_out_superseded_plans_only(alice) -> None:
    adjudicated = decided_plan(alice)
    adjudicate_plan(adjudicated, actor=alice, expected_version=adjudicated.version)
    superseded = first_plan_of_other_bytes()
    carried = add_revision(superseded.document, "other.md", OTHER_SECOND, actor=alice).plan

    kept = set(Plan.objects.not_superseded().values_list("pk", flat=True))

    assert kept == {adjudicated.pk, carried.pk}
    assert fresh(superseded).is_superseded


OTHER_FIRST = b"# Other\n\n## 1 One\n\nThe first section.\n\n## 2 Two\n\nThe second one.\n"
OTHER_SECOND = OTHER_FIRST + b"\n## 3 Three\n\nA third section, new.\n"


def first_plan_of_other_bytes() -> Plan:
    return propose_document("other.md", OTHER_FIRST, path_prefix="other")


# --- out of the queue and its counts ---------------------------------------------------------


def test_next_hands_the_carried_plan_never_the_superseded_one(alice, bob) -> None:
    plan = first_plan()
    carried = revise(plan, alice).plan

    taken = leases.take_next(PLANS, bob, default_project_id())

    assert taken.item_id == carried.pk
    assert (
        leases.take_next(PLANS, bob, default_project_id()).item_id == carried.pk
    )  # nothing else to move on to
    assert list(plans_needing_review_by(bob, default_project_id())) == [carried]
    assert not leases.may_hold(PLANS, plan.pk, bob, default_project_id())


def test_a_lease_on_a_plan_ends_when_it_is_superseded(alice, bob) -> None:
    plan = first_plan()
    assert leases.take_next(PLANS, bob, default_project_id()).item_id == plan.pk

    revise(plan, alice)

    assert not Lease.objects.filter(queue=PLANS, item_id=plan.pk).exists()
    assert leases.renew(PLANS, plan.pk, bob, retake=True) is None


def test_the_plans_waiting_for_a_reviewer_leave_superseded_plans_out(alice, bob) -> None:
    first_plan()
    revise(Plan.objects.get(), alice)

    assert leases.waiting_count(PLANS, bob, default_project_id()) == 1
    assert leases.QUEUES[PLANS].waiting(default_project_id()).count() == 1


def test_an_open_review_copy_is_superseded_with_its_plan_and_a_handed_in_one_is_kept(
    alice, bob, django_user_model
) -> None:
    carol = user_in(django_user_model, "carol", "Editors")
    double_review("plans")
    plan = first_plan()
    handed_in = open_review_copy(plan, actor=alice)
    hand_in_review(handed_in, alice)
    still_open = open_review_copy(plan, actor=bob)

    revise(fresh(plan), alice)

    assert fresh(plan).is_superseded
    assert fresh(still_open).is_superseded
    assert fresh(handed_in).status == Status.ADJUDICATED
    # Neither the plan nor bob's copy is anyone's to take any more, but the carried plan is.
    assert not leases.may_hold(PLANS, still_open.pk, bob, default_project_id())
    assert plan.pk not in {item.pk for item in plans_needing_review_by(carol, default_project_id())}
    with pytest.raises(PlanNotAdjudicable, match=f"Plan {still_open.pk} is superseded"):
        adjudicate_plan(fresh(still_open), actor=bob, expected_version=fresh(still_open).version)
    with pytest.raises(ActionRefused, match=f"Plan {plan.pk} is superseded"):
        open_review_copy(fresh(plan), actor=carol)


# --- refused, naming the current plan ---------------------------------------------------------


def test_adjudicating_a_superseded_plan_is_refused_naming_the_current_plan(alice) -> None:
    plan = decided_plan(alice)
    carried = revise(plan, alice).plan
    old = fresh(plan)
    # Every entry is decided: only its being superseded stands in the way.
    assert old.blockers(list(old.entries.order_by("position"))).problems() == []

    with pytest.raises(PlanNotAdjudicable) as refused:
        adjudicate_plan(old, actor=alice, expected_version=old.version)

    assert refused.value.problems == [
        f"Plan {plan.pk} is superseded by plan {carried.pk} on {NAME} (revision 2): "
        f"decide plan {carried.pk} instead."
    ]
    assert fresh(plan).status == Status.SUPERSEDED
    assert fresh(carried).status == Status.OPEN
    assert not Decision.objects.filter(action="plan.adjudicate").exists()


def test_adjudicating_from_a_page_drawn_before_it_was_superseded_gets_the_same_answer(
    alice,
) -> None:
    plan = decided_plan(alice)
    seen = fresh(plan).version
    carried = revise(plan, alice).plan

    with pytest.raises(PlanNotAdjudicable, match=f"decide plan {carried.pk} instead"):
        adjudicate_plan(fresh(plan), actor=alice, expected_version=seen)


@pytest.mark.parametrize("act", [accept_entry, reject_entry])
def test_an_entry_of_a_superseded_plan_is_not_decided_and_the_refusal_names_the_current_plan(
    alice, act
) -> None:
    plan = first_plan()
    carried = revise(plan, alice).plan
    entry = Entry.objects.select_related("plan").filter(plan=plan).first()

    with pytest.raises(ActionRefused, match=f"superseded by plan {carried.pk}"):
        act(entry, actor=alice, expected_version=entry.version)

    assert Entry.objects.get(pk=entry.pk).state == Entry.State.PROPOSED


def test_a_decision_on_an_entry_loaded_before_its_plan_was_superseded_is_refused_too(
    alice,
) -> None:
    plan = first_plan()
    entry = Entry.objects.select_related("plan").filter(plan=plan).first()  # plan still open
    carried = revise(plan, alice).plan

    with pytest.raises(ActionRefused, match=f"superseded by plan {carried.pk}"):
        accept_entry(entry, actor=alice, expected_version=entry.version)

    assert Entry.objects.get(pk=entry.pk).state == Entry.State.PROPOSED
    assert fresh(plan).count_accepted == 0


def test_exporting_a_superseded_plan_says_it_was_superseded(alice) -> None:
    plan = first_plan()
    carried = revise(plan, alice).plan

    with pytest.raises(PlanNotAdjudicable, match=f"superseded by plan {carried.pk}"):
        export_plan(fresh(plan))


def test_no_new_plan_is_stored_on_a_superseded_revision(alice) -> None:
    plan = first_plan()
    revised = revise(plan, alice)
    plans = Plan.objects.count()

    with pytest.raises(ImportRefused, match=f"newer revision, {NAME} \\(revision 2\\)"):
        propose_document(NAME, FIRST, path_prefix="again")
    payload = proposed_payload(plan.document.text, data=FIRST)
    with pytest.raises(ImportRefused, match=f"document {revised.revision.pk}"):
        import_plan(Document.objects.get(pk=plan.document.pk), payload_text(payload))

    assert Plan.objects.count() == plans


# --- the plans stored before the status existed ----------------------------------------------


def test_the_migration_supersedes_open_plans_whose_document_has_a_newer_revision(alice) -> None:
    migration = importlib.import_module("review.migrations.0014_plan_superseded")
    stale = first_plan()
    revised = revise(stale, alice)
    # As the database stood before: the old revision's plan left open, and held.
    Plan.objects.filter(pk=stale.pk).update(status=Status.OPEN)
    Lease.objects.create(
        queue=PLANS, item_id=stale.pk, holder=alice, taken_at=stale.created_at,
        expires_at=stale.created_at,
    )  # fmt: skip
    version = fresh(stale).version
    untouched = first_plan_of_other_bytes()
    logged = set(Decision.objects.values_list("pk", flat=True))

    migration.supersede_existing(django_apps, None)

    assert fresh(stale).status == Status.SUPERSEDED
    assert fresh(stale).version == version + 1
    assert (fresh(revised.plan).status, fresh(untouched).status) == (Status.OPEN, Status.OPEN)
    (row,) = Decision.objects.exclude(pk__in=logged)
    assert (row.action, row.object_id, row.actor_id) == (SUPERSEDE, str(stale.pk), None)
    assert f"revision 2 (document {revised.revision.pk})" in row.note
    assert not Lease.objects.filter(item_id=stale.pk).exists()


def test_a_revision_carries_the_plan_not_an_editors_review_copy_made_after_it(alice) -> None:
    double_review("plans")
    plan = first_plan()
    copy = open_review_copy(plan, actor=alice)
    accept_entry(copy.entries.select_related("plan").first(), actor=alice, expected_version=1)

    carried = revise(fresh(plan), alice).plan

    assert carried.carried_from_id == plan.pk
    assert not carried.entries.exclude(state=Entry.State.PROPOSED).exists()
