"""Who may see what under double review is said twice: once on the model, for one row in
hand (`Plan.blind_to`, `Plan.visible_to`, `SecondOpinions.review_stage`), and once in SQL, for
the log and the queues (`Plan.objects.blind_to`, `Decision.objects.blind_to`,
`awaiting_second_q`, `in_curation_q`); and who may see an item at all (`Plan.visible_to`,
`SecondOpinions.visible_to`), once on the model and once on its manager, for every door that
reads many rows or finds one by id. These tests hold each pair to the same answer in every
state, and the views' `get_plan_for_user` to `Plan.decidable_by`; and who may see an item is
held the same way for a member of its project, a member of another project only, and staff."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404

from review.actions.cases import decide_case
from review.actions.plan_reviews import open_review_copy
from review.jobs import start_job
from review.models import Answer, Case, Decision, Document, Job, Plan, Project
from review.models.projects import default_project_id
from review.views.plan_context import get_plan_for_user
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import make_plan
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.users import make_project, member, user_in

pytestmark = pytest.mark.django_db

# How far the double review of one plan has come.
STAGES = ("one_copy_open", "one_copy_in", "both_in_differing", "both_in_agreeing")
READERS = ("first_reviewer", "second_reviewer", "curator", "other_editor", "reader", "staff")


def people(django_user_model) -> dict:
    made = {
        name: user_in(django_user_model, name, group)
        for name, group in (
            ("first_reviewer", "Editors"),
            ("second_reviewer", "Editors"),
            ("curator", "Curators"),
            ("other_editor", "Editors"),
            ("reader", "Readers"),
        )
    }
    made["staff"] = django_user_model.objects.create_user("boss", is_staff=True)
    return made


def plan_at(stage: str, first, second) -> Plan:
    double_review("plans")
    plan = make_plan(3)
    copy = open_review_copy(plan, actor=first)
    if stage == "one_copy_open":
        return plan
    hand_in_review(copy, first)
    if stage == "both_in_differing":
        hand_in_review(open_review_copy(plan, actor=second), second, reject=[-1])
    elif stage == "both_in_agreeing":
        hand_in_review(open_review_copy(plan, actor=second), second)
    return plan


@pytest.mark.parametrize("stage", STAGES)
def test_a_review_copy_and_its_queryset_twin_agree_on_whom_its_log_is_withheld_from(
    django_user_model, stage
):
    who = people(django_user_model)
    plan = plan_at(stage, who["first_reviewer"], who["second_reviewer"])
    copies = list(Plan.objects.filter(review_of=plan))

    for reader in [*who.values(), None]:
        hidden = set(Plan.objects.blind_to(reader).values_list("pk", flat=True))
        log = Decision.objects.blind_to(reader).filter(object_type="plan")
        withheld = dict(log.values_list("object_id", "withheld"))
        for copy in copies:
            copy = Plan.objects.get(pk=copy.pk)
            assert copy.blind_to(reader) == (copy.pk in hidden), (stage, reader, copy.pk)
            assert withheld[str(copy.pk)] == copy.blind_to(reader), (stage, reader)


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("name", READERS)
def test_while_its_plan_is_open_a_copy_is_withheld_from_whoever_may_not_see_its_page(
    django_user_model, stage, name
):
    who = people(django_user_model)
    plan = plan_at(stage, who["first_reviewer"], who["second_reviewer"])
    plan.refresh_from_db()

    for copy in Plan.objects.filter(review_of=plan):
        if plan.is_open:
            assert copy.blind_to(who[name]) == (not copy.visible_to(who[name]))
        else:
            assert not copy.blind_to(who[name])


@pytest.mark.parametrize("stage", STAGES)
def test_who_may_see_a_plan_and_its_queryset_twin_agree(django_user_model, stage):
    who = people(django_user_model)
    plan_at(stage, who["first_reviewer"], who["second_reviewer"])
    make_plan(2)  # a plan nobody reviews twice, beside the one two editors review

    # None: a command's operator, who reads as staff would.
    for reader in [*who.values(), AnonymousUser(), None]:
        seen = set(Plan.objects.visible_to(reader).values_list("pk", flat=True))
        for plan in Plan.objects.all():
            assert plan.visible_to(reader) == (plan.pk in seen), (stage, reader, plan.pk)


@pytest.mark.parametrize("stage", STAGES)
def test_the_operator_of_a_command_sees_the_plans_staff_see(django_user_model, stage):
    who = people(django_user_model)
    plan_at(stage, who["first_reviewer"], who["second_reviewer"])

    as_staff = set(Plan.objects.visible_to(who["staff"]))

    assert set(Plan.objects.visible_to(None)) == as_staff
    # Until both copies are in, neither is staff's to see.
    assert (as_staff == set(Plan.objects.all())) == stage.startswith("both_in")


OPINIONS = ("", "upheld", "overturned")


@pytest.mark.parametrize("first", OPINIONS)
@pytest.mark.parametrize("second", OPINIONS)
@pytest.mark.parametrize("verdict", ["proposed", "upheld"])
def test_a_cases_review_stage_and_its_filters_agree(first, second, verdict):
    make_case("c-1")
    # A fixture, not a decision: the stage is what the two opinions and the verdict say.
    Case.objects.filter(case_id="c-1").update(
        first_opinion=first, second_opinion=second if first else "", verdict=verdict
    )
    case = Case.objects.get(case_id="c-1")
    cases = Case.objects.filter(pk=case.pk)

    assert (case.review_stage == Case.AWAITING_SECOND) == cases.filter(
        Case.awaiting_second_q()
    ).exists()
    assert (case.review_stage == Case.IN_CURATION) == cases.filter(Case.in_curation_q()).exists()


@pytest.mark.parametrize("model", [Case, Answer])
@pytest.mark.parametrize("first", OPINIONS)
@pytest.mark.parametrize("second", OPINIONS)
def test_who_may_read_a_case_or_an_answer_and_its_queryset_twin_agree(
    django_user_model, model, first, second
):
    who = people(django_user_model)
    item = make_case("c-1") if model is Case else make_answer("a-1")
    # A fixture, not a decision: each stage of a double review, by the two opinions.
    model.objects.filter(pk=item.pk).update(
        first_opinion=first,
        first_by=who["first_reviewer"] if first else None,
        second_opinion=second if first else "",
        second_by=who["second_reviewer"] if first and second else None,
    )
    item = model.objects.get(pk=item.pk)

    for reader in [*who.values(), AnonymousUser(), None]:
        listed = model.objects.visible_to(reader).filter(pk=item.pk).exists()
        assert item.visible_to(reader) == listed, (first, second, reader)


@pytest.mark.parametrize("stage", STAGES)
def test_the_plan_helper_lets_decide_exactly_whom_the_plans_rule_lets(django_user_model, rf, stage):
    who = people(django_user_model)
    plan = plan_at(stage, who["first_reviewer"], who["second_reviewer"])

    for user in who.values():
        request = rf.post("/")
        request.user = user
        for item in [plan, *Plan.objects.filter(review_of=plan)]:
            item = Plan.objects.get(pk=item.pk)
            try:
                get_plan_for_user(request, item.pk, decide=True)
            except (PermissionDenied, Http404):
                allowed = False
            else:
                allowed = True
            assert allowed == (item.visible_to(user) and item.decidable_by(user)), (stage, user)


# --- projects: a member, a member of another project only, staff ------------------------------


def across_projects(django_user_model) -> dict:
    """People of "Default" and of "alpha": the first reviewers' team, an editor and curator of
    alpha only (roles there give none here), and staff."""
    who = people(django_user_model)
    alpha = make_project("alpha")
    outsider = django_user_model.objects.create_user("outsider")
    member(outsider, alpha, "editor", "moderator", "curator", "lead")
    return {**who, "outsider": outsider, "alpha": alpha}


@pytest.mark.parametrize("stage", STAGES)
def test_who_may_see_a_plan_of_either_project_and_its_queryset_twin_agree(django_user_model, stage):
    who = across_projects(django_user_model)
    alpha = who.pop("alpha")
    plan_at(stage, who["first_reviewer"], who["second_reviewer"])
    make_plan(2, name="alpha.md", project=alpha)

    for reader in who.values():
        seen = set(Plan.objects.visible_to(reader).values_list("pk", flat=True))
        for plan in Plan.objects.all():
            assert plan.visible_to(reader) == (plan.pk in seen), (stage, reader, plan.pk)
    outsiders = set(Plan.objects.visible_to(who["outsider"]))
    assert outsiders == set(Plan.objects.filter(project=alpha))


@pytest.mark.parametrize("model", [Case, Answer, Document, Job, Decision])
def test_who_may_see_an_item_of_either_project_and_its_queryset_twin_agree(
    django_user_model, model
):
    who = across_projects(django_user_model)
    alpha = who.pop("alpha")
    default = Project.objects.get(pk=default_project_id())
    for project, moderator in ((default, who["first_reviewer"]), (alpha, who["outsider"])):
        member(moderator, project, "moderator")
        case = make_case("c-1", project=project)
        decide_case(case, "uphold", actor=moderator, expected_version=case.version, note="")
        make_answer("a-1", project=project)
        make_plan(2, project=project)
        start_job(Job.Kind.EXPORT_DECISIONS, moderator, project=project)

    for reader in who.values():
        seen = set(model.objects.visible_to(reader).values_list("pk", flat=True))
        for item in model.objects.all():
            assert item.visible_to(reader) == (item.pk in seen), (model, reader, item.pk)
        # Nobody sees both projects' items but staff.
        projects = set(model.objects.filter(pk__in=seen).values_list("project", flat=True))
        assert (len(projects) == 2) == reader.is_staff, (model, reader)
