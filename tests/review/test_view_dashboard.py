"""The shell: login everywhere, the top bar, the dashboard and logging out."""

from __future__ import annotations

import pytest

from review.models import Case, Decision
from review.models.projects import default_project_id
from tests.builders.decisions import logged_on

pytestmark = pytest.mark.django_db


def test_the_dashboard_sends_an_anonymous_visitor_to_the_login_page(client) -> None:
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_the_login_page_asks_for_username_and_password(client) -> None:
    response = client.get("/accounts/login/")
    body = response.content.decode()
    assert response.status_code == 200
    assert ">Username</label>" in body
    assert ">Password</label>" in body
    assert ">Log in</button>" in body


def test_logging_in_leads_to_the_dashboard(client, editor) -> None:
    response = client.post("/accounts/login/", {"username": "editor", "password": "demo"})
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_the_top_bar_shows_the_three_areas_the_user_and_their_role(client, editor) -> None:
    client.force_login(editor)
    body = client.get("/").content.decode()
    for area in ("Plans", "Cases", "Answers"):
        assert f">{area}</a>" in body
    assert "editor" in body
    assert ">Editor</span>" in body


def test_the_dashboard_counts_the_flagged_cases_still_undecided(client, editor) -> None:
    for number, flagged in enumerate([True, True, False]):
        Case.objects.create(
            project_id=default_project_id(),
            case_id=f"c-{number}",
            content_text="x",
            rationale_text="y",
            flagged=flagged,
        )
    client.force_login(editor)
    response = client.get("/")
    queues = {queue["name"]: queue["count"] for queue in response.context["queues"]}
    assert queues["Flagged cases"] == 2


def test_the_dashboard_lists_the_users_own_recent_decisions_only(
    client, editor, django_user_model
) -> None:
    other = django_user_model.objects.create_user("otto", password="demo")
    case = Case.objects.create(
        project_id=default_project_id(), case_id="c-9", content_text="x", rationale_text="y"
    )
    logged_on(case, actor=editor, action="case.uphold", note="mine")
    logged_on(case, actor=other, action="case.overturn", note="theirs")
    client.force_login(editor)
    body = client.get("/").content.decode()
    assert "case.uphold" in body
    assert "case.overturn" not in body
    assert Decision.objects.count() == 2


def test_logging_out_is_a_post(client, editor) -> None:
    client.force_login(editor)
    assert client.get("/accounts/logout/").status_code == 405
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert client.get("/").status_code == 302


def test_the_dashboard_names_cases_by_their_own_ids(client, moderator) -> None:
    case = Case.objects.create(
        project_id=default_project_id(), case_id="c-1012", content_text="x", rationale_text="y"
    )
    logged_on(case, actor=moderator, action="case.overturn", note="")
    body = client.get("/").content.decode()
    assert "overturned c-1012" in body
    assert f"case {case.pk}" not in body


def test_a_reader_s_dashboard_does_not_invite_them_to_decide(client, reader) -> None:
    body = client.get("/").content.decode()
    assert "Your role is to read" in body
    assert "you decide these" not in body and "Pick a queue" not in body


def test_the_plans_queue_counts_open_plans_until_they_are_adjudicated(client, editor) -> None:
    # A plan with every entry decided still waits for a person: to be adjudicated (Next
    # hands it, and /progress/ counts it).
    from review.actions.entries import accept_entry
    from review.models import Plan
    from tests.builders.plan_views import entries_of, make_plan

    waiting = make_plan(2, name="a.md")
    decided = make_plan(1, name="b.md", paragraphs=1)
    for entry in entries_of(decided):
        accept_entry(entry, actor=editor, expected_version=entry.version)
    adjudicated = make_plan(1, name="c.md", paragraphs=3)
    Plan.objects.filter(pk=adjudicated.pk).update(status="adjudicated")
    client.force_login(editor)
    queue = client.get("/").context["queues"][0]
    assert queue["count"] == 2
    assert queue["detail"] == f"{waiting.entries.count()} entries still proposed"


def test_the_dashboard_and_progress_count_the_same_plans_waiting(
    client, editor, django_user_model
) -> None:
    from review.actions.entries import accept_entry
    from review.actions.plan_reviews import open_review_copy
    from review.models import Plan
    from tests.builders.plan_views import entries_of, make_plan
    from tests.builders.reviews import double_review
    from tests.builders.users import user_in

    make_plan(2, name="a.md")
    decided = make_plan(1, name="b.md", paragraphs=1)
    for entry in entries_of(decided):
        accept_entry(entry, actor=editor, expected_version=entry.version)
    adjudicated = make_plan(1, name="c.md", paragraphs=3)
    Plan.objects.filter(pk=adjudicated.pk).update(status="adjudicated")
    double_review("plans")
    open_review_copy(make_plan(3, name="d.md"), actor=editor)  # a copy is not an item

    client.force_login(editor)
    dashboard = client.get("/").context["queues"][0]["count"]
    client.force_login(user_in(django_user_model, "lena", "Leads"))
    progress = client.get("/p/default/progress/").context["queues"]

    assert Plan.objects.count() == 5
    assert dashboard == 3
    assert [figure.left for figure in progress if figure.name == "Plans"] == [dashboard]


def test_the_dashboard_asks_as_many_queries_for_many_plans_as_for_few(client, editor) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.builders.plan_views import make_plan

    client.force_login(editor)
    make_plan(2, name="a.md")
    client.get("/")
    with CaptureQueriesContext(connection) as few:
        client.get("/")
    for number in range(5):
        make_plan(3, name=f"doc-{number}.md", paragraphs=number + 2)
    with CaptureQueriesContext(connection) as many:
        client.get("/")
    assert len(many) == len(few)


def test_the_case_counts_are_kept_for_the_cache_seconds(client, editor, settings) -> None:
    from django.core.cache import cache

    cache.clear()
    settings.DASHBOARD_CACHE_SECONDS = 30
    Case.objects.create(
        project_id=default_project_id(),
        case_id="c-1",
        content_text="x",
        rationale_text="y",
        flagged=True,
    )
    client.force_login(editor)
    assert client.get("/").context["queues"][1]["count"] == 1
    Case.objects.create(
        project_id=default_project_id(),
        case_id="c-2",
        content_text="x",
        rationale_text="y",
        flagged=True,
    )
    assert client.get("/").context["queues"][1]["count"] == 1
    cache.clear()
    assert client.get("/").context["queues"][1]["count"] == 2
