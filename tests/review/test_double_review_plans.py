"""Double review of a plan: two editors each adjudicate their own copy; agreements settle the
plan's entries, a curator settles the differences, and only then is the plan adjudicated,
its export naming each entry's reviewers and curator."""

from __future__ import annotations

import json

import pytest

from grounding.segmentation import parse_segmentation_plan, slice_segments
from review.actions.plan_reviews import (
    curate_entry,
    differing_entries,
    entry_reviews,
    open_review_copy,
)
from review.adapters.errors import PlanNotAdjudicable
from review.adapters.plans import export_plan
from review.decisions import ActionRefused
from review.models import Decision, Plan
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def editor2(django_user_model):
    return user_in(django_user_model, "editor2", "Editors")


@pytest.fixture
def plan():
    double_review("plans")
    return make_plan(3)


def reviewed_with_one_difference(plan, editor, editor2) -> None:
    hand_in_review(open_review_copy(plan, actor=editor), editor)
    hand_in_review(open_review_copy(plan, actor=editor2), editor2, reject=[-1])


def test_a_plan_one_editor_reviewed_is_neither_adjudicated_nor_exportable(plan, editor):
    hand_in_review(open_review_copy(plan, actor=editor), editor)

    plan.refresh_from_db()
    assert plan.is_open
    assert all(entry.state == "proposed" for entry in entries_of(plan))
    with pytest.raises(PlanNotAdjudicable):
        export_plan(plan)


def test_the_entries_not_settled_by_two_reviewers_are_numbered_as_the_screen_does(plan):
    first = entries_of(plan)[0]

    with pytest.raises(PlanNotAdjudicable) as refused:
        entry_reviews(plan)

    assert f"#1 ({first.path!r})" in str(refused.value)
    assert "#0 (" not in str(refused.value)


def test_entries_the_two_reviews_agree_on_are_settled_and_only_the_difference_is_left(
    plan, editor, editor2
):
    reviewed_with_one_difference(plan, editor, editor2)

    states = [entry.state for entry in entries_of(plan)]
    assert states[:-1] == ["accepted"] * (len(states) - 1) and states[-1] == "proposed"
    [(entry, first, second)] = differing_entries(plan)
    assert (entry.position, first.state, second.state) == (len(states) - 1, "accepted", "rejected")
    assert Decision.objects.filter(action="entry.agreed").count() == len(states) - 1


def test_the_curators_pick_settles_the_last_entry_and_adjudicates_the_plan(
    plan, editor, editor2, curator
):
    reviewed_with_one_difference(plan, editor, editor2)
    [(entry, _, _)] = differing_entries(plan)

    curate_entry(entry, "second", actor=curator, expected_version=entry.version)

    plan.refresh_from_db()
    assert not plan.is_open
    payload = json.loads(export_plan(plan))
    assert payload["double_review"] is True
    assert all(e["adjudication"]["reviewers"] == ["editor", "editor2"] for e in payload["entries"])
    [rejected] = payload["rejected"]
    assert rejected["adjudication"]["curator"] == "curator"
    # Replay-safe: the gate accepts it, and the bodies come back.
    text = plan.document.text
    assert len(slice_segments(text, parse_segmentation_plan(payload, text))) == len(
        payload["entries"]
    )
    curation = Decision.objects.get(action="entry.curate")
    assert "accepted by editor and rejected by editor2" in curation.note


def test_a_curator_may_not_settle_an_entry_the_reviews_agree_on(plan, editor, editor2, curator):
    reviewed_with_one_difference(plan, editor, editor2)
    agreed = entries_of(plan)[0]

    with pytest.raises(ActionRefused, match="agree on this entry"):
        curate_entry(agreed, "first", actor=curator, expected_version=agreed.version)


def test_a_third_editor_gets_no_copy(plan, editor, editor2, django_user_model):
    open_review_copy(plan, actor=editor)
    open_review_copy(plan, actor=editor2)
    third = user_in(django_user_model, "editor3", "Editors")

    with pytest.raises(ActionRefused, match="Two editors are already reviewing"):
        open_review_copy(plan, actor=third)


def test_an_editor_never_sees_the_other_editors_copy(client, plan, editor, editor2):
    theirs = open_review_copy(plan, actor=editor2)

    client.force_login(editor)
    assert client.get(f"/p/default/plans/{theirs.pk}/").status_code == 404
    mine = client.post(f"/p/default/plans/{plan.pk}/review-copy/")
    assert mine.status_code == 302 and mine["Location"] != f"/p/default/plans/{theirs.pk}/"


def test_the_plans_own_entries_are_not_decided_directly_under_double_review(client, plan, editor):
    entry = entries_of(plan)[0]

    response = client.post(
        f"/p/default/plans/{plan.pk}/entries/{entry.pk}/accept/", {"version": entry.version}
    )

    assert response.status_code == 403
    entry.refresh_from_db()
    assert entry.state == "proposed"


def test_the_curation_view_shows_only_the_entries_that_differ(
    client, plan, editor, editor2, curator
):
    reviewed_with_one_difference(plan, editor, editor2)
    last = entries_of(plan)[-1]

    client.force_login(curator)
    body = client.get(f"/p/default/plans/{plan.pk}/curation/").content.decode()

    assert body.count('class="card curation-entry"') == 1
    assert f"Entry #{last.number}" in body and "Take editor2's" in body


def test_only_curators_see_the_curation_view(client, plan, editor):
    assert client.get(f"/p/default/plans/{plan.pk}/curation/").status_code == 403


def test_a_listed_proposer_rule_always_asks_for_two_even_at_a_zero_share():
    double_review("plans", share_percent=0, rules=["rule:pdf-outline"])
    plain = make_plan(2, name="a.md")
    assert not plain.is_double_reviewed()

    rules = sorted({rule for entry in entries_of(plain) for rule in entry.rules})
    double_review("plans", share_percent=0, rules=rules[:1])
    assert Plan.objects.get(pk=plain.pk).is_double_reviewed()
    assert Plan.objects.with_review_policy().get(pk=plain.pk).is_double_reviewed()


def test_the_plans_agreement_figures_count_each_entry_of_the_two_reviews(
    plan, editor, editor2, curator
):
    from review.agreement import agreement

    reviewed_with_one_difference(plan, editor, editor2)
    [(entry, _, _)] = differing_entries(plan)
    curate_entry(entry, "second", actor=curator, expected_version=entry.version)

    figures = agreement().plans
    n = len(entries_of(plan))
    # editor accepted all n; editor2 all but the last: po = (n - 1) / n, and with one
    # reviewer's labels all alike, pe = po, so κ = 0.
    assert figures.items == n
    assert figures.kappa.value == pytest.approx(0.0)
    [pair] = figures.people.pairs
    assert pair.percent.value == pytest.approx((n - 1) / n)
    assert figures.curation.outcomes == {"sided with the second": 1}
    rules = {group.name: group for group in figures.by_rule}
    assert rules and all(group.percent.n_items >= 1 for group in rules.values())
    assert sum(group.percent.n_items for group in rules.values()) >= n
