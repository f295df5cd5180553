"""Blind review holds beyond the pages: the log's doors (GET /api/projects/{project}/decisions, the
`export_decisions` command, an export job) and an open page's poll and conflict withhold an
unfinished double review's opinions from whoever the pages withhold them from."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from review.actions.cases import decide_case
from review.actions.plan_reviews import open_review_copy
from review.actions.tokens import create_token
from review.jobs import start_job
from review.models import Decision, Job
from review.models.projects import default_project_id
from tests.builders.api import API, api_client
from tests.builders.cases_answers import make_case
from tests.builders.live import seen_on
from tests.builders.plan_views import make_plan
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

SECRET = "A reason only the first reviewer wrote."
HTMX = {"HX-Request": "true"}


def key_for(user) -> str:
    key = f"key-of-{user.username}"
    create_token(user, "t", key=key)
    return key


def log_as(user, object_type: str = "") -> list[dict]:
    rows = api_client(key_for(user)).get(f"{API}/decisions").json()["items"]
    return [row for row in rows if object_type in ("", row["object_type"])]


@pytest.fixture
def case():
    double_review("cases")
    return make_case("c-9")


def first_opinion(case, actor, verdict="overturn", note=SECRET):
    decide_case(case, verdict, actor=actor, expected_version=case.version, note=note)
    case.refresh_from_db()


def test_the_api_withholds_a_first_opinion_from_the_blind_second_reviewer(
    moderator, moderator2, case
):
    first_opinion(case, moderator)

    [row] = log_as(moderator2, "case")

    assert (row["action"], row["object_id"]) == ("withheld", str(case.pk))
    assert (row["actor"], row["before"], row["after"], row["note"]) == ("", {}, {}, "")
    assert "settled" in row["withheld"]


def test_the_api_shows_the_first_reviewer_their_own_opinion(moderator, case):
    first_opinion(case, moderator)

    [row] = log_as(moderator, "case")

    assert (row["actor"], row["note"], row["withheld"]) == ("moderator", SECRET, "")
    assert row["after"]["first_opinion"] == "overturned"


def test_once_the_second_opinion_is_in_the_log_shows_both_to_everyone(
    moderator, moderator2, reader, case
):
    first_opinion(case, moderator)
    first_opinion(case, moderator2, "uphold", "Fine as it is.")

    rows = log_as(reader, "case")

    assert [(row["action"], row["actor"]) for row in rows] == [
        ("case.first_opinion", "moderator"),
        ("case.second_opinion", "moderator2"),
    ]
    assert rows[0]["note"] == SECRET and not any(row["withheld"] for row in rows)


def test_export_decisions_withholds_an_unfinished_double_review_for_no_one_in_particular(
    moderator, case
):
    first_opinion(case, moderator)
    out = io.StringIO()

    call_command("export_decisions", stdout=out)

    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    [row] = [row for row in rows if row["object_type"] == "case"]
    assert SECRET not in out.getvalue() and '"moderator"' not in out.getvalue()
    assert row["action"] == "withheld" and row["withheld"]
    assert "case.first_opinion" not in out.getvalue()


def test_an_export_job_keeps_the_log_as_its_starter_may_see_it(
    moderator, moderator2, case, django_capture_on_commit_callbacks
):
    first_opinion(case, moderator)

    with django_capture_on_commit_callbacks(execute=True):
        job = start_job(Job.Kind.EXPORT_DECISIONS, moderator2, project=default_project_id())

    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, job.error
    written = b"".join(job.output_chunks())
    assert SECRET not in written.decode() and b'"withheld"' in written


def test_the_poll_of_a_blind_reviewers_open_page_does_not_name_the_first_opinion(
    client, moderator, moderator2, case
):
    client.force_login(moderator2)
    seen = seen_on(client.get(f"/p/default/cases/{case.pk}/").content.decode())
    first_opinion(case, moderator)

    html = client.post(
        f"/p/default/open/cases/{case.pk}/here/", {"seen": seen}, headers=HTMX
    ).content.decode()

    assert "first opinion" in html
    assert SECRET not in html and "moderator " not in html and ">moderator<" not in html


def test_a_blind_reviewers_conflict_does_not_name_whose_decision_it_met(
    client, moderator, moderator2, case
):
    seen = case.version
    first_opinion(case, moderator)
    client.force_login(moderator2)

    response = client.post(
        f"/p/default/cases/{case.pk}/uphold/", {"version": seen, "note": ""}, headers=HTMX
    )

    html = response.content.decode()
    assert response.status_code == 409 and "Someone" in html
    assert "case.first_opinion" not in html and SECRET not in html
    assert "moderator (" not in html


# --- plans: one editor's copy is theirs alone until both are in ------------------------------


@pytest.fixture
def editor2(django_user_model):
    return user_in(django_user_model, "editor2", "Editors")


def test_one_editors_review_copy_is_withheld_from_the_other_editor_and_the_curator(
    editor, editor2, curator
):
    double_review("plans")
    plan = make_plan(2)
    copy = open_review_copy(plan, actor=editor)
    hand_in_review(copy, editor)
    copy_rows = Decision.objects.exclude(action="policy.set").count()

    for other in (editor2, curator):
        rows = [row for row in log_as(other) if row["action"] != "policy.set"]
        assert len(rows) == copy_rows and all(row["withheld"] for row in rows)
        assert {row["action"] for row in rows} == {"withheld"}
        assert not any(row["actor"] for row in rows)
    assert not any(row["withheld"] for row in log_as(editor))


def test_with_both_copies_in_the_curator_sees_them_and_the_plan_settled_shows_them_all(
    editor, editor2, curator, reader
):
    double_review("plans")
    plan = make_plan(2)
    hand_in_review(open_review_copy(plan, actor=editor), editor)
    hand_in_review(open_review_copy(plan, actor=editor2), editor2, reject=[-1])

    assert not any(row["withheld"] for row in log_as(curator))
    assert any(row["withheld"] for row in log_as(reader))
    plan.refresh_from_db()
    assert plan.is_open  # one entry differs: the curator has yet to settle it
