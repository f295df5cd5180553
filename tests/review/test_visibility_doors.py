"""Who may see a plan, a case or an answer is one rule, on its model beside its queryset twin
(`Plan.visible_to` and `Plan.objects.visible_to`, `SecondOpinions.visible_to` and its
queryset's), and every door that reads those items asks it: the API as the key's user, the
commands as the operator (who reads as staff would), an open page's poll as the person.

Every API route and every command is listed here with how it reads, so a new door cannot slip
past unlisted; a reader who may not see a plan finds it at no API route that names it; and a
rule changed to hide everything is met at every door listed as reading through it, which is
what lets the next rule (projects, membership) be written in one place.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command, get_commands
from django.core.management.base import CommandError
from django.urls import reverse

from review.actions.plan_reviews import open_review_copy
from review.api import api
from review.models import Plan, PlanQuerySet, SecondOpinions, SecondOpinionsQuerySet
from review.models.projects import DEFAULT_SLUG
from tests.builders.api import api_client, pipeline_user
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import make_plan
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.urls import url_of
from tests.builders.users import user_in
from tests.review.test_blindness_doors import route_keys

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}

# How a door reads. Those that read plans, cases or answers read them through the rule.
THROUGH_THE_RULE = "reads plans through Plan.objects.visible_to"
LOG = (
    "the log as its reader may read it: Decision.objects.blind_to, which reads "
    "Plan.objects.blind_to, which reads Plan.objects.visible_to"
)
ITEMS = "reads cases and answers through SecondOpinions.objects.visible_to"
FIGURES = "figures over every decision, for the roles that read them (can_read_insights)"
DOCUMENTS = "finds a document by id through Document.objects.visible_to, in one project"
WRITES = "writes what it is given and reads back only what it wrote"

API_DOORS = {
    "api:openapi-json": "the schema: no rows",
    "api:api-root": "django-ninja's root: 404, no rows",
    "api:post_document": WRITES,
    "api:propose": DOCUMENTS,
    "api:post_plan": DOCUMENTS,
    "api:post_annotations": DOCUMENTS,
    "api:post_label_studio": DOCUMENTS,
    "api:post_revision": DOCUMENTS,
    "api:list_plans": THROUGH_THE_RULE,
    "api:get_plan": THROUGH_THE_RULE,
    "api:get_plan_export": THROUGH_THE_RULE,
    "api:get_plan_annotations": THROUGH_THE_RULE,
    "api:get_plan_label_studio": THROUGH_THE_RULE,
    # The imports share their address with the lists, whose GET reads through the rule.
    "api:post_cases": WRITES,
    "api:post_answers": WRITES,
    "api:list_cases": ITEMS,
    "api:get_case": ITEMS,
    "api:list_answers": ITEMS,
    "api:get_answer": ITEMS,
    "api:job": "a job through its own rule, Job.visible_to",
    "api:list_decisions": LOG,
    "api:insights": FIGURES,
    "api:agreement": FIGURES,
    "api:list_projects": "the projects the key acts for: no plans, cases or answers",
}

COMMANDS = {
    "export_plan": THROUGH_THE_RULE,
    "export_decisions": f"{LOG} (for no one in particular: every review under way withheld)",
    "export_dataset": f"{LOG} (for no one in particular) and adjudicated plans only, frozen",
    "insights": FIGURES,
    "agreement": FIGURES,
    "add_revision": DOCUMENTS,
    "import_plan": DOCUMENTS,
    "propose": WRITES,
    "import_cases": WRITES,
    "import_answers": WRITES,
    "demo": WRITES,
    "create_api_token": "makes a key for a named user: no plans, cases or answers",
    "send_webhooks": "sends the deliveries waiting, as the worker does: it shows nothing",
    "recount": "rebuilds every plan's stored counters, review copies too: it shows no plan",
}


def api_routes() -> dict[str, set[str]]:
    """API route name -> its URL kwargs but the project's (every one is asked in "Default"),
    read off the API's URL table itself."""
    return {
        f"api:{name}": keys - {"project"}
        for name, keys in route_keys(api.urls[0]).items()
        if name is not None
    }


def api_url(name: str, **kwargs) -> str:
    return reverse(name, kwargs={"project": DEFAULT_SLUG} | kwargs)


def test_every_api_route_and_every_command_says_how_it_reads() -> None:
    ours = {name for name, app in get_commands().items() if app == "review"}

    assert sorted(set(api_routes()) ^ set(API_DOORS)) == [], "list these routes in API_DOORS"
    assert sorted(ours ^ set(COMMANDS)) == [], "list these commands in COMMANDS"


def plan_routes() -> list[str]:
    routes = [name for name, how in API_DOORS.items() if how == THROUGH_THE_RULE]
    keys = api_routes()
    assert all(keys[name] <= {"plan_id"} for name in routes), "teach plan_urls() these kwargs"
    return routes


def plan_urls(plan_id: int) -> list[str]:
    return [
        api_url(name, **({"plan_id": plan_id} if api_routes()[name] else {}))
        for name in plan_routes()
    ]


def test_a_reader_who_may_not_see_a_review_copy_finds_it_at_no_api_route_that_names_it(
    django_user_model,
):
    double_review("plans")
    plan = make_plan(3)
    first = user_in(django_user_model, "first", "Editors")
    copy = open_review_copy(plan, actor=first)
    hand_in_review(copy, first)  # handed in: what an export would serve
    pipeline_user(key="other-editor", groups=("Editors",), username="other")
    other = api_client("other-editor")

    for name in plan_routes():
        if api_routes()[name]:
            url = api_url(name, plan_id=copy.pk)
            response = other.get(url)
            assert response.status_code == 404, url
            assert response.json()["detail"] == f"there is no plan {copy.pk}"
        else:
            listed = other.get(api_url(name), {"limit": 500}).json()["items"]
            assert copy.pk not in {row["id"] for row in listed}


@pytest.fixture
def adjudicated(editor):
    plan = make_plan(2)
    hand_in_review(plan, editor)
    return plan


def hide_everything(monkeypatch) -> None:
    """Change who may see a plan, a case or an answer, in its one home: nobody, anything."""
    monkeypatch.setattr(PlanQuerySet, "visible_to", lambda self, user: self.none())
    monkeypatch.setattr(Plan, "visible_to", lambda self, user: False)
    monkeypatch.setattr(SecondOpinionsQuerySet, "visible_to", lambda self, user: self.none())
    monkeypatch.setattr(SecondOpinions, "visible_to", lambda self, user: False)


def read_at_every_door(client, key_client, plan_id: int, items: dict) -> dict:
    """What each door listed as reading through the rule answers for the planted items."""
    answers = {}
    for url in plan_urls(plan_id):
        response = key_client.get(url)
        body = response.json() if response.status_code == 200 else None
        # A list's page holds items; an export (a Label Studio task list, too) is the plan.
        rows = body.get("items") if isinstance(body, dict) else None
        found = plan_id in {row["id"] for row in rows} if rows is not None else None
        answers[url] = found if found is not None else response.status_code
    out = io.StringIO()
    try:
        call_command("export_plan", str(plan_id), stdout=out, stderr=io.StringIO())
        answers["export_plan"] = "written"
    except CommandError as refused:
        answers["export_plan"] = str(refused)
    for queue, pk in items.items():
        url = url_of("item-here", queue, pk)
        answers[url] = client.post(url, headers=HTMX).status_code
    return answers


def test_a_rule_changed_in_its_one_home_is_met_at_every_door_that_reads_through_it(
    client, editor, adjudicated, monkeypatch
):
    pipeline_user()
    items = {
        "plans": adjudicated.pk,
        "cases": make_case("c-1").pk,
        "answers": make_answer("a-1").pk,
    }

    before = read_at_every_door(client, api_client(), adjudicated.pk, items)
    hide_everything(monkeypatch)
    after = read_at_every_door(client, api_client(), adjudicated.pk, items)

    assert set(before.values()) <= {200, True, "written"}, before
    assert set(after) == set(before)
    for door, answer in after.items():
        assert answer in (404, False, f"there is no plan with id {adjudicated.pk}"), door


def test_a_rule_changed_in_its_one_home_is_met_at_the_api_routes_of_cases_and_answers(
    monkeypatch,
):
    pipeline_user()
    api = api_client()
    ids = {"case_id": make_case("c-1").pk, "answer_id": make_answer("a-1").pk}
    routes = [name for name, how in API_DOORS.items() if how == ITEMS]
    assert all(api_routes()[name] <= set(ids) for name in routes), "teach this test the kwargs"

    def read() -> dict:
        answers = {}
        for name in routes:
            kwargs = {key: ids[key] for key in api_routes()[name]}
            response = api.get(api_url(name, **kwargs))
            listed = kwargs == {} and response.status_code == 200
            answers[name] = bool(response.json()["items"]) if listed else response.status_code
        return answers

    before = read()
    hide_everything(monkeypatch)
    after = read()

    assert set(before.values()) <= {200, True}, before
    assert set(after.values()) <= {404, False}, after
