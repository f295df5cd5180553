"""Double review through the work queues: one Next per queue hands first and second reviews
alike, under a lease, never to someone who reviewed the item already, and disagreements to
curators; a plan is held as the editor's own review copy."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from review.actions import leases
from review.actions.answers import decide_answer
from review.actions.cases import decide_case
from review.actions.plan_reviews import open_review_copy
from review.decisions import ActionRefused
from review.models import Lease, Plan
from review.models.projects import default_project_id
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.users import member, user_in

pytestmark = pytest.mark.django_db

CASES, ANSWERS, PLANS = Lease.Queue.CASES, Lease.Queue.ANSWERS, Lease.Queue.PLANS


@pytest.fixture
def people(django_user_model):
    groups = {"mod": "Moderators", "ed": "Editors", "cur": "Curators"}
    names = ("mod1", "mod2", "mod3", "ed1", "ed2", "ed3", "cur", "cur2")
    return {
        name: user_in(django_user_model, name, groups[name.rstrip("0123456789")]) for name in names
    }


def opinion(case, user, verdict="uphold"):
    case.refresh_from_db()
    decide_case(case, verdict, actor=user, expected_version=case.version, note="n")


def taken(queue, user):
    lease = leases.take_next(queue, user, default_project_id())
    return None if lease is None else lease.item_id


# --- cases ---------------------------------------------------------------------------------


def test_next_hands_a_second_opinion_before_new_cases_but_never_to_the_first_reviewer(people):
    double_review("cases")
    begun, new = make_case("c-1"), make_case("c-2")
    opinion(begun, people["mod1"])

    assert taken(CASES, people["mod2"]) == begun.pk
    assert taken(CASES, people["mod1"]) == new.pk
    leases.release(CASES, new.pk, people["mod1"])
    assert taken(CASES, people["mod1"]) == new.pk  # and never the case they reviewed


def test_a_second_opinion_someone_holds_is_not_handed_to_a_third_reviewer(people):
    double_review("cases")
    begun = make_case("c-1")
    opinion(begun, people["mod1"])
    assert taken(CASES, people["mod2"]) == begun.pk

    assert taken(CASES, people["mod3"]) is None


def test_a_disagreement_goes_to_a_curator_not_to_the_moderators(people):
    double_review("cases")
    disputed = make_case("c-1")
    opinion(disputed, people["mod1"], "uphold")
    opinion(disputed, people["mod2"], "overturn")

    assert taken(CASES, people["mod3"]) is None
    assert taken(CASES, people["cur"]) == disputed.pk
    assert taken(CASES, people["cur2"]) is None  # held by the first curator


def test_a_curator_who_gave_an_opinion_is_not_handed_its_curation(people, django_user_model):
    both = user_in(django_user_model, "both", "Moderators")
    member(both, None, "curator")
    double_review("cases")
    disputed = make_case("c-1")
    opinion(disputed, both, "uphold")
    opinion(disputed, people["mod2"], "overturn")

    assert taken(CASES, both) is None


def test_a_curator_may_take_from_the_cases_queue_and_gets_only_curation(people, django_user_model):
    make_case("c-1")

    assert taken(CASES, people["cur"]) is None
    with pytest.raises(ActionRefused):
        leases.take_next(CASES, user_in(django_user_model, "rita", "Readers"), default_project_id())


def test_the_second_opinion_by_next_opens_the_next_case_after_it(client, people):
    double_review("cases")
    begun, new = make_case("c-1"), make_case("c-2")
    opinion(begun, people["mod1"])
    client.force_login(people["mod2"])

    opened = client.post("/p/default/cases/next/")
    assert opened["Location"] == f"/p/default/cases/{begun.pk}/"
    begun.refresh_from_db()
    decided = client.post(
        f"/p/default/cases/{begun.pk}/uphold/", {"version": begun.version, "note": ""}
    )

    assert decided["Location"] == f"/p/default/cases/{new.pk}/"
    begun.refresh_from_db()
    assert begun.verdict == "upheld"


def test_answers_take_the_same_way(people):
    double_review("answers")
    begun = make_answer("a-1")
    begun.refresh_from_db()
    decide_answer(begun, "publish", actor=people["ed1"], expected_version=begun.version, note="")

    assert taken(ANSWERS, people["ed1"]) is None
    assert taken(ANSWERS, people["ed2"]) == begun.pk


# --- plans ---------------------------------------------------------------------------------


def test_next_holds_a_double_reviewed_plan_as_each_editors_own_copy(people):
    double_review("plans")
    plan = make_plan(2)

    first = Plan.objects.get(pk=taken(PLANS, people["ed1"]))
    second = Plan.objects.get(pk=taken(PLANS, people["ed2"]))

    assert (first.review_of, first.reviewer) == (plan, people["ed1"])
    assert (second.review_of, second.reviewer) == (plan, people["ed2"])
    assert taken(PLANS, people["ed3"]) is None  # two editors already review it


def test_next_hands_an_editor_back_their_unfinished_copy_but_never_one_they_submitted(people):
    double_review("plans")
    plan = make_plan(2)
    copy = Plan.objects.get(pk=taken(PLANS, people["ed1"]))
    Lease.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    assert taken(PLANS, people["ed1"]) == copy.pk
    hand_in_review(copy, people["ed1"])
    assert taken(PLANS, people["ed1"]) is None
    assert plan.is_open


def test_pressing_next_on_ones_copy_moves_on_to_another_plan(people):
    double_review("plans")
    make_plan(2)
    other = make_plan(2, name="other.md")
    taken(PLANS, people["ed1"])

    copy = Plan.objects.get(pk=taken(PLANS, people["ed1"]))

    assert copy.review_of == other


def test_a_plan_in_curation_goes_to_a_curator_and_opens_on_its_curation_page(client, people):
    double_review("plans")
    plan = make_plan(2)
    hand_in_review(open_review_copy(plan, actor=people["ed1"]), people["ed1"])
    hand_in_review(open_review_copy(plan, actor=people["ed2"]), people["ed2"], reject=[-1])
    assert taken(PLANS, people["ed3"]) is None
    client.force_login(people["cur"])

    response = client.post("/p/default/plans/next/")

    assert response["Location"] == f"/p/default/plans/{plan.pk}/curation/"
    assert taken(PLANS, people["cur2"]) is None
    page = client.get(f"/p/default/plans/{plan.pk}/curation/").content.decode()
    assert f'action="/p/default/open/plans/{plan.pk}/here/"' in page  # its poll renews the lease


def test_the_last_settlement_of_a_plan_handed_by_next_opens_the_next_item(client, people):
    double_review("plans")
    plan = make_plan(2)
    hand_in_review(open_review_copy(plan, actor=people["ed1"]), people["ed1"])
    hand_in_review(open_review_copy(plan, actor=people["ed2"]), people["ed2"], reject=[-1])
    client.force_login(people["cur"])
    client.post("/p/default/plans/next/")
    entry = entries_of(plan)[-1]

    response = client.post(
        f"/p/default/plans/{plan.pk}/curation/{entry.pk}/",
        {"version": entry.version, "pick": "first"},
    )

    plan.refresh_from_db()
    assert not plan.is_open
    assert response["Location"] == "/p/default/plans/next/"
    assert not Lease.objects.filter(holder=people["cur"]).exists()


def test_a_reloaded_copy_page_takes_its_lease_back(people):
    double_review("plans")
    make_plan(2)
    copy_pk = taken(PLANS, people["ed1"])
    leases.release(PLANS, copy_pk, people["ed1"])

    assert leases.renew(PLANS, copy_pk, people["ed1"], retake=True).holder == people["ed1"]
    assert leases.renew(PLANS, copy_pk, people["ed2"], retake=True) is None
