"""Projects keep their items to their members: a person who is no member of a project gets
404 for its items (a guessed id says nothing), its lists, counts, search, Next, decision log
and insights leave them out, and roles held in one project give none in another. Staff see
every project.

Project "alpha" holds one of each kind of item; bob's lists, under `/p/default/`, and the API
work in the project "Default", where bob is an editor and moderator and alice is no member."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from review.actions import leases
from review.adapters.cases import import_cases
from review.adapters.documents import store_document
from review.jobs import start_job
from review.models import Case, Decision, Document, Job, Lease
from review.models.projects import default_project_id
from review.permissions import can_decide_cases, can_decide_plans, is_member, role_label
from tests.builders.api import API, API_KEY, api_client, pipeline_user
from tests.builders.cases_answers import case_line, make_answer, make_case
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.urls import url_of
from tests.builders.users import make_project, member

pytestmark = pytest.mark.django_db

SECRET = "alpha-secret"


@pytest.fixture
def alpha():
    return make_project("alpha")


@pytest.fixture
def items(alpha, django_user_model):
    """One of each kind of item in "alpha", started or made by its editor alice."""
    alice = django_user_model.objects.create_user("alice")
    member(alice, alpha, "editor", "moderator")
    plan = make_plan(3, name=f"{SECRET}.md", project=alpha)
    return {
        "alice": alice,
        "plan": plan,
        "entry": entries_of(plan)[0],
        "case": make_case(f"{SECRET}-case", project=alpha),
        "answer": make_answer(f"{SECRET}-answer", project=alpha),
        "job": start_job(Job.Kind.EXPORT_DECISIONS, alice, project=alpha),
    }


@pytest.fixture
def bob(client, django_user_model):
    """An editor and moderator of "Default" only, signed in."""
    user = django_user_model.objects.create_user("bob")
    member(user, None, "editor", "moderator", "curator", "lead")
    client.force_login(user)
    return user


def _pages(items, project: str) -> list[tuple[str, str]]:
    """Every page and fragment of alpha's items, at their addresses in `project` (a slug)."""
    plan, entry = items["plan"], items["entry"]
    on_entry = [plan.pk, entry.pk]

    def at(name: str, *args) -> str:
        return url_of(name, *args, project=project)

    return [
        ("get", at("plan", plan.pk)),
        ("get", at("plan-history", plan.pk)),
        ("get", at("plan-export", plan.pk)),
        ("get", at("plan-annotations", plan.pk)),
        ("get", at("plan-label-studio", plan.pk)),
        ("get", at("plan-entry-list", plan.pk, 1)),
        ("get", at("entry", *on_entry)),
        ("get", at("entry-edit", *on_entry)),
        ("post", at("entry-decide", *on_entry, "accept")),
        ("post", at("plan-adjudicate", plan.pk)),
        ("post", at("plan-review-copy", plan.pk)),
        ("get", at("plan-curation", plan.pk)),
        ("get", at("revision", plan.document_id)),
        ("post", at("revision-upload", plan.document_id)),
        ("get", at("case", items["case"].pk)),
        ("post", at("case-decide", items["case"].pk, "uphold")),
        ("post", at("case-undo", items["case"].pk)),
        ("get", at("answer", items["answer"].pk)),
        ("post", at("answer-decide", items["answer"].pk, "publish")),
        ("post", at("item-here", "plans", plan.pk)),
        ("post", at("item-here", "cases", items["case"].pk)),
        ("post", at("item-here", "answers", items["answer"].pk)),
        ("post", at("item-take", "cases", items["case"].pk)),
        ("get", at("job", items["job"].pk)),
        ("get", at("job-download", items["job"].pk)),
        ("post", at("job-retry", items["job"].pk)),
    ]


def test_a_member_of_another_project_gets_404_for_every_page_and_fragment_of_its_items(
    client, bob, items
):
    # In alpha, where bob is no member, and in his own project, which does not hold them.
    for method, url in _pages(items, "alpha") + _pages(items, "default"):
        for headers in ({}, {"HX-Request": "true"}):
            response = getattr(client, method)(url, headers=headers)
            assert response.status_code == 404, (method, url, headers)


def test_staff_see_the_items_of_every_project(client, items, django_user_model):
    client.force_login(django_user_model.objects.create_user("root", is_staff=True))
    default_plan = make_plan(2, name="default.md")

    for url in (
        url_of("plan", items["plan"].pk, project="alpha"),
        url_of("plan", default_plan.pk),
        url_of("case", items["case"].pk, project="alpha"),
        url_of("answer", items["answer"].pk, project="alpha"),
        url_of("job", items["job"].pk, project="alpha"),
    ):
        assert client.get(url).status_code == 200, url


def test_a_member_reads_their_projects_items(client, items):
    client.force_login(items["alice"])

    assert client.get(url_of("plan", items["plan"].pk, project="alpha")).status_code == 200
    assert client.get(url_of("case", items["case"].pk, project="alpha")).status_code == 200
    assert client.get(url_of("job", items["job"].pk, project="alpha")).status_code == 200


def test_lists_search_counts_and_next_leave_another_projects_items_out(client, bob, items):
    mine = make_case("c-mine")
    make_answer("a-mine")  # the same question as alpha's answer
    pages = {
        "plans": client.get(url_of("plans") + "?status=all"),
        "cases": client.get(url_of("cases")),
        "answers": client.get(url_of("answers") + "?q=compartments"),
        "dashboard": client.get(reverse("dashboard")),
        "insights": client.get(url_of("insights")),
        "next": client.get(url_of("cases-next")),
    }

    for name, page in pages.items():
        assert page.status_code == 200, name
        assert SECRET not in page.content.decode(), name
    assert "c-mine" in pages["cases"].content.decode()
    assert "a-mine" in pages["answers"].content.decode()
    # Next hands bob his own project's case, never alpha's.
    assert leases.waiting_count(Lease.Queue.CASES, bob, default_project_id()) == 1
    assert leases.take_next(Lease.Queue.CASES, bob, default_project_id()).item_id == mine.pk
    assert leases.take_next(Lease.Queue.CASES, bob, default_project_id()).item_id == mine.pk


def test_the_dashboard_counts_only_the_projects_items(client, bob, items):
    make_case("c-mine")

    queues = {queue["name"]: queue["count"] for queue in client.get("/").context["queues"]}

    assert queues == {"Plans awaiting decisions": 0, "Flagged cases": 0, "Answers": 0}


def test_the_decision_log_leaves_another_projects_rows_out(client, bob, items):
    client.force_login(items["alice"])
    case = items["case"]
    client.post(
        url_of("case-decide", case.pk, "uphold", project="alpha"), {"version": case.version}
    )
    assert Decision.objects.filter(project=case.project).exists()
    pipeline_user(groups=("Editors",), username="bob-pipeline")

    logged = api_client(API_KEY).get(f"{API}/decisions").json()["items"]

    assert logged == []
    assert not Decision.objects.visible_to(bob).exists()
    assert Decision.objects.visible_to(items["alice"]).count() == 1


def test_the_api_answers_404_for_another_projects_plan_and_leaves_it_out_of_its_list(items):
    pipeline_user(groups=("Editors", "Moderators"))
    api = api_client(API_KEY)

    assert api.get(f"{API}/plans/{items['plan'].pk}").status_code == 404
    assert api.get(f"{API}/plans/{items['plan'].pk}/export").status_code == 404
    assert api.get(f"{API}/jobs/{items['job'].pk}").status_code == 404
    assert api.get(f"{API}/plans").json()["items"] == []


def test_the_api_answers_404_for_another_projects_case_and_answer_and_lists_neither(items):
    pipeline_user(groups=("Editors", "Moderators"))
    api = api_client(API_KEY)

    for kind in ("case", "answer"):
        response = api.get(f"{API}/{kind}s/{items[kind].pk}")
        assert response.status_code == 404
        assert response.json()["detail"] == f"there is no {kind} {items[kind].pk}"
        assert api.get(f"{API}/{kind}s").json()["items"] == []


def test_roles_in_one_project_give_no_role_in_another(alpha, django_user_model):
    alice = django_user_model.objects.create_user("alice")
    member(alice, alpha, "editor", "moderator")
    member(alice, None)  # a reader of "Default"

    assert can_decide_plans(alice, alpha) and can_decide_cases(alice, alpha.pk)
    assert not can_decide_plans(alice, default_project_id())
    assert not can_decide_cases(alice, default_project_id())
    assert role_label(alice, alpha) == "Editor, Moderator"
    assert role_label(alice, default_project_id()) == "Reader"


def test_an_editor_of_another_project_may_read_but_not_decide_a_plan_where_they_read(
    client, alpha, django_user_model
):
    alice = django_user_model.objects.create_user("alice")
    member(alice, alpha, "editor")
    member(alice, None)
    plan = make_plan(2)
    entry = entries_of(plan)[0]
    client.force_login(alice)

    assert client.get(url_of("plan", plan.pk)).status_code == 200
    decided = client.post(url_of("entry-decide", plan.pk, entry.pk, "accept"))
    assert decided.status_code == 403


def test_no_membership_means_no_reading_and_staff_read_everywhere(alpha, django_user_model):
    nobody = django_user_model.objects.create_user("nobody")
    staff = django_user_model.objects.create_user("staff", is_staff=True)

    assert not is_member(nobody, alpha)
    assert is_member(staff, alpha) and can_decide_plans(staff, alpha)
    assert role_label(nobody, alpha) == "No role"


def test_the_same_case_id_in_two_projects_is_two_cases_each_for_its_members(
    alpha, django_user_model
):
    import_cases([case_line("c-1")])
    import_cases([case_line("c-1")], project_id=alpha.pk)
    ours = django_user_model.objects.create_user("ours")
    member(ours, None, "moderator")
    theirs = django_user_model.objects.create_user("theirs")
    member(theirs, alpha, "moderator")

    default_case, alpha_case = (
        Case.objects.get(case_id="c-1", project_id=project)
        for project in (default_project_id(), alpha.pk)
    )

    assert default_case.pk != alpha_case.pk
    assert list(Case.objects.visible_to(ours)) == [default_case]
    assert list(Case.objects.visible_to(theirs)) == [alpha_case]
    assert default_case.visible_to(ours) and not default_case.visible_to(theirs)
    assert alpha_case.decidable_by(theirs) and not alpha_case.decidable_by(ours)


def test_the_same_bytes_in_two_projects_are_two_documents_each_for_its_members(
    alpha, django_user_model
):
    data = b"# Handbook\n\nOne paragraph.\n"
    ours = store_document("handbook.md", data)
    theirs = store_document("handbook.md", data, project_id=alpha.pk)
    again = store_document("handbook.md", data, project_id=alpha.pk)
    reader = django_user_model.objects.create_user("reader")
    member(reader, alpha)

    assert ours.pk != theirs.pk and again.pk == theirs.pk
    assert ours.sha256 == theirs.sha256
    assert list(Document.objects.visible_to(reader)) == [theirs]
    assert theirs.visible_to(reader) and not ours.visible_to(reader)


def test_uploading_bytes_another_project_holds_says_nothing_of_them(client, items, bob):
    data = bytes(items["plan"].document.data)
    pipeline_user(groups=("Editors",), username="bob-pipeline")

    upload = api_client(API_KEY).post(f"{API}/documents", {"file": _file(data)})

    # Created (201) in Default, not "already stored" (200): alpha's copy stays its own.
    assert upload.status_code == 201
    assert Document.objects.filter(sha256=items["plan"].document.sha256).count() == 2


def _file(data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(f"{SECRET}.md", data, content_type="text/markdown")


def test_a_job_is_of_the_project_it_was_started_in_and_its_starter_loses_it_with_it(items, client):
    job, alice = items["job"], items["alice"]
    assert job.project.slug == "alpha"
    assert list(Job.objects.visible_to(alice)) == [job]

    alice.memberships.all().delete()
    alice = type(alice).objects.get(pk=alice.pk)  # a fresh user: no roles cached
    client.force_login(alice)

    assert not job.visible_to(alice)
    assert list(Job.objects.visible_to(alice)) == []
    assert client.get(url_of("job", job.pk, project="alpha")).status_code == 404


def test_a_command_names_its_project_by_slug_and_refuses_one_unknown(alpha, tmp_path):
    from django.core.management import CommandError, call_command

    cases = tmp_path / "cases.jsonl"
    cases.write_text(case_line("c-1") + "\n")

    call_command("import_cases", str(cases), "--project", "alpha")
    call_command("import_cases", str(cases))
    with pytest.raises(CommandError, match="no project has that slug"):
        call_command("import_cases", str(cases), "--project", "nowhere")

    assert Case.objects.filter(case_id="c-1", project=alpha).count() == 1
    assert Case.objects.filter(case_id="c-1", project_id=default_project_id()).count() == 1


def test_signed_out_visitors_read_nothing(items):
    assert Client().get(url_of("plan", items["plan"].pk, project="alpha")).status_code == 302


def test_every_api_operation_of_another_project_answers_404_and_default_shows_none_of_it(
    client, items
) -> None:
    """bob's pipeline, walked past every operation the served schema has: at alpha's address
    each one is a project that does not exist (before its role or its body is judged); at
    Default's, nothing of alpha is named."""
    pipeline_user(groups=("Editors", "Moderators", "Curators"))
    api = api_client(API_KEY)
    ids = {
        "plan_id": items["plan"].pk,
        "document_id": items["plan"].document_id,
        "job_id": items["job"].pk,
        "case_id": items["case"].pk,
        "answer_id": items["answer"].pk,
    }
    paths = client.get(reverse("api:openapi-json")).json()["paths"]
    walked = []
    for template, operations in paths.items():
        if "{project}" not in template:
            continue
        for method in operations:
            url = template.format(project="alpha", **ids)
            there = api.generic(method.upper(), url)
            assert there.status_code == 404, url
            assert there.json()["detail"] == "there is no project 'alpha' this key acts for"
            walked.append(f"{method} {template}")
            if method == "get":
                here = template.format(project="default", **ids)
                assert SECRET not in api.get(here, {"limit": 500}).content.decode(), here
    assert len(walked) >= 13, walked
    assert [p["slug"] for p in api.get("/api/projects").json()] == ["default"]
