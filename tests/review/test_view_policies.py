"""/p/default/policies/: staff set each queue's review policy; the change is logged."""

from __future__ import annotations

import pytest

from grounding.evidence import VALIDATION_REASONS
from grounding.propose import RULE_NAMES
from review.actions.reviews import set_policy
from review.decisions import ActionRefused
from review.models import Decision, ReviewPolicy
from review.models.projects import default_project_id
from tests.builders.plan_views import make_plan

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(sign_in):
    user = sign_in("boss")
    user.is_staff = True
    user.save()
    return user


def form(**fields) -> dict:
    values = {"mode": "double", "share_percent": 25, "seed": "s", "version": 1}
    values.update(fields)
    return {f"cases-{name}": value for name, value in values.items()}


def test_staff_set_double_review_for_a_share_and_the_change_is_logged(client, staff):
    response = client.post(
        "/p/default/policies/cases/",
        form(reasons=["no_citations", "uncited_claims"], on_overturn="on"),
    )

    assert response.status_code == 302
    policy = ReviewPolicy.objects.get(queue="cases")
    assert (policy.mode, policy.share_percent, policy.on_overturn) == ("double", 25, True)
    assert policy.reasons == ["no_citations", "uncited_claims"]
    [logged] = Decision.objects.filter(action="policy.set")
    assert (logged.actor_name, logged.before["mode"], logged.after["mode"]) == (
        "boss",
        "single",
        "double",
    )


def test_the_page_shows_every_queue_to_staff(client, staff):
    body = client.get("/p/default/policies/").content.decode()

    for queue in ("plans", "cases", "answers"):
        assert f'action="/p/default/policies/{queue}/"' in body


def test_a_share_over_a_hundred_is_refused_with_the_field_named(client, staff):
    response = client.post("/p/default/policies/cases/", form(share_percent=150))

    assert response.status_code == 422
    assert "less than or equal to 100" in response.content.decode()
    assert not ReviewPolicy.objects.exists()


def test_a_stale_version_is_refused_rather_than_overwriting(client, staff):
    client.post("/p/default/policies/cases/", form())

    response = client.post("/p/default/policies/cases/", form(share_percent=90, version=1))

    assert response.status_code == 422
    assert ReviewPolicy.objects.get(queue="cases").share_percent == 25


@pytest.mark.parametrize("path", ["/p/default/policies/", "/p/default/policies/cases/"])
def test_a_moderator_may_not_see_or_set_policies(client, moderator, path):
    response = client.get(path) if path == "/p/default/policies/" else client.post(path, form())

    assert response.status_code == 403
    assert not ReviewPolicy.objects.exists()


def test_an_unknown_queue_is_not_found(client, staff):
    assert client.post("/p/default/policies/nothing/", form()).status_code == 404


def test_a_reason_that_does_not_exist_is_a_field_error_and_nothing_is_saved(client, staff):
    # "uncited_claim" (the sentence status) for "uncited_claims" (the reason): a policy saved
    # with it would never fire.
    response = client.post(
        "/p/default/policies/cases/", form(reasons=["cited_non_success_evidence", "uncited_claim"])
    )

    assert response.status_code == 422
    body = response.content.decode()
    assert "uncited_claim is not a validator reason." in body
    assert "is saved" not in body
    assert not ReviewPolicy.objects.exists()
    assert not Decision.objects.exists()


def test_a_rule_that_does_not_exist_is_a_field_error(client, staff):
    response = client.post(
        "/p/default/policies/plans/", {"plans-rules": ["rule:headings"]} | plans_form()
    )

    assert response.status_code == 422
    assert "rule:headings is not a proposer rule." in response.content.decode()
    assert not ReviewPolicy.objects.exists()


def plans_form() -> dict:
    return {
        f"plans-{name}": value
        for name, value in {"mode": "double", "share_percent": 0, "version": 1}.items()
    }


def test_the_form_offers_every_reason_and_rule_with_what_it_means(client, staff):
    body = client.get("/p/default/policies/").content.decode()

    for code in (*VALIDATION_REASONS, *RULE_NAMES):
        assert f'value="{code}"' in body, code
    assert "uncited_claims: claims without a citation" in body
    assert "rule:pdf-outline: a PDF bookmark placed on its line of the text" in body


def test_a_rule_an_imported_plan_names_may_be_chosen(client, staff):
    plan = make_plan(2)
    plan.entries.update(rules=["rule:llm-section"])

    response = client.post(
        "/p/default/policies/plans/", {"plans-rules": ["rule:llm-section"]} | plans_form()
    )

    assert response.status_code == 302
    assert ReviewPolicy.objects.get(queue="plans").rules == ["rule:llm-section"]


def test_the_action_refuses_an_unknown_reason_at_every_other_door(staff):
    with pytest.raises(ActionRefused, match="No validator reason is called 'uncited_claim'"):
        set_policy(
            "cases",
            project=default_project_id(),
            actor=staff,
            expected_version=1,
            mode="double",
            share_percent=0,
            reasons=["uncited_claim"],
        )

    assert not ReviewPolicy.objects.exists()
