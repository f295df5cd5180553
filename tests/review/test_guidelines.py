"""A project's guidelines: versions made by edits, the stale edit refused naming who saved
since, the pages, the side panel of the item pages, and the version each decision records."""

from __future__ import annotations

import pytest
from django.test import Client

from review.actions.cases import decide_case
from review.actions.guidelines import edit_guidelines
from review.models import Case, Decision, Guideline, Project
from review.models.projects import default_project_id
from review.refusals import StaleEdit
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.pages import html_of
from tests.builders.plan_views import make_plan
from tests.builders.users import member

pytestmark = pytest.mark.django_db

TEXT = """Be brief.

## Segmentation

One entry per section.

## Moderation

Uphold only with evidence.
"""


@pytest.fixture
def lead(sign_in):
    return sign_in("lead", "Leads")


def project():
    return Project.objects.get(pk=default_project_id())


def test_each_edit_makes_the_next_version_and_the_current_is_the_highest(lead):
    edit_guidelines(project(), actor=lead, based_on=0, text="one")
    edit_guidelines(project(), actor=lead, based_on=1, text="two", summary="clearer")

    current = Guideline.objects.current_of(project())
    assert (current.version, current.text, current.summary) == (2, "two", "clearer")
    assert Guideline.objects.filter(project=project()).count() == 2


def test_an_edit_based_on_an_older_version_is_refused_naming_who_saved_since(lead):
    edit_guidelines(project(), actor=lead, based_on=0, text="one")

    with pytest.raises(StaleEdit, match="lead saved a newer version"):
        edit_guidelines(project(), actor=lead, based_on=0, text="mine")
    assert Guideline.objects.count() == 1


def test_the_edit_page_refuses_a_stale_save_with_409_and_keeps_the_text_typed(client, lead):
    client.post("/p/default/guidelines/edit/", {"text": "one", "based_on": 0})

    response = client.post("/p/default/guidelines/edit/", {"text": "my words", "based_on": 0})

    body = response.content.decode()
    assert response.status_code == 409
    assert "lead saved a newer version" in body and "my words" in body
    assert Guideline.objects.current_of(project()).text == "one"


def test_only_leads_and_staff_edit_the_guidelines(client, editor):
    assert client.get("/p/default/guidelines/edit/").status_code == 403
    assert (
        client.post("/p/default/guidelines/edit/", {"text": "x", "based_on": 0}).status_code == 403
    )
    assert not Guideline.objects.exists()


def test_the_guidelines_page_renders_the_markdown_sanitised_and_lists_the_versions(client, lead):
    client.post(
        "/p/default/guidelines/edit/", {"text": "# Rules\n<script>x</script>", "based_on": 0}
    )
    client.post(
        "/p/default/guidelines/edit/", {"text": "# Rules v2", "based_on": 1, "summary": "renamed"}
    )

    body = client.get("/p/default/guidelines/").content.decode()

    assert "<h1>Rules v2</h1>" in body and "renamed" in body
    assert 'href="/p/default/guidelines/v1/"' in body and 'href="/p/default/guidelines/v2/"' in body
    old = client.get("/p/default/guidelines/v1/").content.decode()
    assert "&lt;script&gt;" in old and "<script>x" not in old


def test_a_version_page_shows_what_it_changed_from_the_one_before(client, lead):
    client.post("/p/default/guidelines/edit/", {"text": "keep doors shut", "based_on": 0})
    client.post("/p/default/guidelines/edit/", {"text": "keep doors open", "based_on": 1})

    body = client.get("/p/default/guidelines/v2/").content.decode()

    assert "<del>shut</del>" in body and "<ins>open</ins>" in body
    assert client.get("/p/default/guidelines/v9/").status_code == 404


def test_the_case_page_panel_shows_the_moderation_section_first(client, lead, moderator):
    edit_guidelines(project(), actor=lead, based_on=0, text=TEXT)
    case = make_case("c-1")

    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    panel = body.split("data-guidelines-panel", 1)[1]
    assert panel.index("Uphold only with evidence") < panel.index("Be brief")
    assert panel.index("Be brief") < panel.index("One entry per section")
    assert 'aria-keyshortcuts="g"' in body and 'href="/p/default/guidelines/"' in panel


def test_the_plan_page_panel_shows_the_segmentation_section_first(client, lead, editor):
    edit_guidelines(project(), actor=lead, based_on=0, text=TEXT)
    plan = make_plan(2)

    panel = html_of(client.get(f"/p/default/plans/{plan.pk}/")).split("data-guidelines-panel", 1)[1]

    assert panel.index("One entry per section") < panel.index("Uphold only with evidence")


def test_the_answer_page_has_the_panel_even_before_any_guidelines(client, editor):
    answer = make_answer("a-1")
    body = client.get(f"/p/default/answers/{answer.pk}/").content.decode()
    assert "data-guidelines-panel" in body and "no guidelines yet" in body


def test_each_decision_records_the_guideline_version_in_force(lead, moderator):
    first, second, third = make_case("c-1"), make_case("c-2"), make_case("c-3")
    decide_case(first, "uphold", actor=moderator, expected_version=first.version, note="")
    edit_guidelines(project(), actor=lead, based_on=0, text="v1")
    decide_case(second, "uphold", actor=moderator, expected_version=second.version, note="")
    edit_guidelines(project(), actor=lead, based_on=1, text="v2")
    decision = decide_case(
        third, "uphold", actor=moderator, expected_version=third.version, note=""
    )

    assert decision.guideline_version == 2
    by_case = dict(Decision.objects.values_list("object_id", "guideline_version"))
    assert by_case == {str(first.pk): None, str(second.pk): 1, str(third.pk): 2}


def test_a_decision_in_another_project_records_that_projects_version(lead, moderator):
    other = Project.objects.create(name="Other", slug="other")
    # Roles are per project: the lead leads, and the moderator moderates, in Other as well.
    member(lead, other, "lead")
    member(moderator, other, "moderator")
    edit_guidelines(other, actor=lead, based_on=0, text="other v1")
    edit_guidelines(other, actor=lead, based_on=1, text="other v2")
    edit_guidelines(project(), actor=lead, based_on=0, text="default v1")
    case = make_case("c-1")
    Case.objects.filter(pk=case.pk).update(project=other)
    case.refresh_from_db()

    decision = decide_case(case, "uphold", actor=moderator, expected_version=case.version, note="")

    assert decision.guideline_version == 2


def test_the_edit_form_needs_the_csrf_token(lead):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(lead)
    assert (
        strict.post("/p/default/guidelines/edit/", {"text": "x", "based_on": 0}).status_code == 403
    )
