"""Taking, renewing and releasing queue leases, as actions (no HTTP)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from review.actions import leases
from review.actions.cases import decide_case
from review.decisions import ActionRefused
from review.models import Case, Decision, Lease
from review.models.projects import default_project_id
from tests.builders.cases_answers import make_case
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

CASES = Lease.Queue.CASES
PASSING = "The post threatens another member directly [ev-1]."
FAILING = "The post is bad [ev-9]."  # cites evidence that does not exist: flagged


@pytest.fixture
def moderators(django_user_model):
    return [user_in(django_user_model, f"mod{n}", "Moderators") for n in range(3)]


def test_next_hands_out_the_queue_in_the_case_list_s_order_flagged_first(moderators) -> None:
    passed = make_case("c-1", rationale=PASSING)
    flagged = make_case("c-2", rationale=FAILING)
    assert flagged.flagged and not passed.flagged
    first, second = moderators[:2]
    assert leases.take_next(CASES, first, default_project_id()).item_id == flagged.pk
    assert leases.take_next(CASES, second, default_project_id()).item_id == passed.pk


def test_an_item_someone_holds_is_not_handed_to_anyone_else(moderators) -> None:
    make_case("c-1")
    first, second, _ = moderators
    assert leases.take_next(CASES, first, default_project_id()) is not None
    assert leases.take_next(CASES, second, default_project_id()) is None


def test_next_moves_on_from_the_item_held_and_lets_it_go(moderators) -> None:
    one, two = make_case("c-1"), make_case("c-2")
    mod = moderators[0]
    assert leases.take_next(CASES, mod, default_project_id()).item_id == one.pk
    assert leases.take_next(CASES, mod, default_project_id()).item_id == two.pk
    assert list(Lease.objects.values_list("item_id", flat=True)) == [two.pk]


def test_next_on_the_last_item_hands_the_same_one_back(moderators) -> None:
    only = make_case("c-1")
    mod = moderators[0]
    leases.take_next(CASES, mod, default_project_id())
    assert leases.take_next(CASES, mod, default_project_id()).item_id == only.pk


def test_an_expired_lease_no_longer_holds_its_item(moderators) -> None:
    case = make_case("c-1")
    first, second, _ = moderators
    leases.take_next(CASES, first, default_project_id())
    Lease.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    lease = leases.take_next(CASES, second, default_project_id())
    assert (lease.item_id, lease.holder) == (case.pk, second)
    assert Lease.objects.count() == 1


def test_a_decided_case_leaves_the_queue(moderators) -> None:
    make_case("c-1")
    Case.objects.update(verdict=Case.Verdict.UPHELD)
    assert leases.take_next(CASES, moderators[0], default_project_id()) is None


def test_a_reader_may_not_take_from_a_queue(django_user_model) -> None:
    make_case("c-1")
    reader = user_in(django_user_model, "rita", "Readers")
    with pytest.raises(ActionRefused, match="You do not review cases"):
        leases.take_next(CASES, reader, default_project_id())


def test_renewing_pushes_the_expiry_on_and_only_for_the_holder(moderators) -> None:
    case = make_case("c-1")
    first, second, _ = moderators
    lease = leases.take_next(CASES, first, default_project_id())
    Lease.objects.update(expires_at=timezone.now() + timedelta(seconds=5))
    renewed = leases.renew(CASES, case.pk, first)
    assert renewed.expires_at > lease.taken_at + timedelta(seconds=60)
    assert leases.renew(CASES, case.pk, second, retake=True) is None


def test_a_page_reloaded_after_its_lease_went_takes_it_back_if_nobody_else_has(moderators):
    case = make_case("c-1")
    mod = moderators[0]
    leases.take_next(CASES, mod, default_project_id())
    leases.release(CASES, case.pk, mod)
    assert leases.renew(CASES, case.pk, mod) is None
    assert leases.renew(CASES, case.pk, mod, retake=True).holder == mod


def test_a_lead_releasing_another_s_lease_is_logged(moderators, django_user_model) -> None:
    case = make_case("c-1")
    lead = user_in(django_user_model, "lena", "Leads")
    lease = leases.take_next(CASES, moderators[0], default_project_id())
    decision = leases.release_for_holder(lease, actor=lead)
    assert not Lease.objects.exists()
    assert (decision.action, decision.actor, decision.before["holder"]) == (
        "lease.release",
        lead,
        "mod0",
    )
    assert decision.before["item_id"] == case.pk


def test_only_a_lead_or_staff_may_release_another_s_lease(moderators) -> None:
    make_case("c-1")
    lease = leases.take_next(CASES, moderators[0], default_project_id())
    with pytest.raises(ActionRefused, match="Only leads and staff"):
        leases.release_for_holder(lease, actor=moderators[1])
    assert Lease.objects.filter(pk=lease.pk).exists()
    assert not Decision.objects.exists()


def test_the_log_tells_a_lead_s_release_of_a_lease_from_its_lapsing(
    moderators, django_user_model
) -> None:
    case = make_case("c-1")
    lead = user_in(django_user_model, "lena", "Leads")
    mod = moderators[0]
    released = leases.take_next(CASES, mod, default_project_id())
    decision = leases.release_for_holder(released, actor=lead)
    assert leases.lead_release_of(CASES, case.pk, mod, released.pk) == decision
    # Taken again, it lapses: that lease was not released by anyone.
    lapsed = leases.take(CASES, case.pk, mod)
    leases.release(CASES, case.pk, mod)
    assert leases.lead_release_of(CASES, case.pk, mod, lapsed.pk) is None
    assert leases.lead_release_of(CASES, case.pk, moderators[1], released.pk) is None


def test_taking_one_item_again_is_refused_while_someone_else_holds_it(moderators) -> None:
    case = make_case("c-1")
    first, second, _ = moderators
    held = leases.take_next(CASES, second, default_project_id())
    with pytest.raises(ActionRefused, match="Someone else holds this case now"):
        leases.take(CASES, case.pk, first)
    assert list(Lease.objects.values_list("pk", "holder")) == [(held.pk, second.pk)]


def test_taking_an_item_decided_meanwhile_again_is_refused(moderators) -> None:
    case = make_case("c-1")
    decide_case(case, "uphold", actor=moderators[1], expected_version=1, note="")
    with pytest.raises(ActionRefused, match="no longer waiting for you"):
        leases.take(CASES, case.pk, moderators[0])
    assert not Lease.objects.exists()


def test_who_else_is_here_leaves_out_oneself_and_those_gone_quiet(moderators) -> None:
    case = make_case("c-1")
    me, other, quiet = moderators
    for person in moderators:
        leases.mark_present(CASES, case.pk, person)
    old = timezone.now() - timedelta(seconds=leases.PRESENCE_SECONDS + 1)
    leases.Presence.objects.filter(user=quiet).update(seen_at=old)
    assert leases.others_here(CASES, case.pk, me) == [other.username]
