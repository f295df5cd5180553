"""A log row reads in the product's words wherever a page words it (the dashboard's recent
decisions, a plan's history): never a bare action code or a row's id in their place."""

from __future__ import annotations

import re

import pytest

from review.actions import leases
from review.actions.cases import decide_case
from review.actions.plan_reviews import open_review_copy
from review.models import Entry
from review.models.projects import default_project_id
from tests.builders.cases_answers import make_case
from tests.builders.decisions import logged_on
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

# An action code as the log keeps it ("case.curate"), or a row named by its kind and id.
RAW = re.compile(r"\b(entry|plan|case|answer|lease|policy)\.[a-z_]+\b|\blease \d+\b")


def recent_words(client, user) -> list[str]:
    client.force_login(user)
    return [item["words"] for item in client.get("/").context["recent"]]


def test_a_curator_s_dashboard_says_they_settled_the_case_in_curation(
    client, moderator, moderator2, curator
) -> None:
    double_review("cases")
    case = make_case("c-1004")
    for person, verdict in ((moderator, "overturn"), (moderator2, "uphold")):
        decide_case(case, verdict, actor=person, expected_version=case.version, note="why")
        case.refresh_from_db()
    decide_case(case, "uphold", actor=curator, expected_version=case.version, note="")

    [words] = recent_words(client, curator)

    assert words == "settled c-1004 in curation: upheld"


def test_each_reviewer_s_dashboard_names_their_opinion_on_the_case(
    client, moderator, moderator2
) -> None:
    double_review("cases")
    case = make_case("c-1004")
    decide_case(case, "overturn", actor=moderator, expected_version=case.version, note="why")
    case.refresh_from_db()
    decide_case(case, "needs_rewrite", actor=moderator2, expected_version=case.version, note="x")

    assert recent_words(client, moderator) == ["gave the first opinion on c-1004: overturned"]
    assert recent_words(client, moderator2) == ["gave the second opinion on c-1004: needs rewrite"]


def test_a_lead_s_dashboard_names_whose_hold_on_which_item_they_released(
    client, moderator, django_user_model
) -> None:
    case = make_case("c-1004")
    lead = user_in(django_user_model, "lena", "Leads")
    lease = leases.take_next("cases", moderator, default_project_id())
    leases.release_for_holder(lease, actor=lead)

    [words] = recent_words(client, lead)

    assert words == f"released moderator's hold on {case.case_id}"


def test_a_released_hold_whose_item_is_not_logged_is_not_named_by_the_lease_s_id(
    client, moderator, django_user_model
) -> None:
    make_case("c-1004")
    lead = user_in(django_user_model, "lena", "Leads")
    lease = leases.take_next("cases", moderator, default_project_id())
    logged_on(lease, actor=lead, action="lease.release")

    [words] = recent_words(client, lead)

    assert words == "released the hold on an item no longer here"


def test_staff_s_dashboard_names_the_queue_whose_review_policy_they_set(client) -> None:
    policy = double_review("answers")

    [words] = recent_words(client, policy.decided_by)

    assert words == "set the review policy for answers"


def test_an_editor_s_review_copy_is_named_as_the_review_copy_of_its_plan(client, editor) -> None:
    double_review("plans")
    plan = make_plan(2)
    hand_in_review(open_review_copy(plan, actor=editor), editor)

    words = recent_words(client, editor)

    assert words[0] == f"adjudicated the review copy of plan {plan.pk}"
    assert words[-1] == f"opened the review copy of plan {plan.pk}"
    assert words[1].startswith("accepted entry #")
    assert words[1].endswith(f") of the review copy of plan {plan.pk}")
    assert not any(RAW.search(line) for line in words), words


def test_every_recent_decision_reads_without_an_action_code(
    client, moderator, moderator2, curator, django_user_model
) -> None:
    """The dashboards of everyone above, each action they took, in one sweep."""
    double_review("cases")
    case = make_case("c-1004")
    make_case("c-2000")
    for person, verdict in ((moderator, "overturn"), (moderator2, "uphold")):
        decide_case(case, verdict, actor=person, expected_version=case.version, note="why")
        case.refresh_from_db()
    decide_case(case, "uphold", actor=curator, expected_version=case.version, note="")
    lead = user_in(django_user_model, "lena", "Leads")
    leases.release_for_holder(
        leases.take_next("cases", moderator, default_project_id()), actor=lead
    )

    for person in (moderator, moderator2, curator, lead):
        words = recent_words(client, person)
        assert words and not any(RAW.search(line) for line in words), words


# --- a plan's history ------------------------------------------------------------------------


def test_a_plan_s_history_names_the_plan_it_adjudicated_even_when_an_entry_shares_its_id(
    client, editor
) -> None:
    plan = make_plan(2)
    if not Entry.objects.filter(pk=plan.pk).exists():
        # An entry of the plan with the plan's own id, as the first plan of a database has.
        twin = entries_of(plan)[-1]
        twin.pk, twin.position = plan.pk, twin.position + 1
        twin.save(force_insert=True)
    twin = Entry.objects.select_related("plan").get(pk=plan.pk)
    logged_on(twin, actor=editor, action="entry.accept")
    logged_on(plan, actor=editor, action="plan.adjudicate")

    rows = client.get(f"/p/default/plans/{plan.pk}/history/").context["rows"]

    words = {row["decision"].action: row["words"] for row in rows if row["decision"].pk}
    assert words["plan.adjudicate"] == f"adjudicated plan {plan.pk}"
    assert [row["on"] for row in rows if row["decision"].action == "plan.adjudicate"] == [
        "the plan"
    ]


def test_a_review_copy_s_history_names_the_plan_it_is_a_copy_of(client, editor) -> None:
    double_review("plans")
    plan = make_plan(2)
    copy = open_review_copy(plan, actor=editor)
    hand_in_review(copy, editor)

    rows = client.get(f"/p/default/plans/{copy.pk}/history/").context["rows"]

    plan_rows = [row["words"] for row in rows if row["decision"].object_type == "plan"]
    assert plan_rows == [
        f"adjudicated the review copy of plan {plan.pk}",
        f"opened the review copy of plan {plan.pk}",
    ]
