"""Every page through axe-core (shipped by the axe-playwright-python package) in real
Chromium: no serious or critical violation, text contrast (axe's color-contrast rule, 4.5:1
for body text) included."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from review.actions.answers import decide_answer
from review.actions.cases import decide_case
from review.actions.entries import accept_entry, reject_entry
from review.actions.plan_reviews import adjudicate_plan, open_review_copy
from review.jobs import start_job
from review.models import (
    Invitation,
    Job,
    Membership,
    Project,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from review.models.projects import default_project_id
from tests.browser.conftest import log_in
from tests.builders.account_pages import walk_account_pages
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import make_plan
from tests.builders.reviews import double_review
from tests.builders.revisions import decided_plan, revise
from tests.builders.users import user_in
from tests.builders.webhooks import allow_loopback

SERIOUS = {"serious", "critical"}


def violations_on(page, paths) -> dict[str, list[str]]:
    problems = {}
    for path in paths:
        response = page.goto(path)
        assert response.ok, f"{path}: {response.status}"  # the page itself, not an error page
        if found := violations(page):
            problems[path] = found
    return problems


def violations(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    page.wait_for_load_state()
    found = Axe().run(page).response["violations"]
    return [
        f"{item['id']} ({item['impact']}): {node['target']} {node.get('failureSummary', '')}"
        for item in found
        if item["impact"] in SERIOUS
        for node in item["nodes"]
    ]


@pytest.fixture
def everything(reviewers, django_user_model):
    user_in(django_user_model, "lena", "Leads")
    plan = make_plan(3)
    case = make_case("c-1012")
    answer = make_answer("a-114")
    return {
        "plan": plan,
        "pages": [
            "/",
            "/p/default/plans/",
            f"/p/default/plans/{plan.pk}/",
            f"/p/default/plans/{plan.pk}/history/",
            f"/p/default/plans/{plan.pk}/accept-rule/?rule=rule:heading",
            "/p/default/plans/next/",
            "/p/default/cases/",
            f"/p/default/cases/{case.pk}/",
            "/p/default/cases/next/",
            "/p/default/answers/",
            f"/p/default/answers/{answer.pk}/",
            "/p/default/answers/next/",
        ],
    }


def test_the_login_page_has_no_serious_accessibility_violation(page, reviewers) -> None:
    page.goto("/accounts/login/")
    assert violations(page) == []


@pytest.mark.parametrize("username", ["editor", "moderator", "reader"])
def test_every_page_has_no_serious_accessibility_violation(page, everything, username) -> None:
    log_in(page, username)
    problems = {}
    for path in everything["pages"]:
        page.goto(path)
        if found := violations(page):
            problems[path] = found
    assert problems == {}


def test_the_progress_page_has_no_serious_accessibility_violation(page, everything) -> None:
    log_in(page, "lena")
    page.goto("/p/default/progress/")
    assert violations(page) == []


def test_the_insights_revision_and_job_pages_have_no_serious_accessibility_violation(
    page, reviewers
) -> None:
    """The insights, a revision's page with its change beside the entries, and a job's page
    while it waits and once it failed."""
    editor = reviewers["editor"]
    revised = revise(decided_plan(editor), editor)
    waiting = start_job(Job.Kind.EXPORT_DECISIONS, editor, project=default_project_id())
    failed = start_job(Job.Kind.IMPORT_CASES, editor, project=default_project_id(), data=b"{}\n")
    Job.objects.filter(pk=failed.pk).update(status=Job.Status.FAILED, error="line 1: no case_id")

    log_in(page, "editor")
    paths = [
        "/p/default/insights/",
        f"/p/default/documents/{revised.revision.pk}/",
        f"/p/default/documents/{revised.revision.revision_of_id}/",
        f"/p/default/jobs/{waiting.pk}/",
        f"/p/default/jobs/{failed.pk}/",
    ]
    assert violations_on(page, paths) == {}


def test_the_policies_pages_have_no_serious_accessibility_violation(page, reviewers) -> None:
    staff = user_in(User, "boss", None)
    User.objects.filter(pk=staff.pk).update(is_staff=True)
    double_review("cases", reasons=["uncited_claims"])

    log_in(page, "boss")
    assert violations_on(page, ["/p/default/policies/", "/p/default/policies/cases/"]) == {}


def test_the_project_pages_and_the_switcher_have_no_serious_accessibility_violation(
    page, reviewers
) -> None:
    """The projects list, a new project's form, a project's members page, and the dashboard
    with its projects, the top bar's switcher open."""
    staff = user_in(User, "boss", None)
    User.objects.filter(pk=staff.pk).update(is_staff=True)
    project = Project.objects.create(name="Readmes", slug="readmes", description="Real ones.")
    Membership.objects.create(project=project, user=reviewers["editor"], editor=True, lead=True)

    log_in(page, "boss")
    paths = ["/projects/", "/projects/new/", "/projects/readmes/members/"]
    assert violations_on(page, paths) == {}
    page.goto("/")
    page.locator(".project-switcher summary").click()
    assert violations(page) == []


def test_the_security_pages_and_waiting_invitations_have_no_serious_accessibility_violation(
    page, reviewers
) -> None:
    """The security log, narrowed to a person with a second factor (its reset link) and with a
    garbled time (its error), the reset page, and a members page listing a waiting invitation
    with its Resend and Withdraw."""
    from django.utils import timezone
    from django_otp.plugins.otp_totp.models import TOTPDevice

    staff = user_in(User, "boss", None)
    User.objects.filter(pk=staff.pk).update(is_staff=True)
    TOTPDevice.objects.create(user=reviewers["editor"], name="authenticator", confirmed=True)
    Invitation.objects.create(
        project_id=default_project_id(),
        email="new@example.org",
        invited_by=staff,
        token_sha256="0" * 64,
        expires_at=timezone.now() + dt.timedelta(days=7),
        editor=True,
    )

    log_in(page, "boss")
    paths = [
        "/security/?username=editor",
        "/security/second-factors/reset/?username=editor",
        "/projects/default/members/",
    ]
    assert violations_on(page, paths) == {}
    page.goto("/security/?since=last+tuesday")
    assert violations(page) == []


def test_the_webhooks_pages_have_no_serious_accessibility_violation(
    page, reviewers, settings
) -> None:
    """A project's webhooks: the list with its form, the secret shown once after registering,
    and a webhook's delivery log with a failed delivery and why it was disabled."""
    allow_loopback(settings)
    staff = user_in(User, "boss", None)
    User.objects.filter(pk=staff.pk).update(is_staff=True)
    endpoint = WebhookEndpoint.objects.create(
        project_id=default_project_id(),
        url="http://127.0.0.1:9/hooks",
        events=["entry.decided"],
        secret="whsec_AAAA",
        enabled=False,
        disabled_reason="Disabled by the worker: the last answered 500.",
    )
    event = WebhookEvent.objects.create(
        project_id=default_project_id(), type="entry.decided", at=timezone.now()
    )
    WebhookDelivery.objects.create(
        endpoint=endpoint,
        event=event,
        status="failed",
        attempts=8,
        next_attempt_at=timezone.now(),
        response_code=500,
        last_error="answered 500: down",
    )

    log_in(page, "boss")
    paths = ["/projects/default/webhooks/", f"/projects/default/webhooks/{endpoint.pk}/"]
    assert violations_on(page, paths) == {}
    page.goto("/projects/default/webhooks/")
    page.get_by_label("Address").fill("http://127.0.0.1:9/other")
    page.get_by_label("A plan adjudicated").check()
    page.get_by_role("button", name="Register").click()
    assert page.locator("#webhook-secret").inner_text().startswith("whsec_")
    assert violations(page) == []


def test_the_curation_pages_have_no_serious_accessibility_violation(page, reviewers) -> None:
    """A plan's curation page, with the edit form open and an undo offered; a case page
    where the curator who settled it has only its Undo; an answer waiting in curation."""
    editor2 = user_in(User, "editor2", "Editors")
    moderator2 = user_in(User, "moderator2", "Moderators")
    curator = user_in(User, "curator", "Curators")
    double_review("plans")
    double_review("cases")
    plan = make_plan(2)
    for actor, act_last in ((reviewers["editor"], accept_entry), (editor2, reject_entry)):
        copy = open_review_copy(plan, actor=actor)
        entries = list(copy.entries.order_by("position"))
        for entry in entries:
            act = act_last if entry is entries[-1] else accept_entry
            act(entry, actor=actor, expected_version=entry.version)
        copy.refresh_from_db()
        adjudicate_plan(copy, actor=actor, expected_version=copy.version)
    case = make_case("c-7")
    for actor, verdict in ((reviewers["moderator"], "uphold"), (moderator2, "overturn")):
        case.refresh_from_db()
        decide_case(case, verdict, actor=actor, expected_version=case.version, note="n")
    case.refresh_from_db()
    decide_case(case, "overturn", actor=curator, expected_version=case.version, note="n")
    double_review("answers")
    answer = make_answer("a-7")
    for actor, verdict in ((reviewers["editor"], "publish"), (editor2, "withdraw")):
        answer.refresh_from_db()
        decide_answer(answer, verdict, actor=actor, expected_version=answer.version, note="n")
    last = plan.entries.order_by("position").last()

    log_in(page, "curator")
    paths = [
        f"/p/default/plans/{plan.pk}/curation/",
        f"/p/default/plans/{plan.pk}/curation/?edit={last.pk}",
        f"/p/default/cases/{case.pk}/",
        f"/p/default/answers/{answer.pk}/",
    ]
    assert violations_on(page, paths) == {}


def test_the_sign_in_and_account_pages_have_no_serious_accessibility_violation(
    page, reviewers
) -> None:
    """A forgotten password's form and its answer, an invitation's page, the account page
    (empty, with an authenticator's secret shown, with its recovery codes), the password
    change form, the tokens page and a token's key shown once, the security log, the
    lockouts, the roles from single sign-on, and the code asked for at sign-in."""
    problems: dict[str, list[str]] = {}

    def look(page) -> None:
        if found := violations(page):
            problems[page.url] = found

    walk_account_pages(page, look)
    assert problems == {}


def test_the_api_reference_has_no_serious_accessibility_violation(page, reviewers) -> None:
    """Swagger UI's drawing of the schema, one operation opened, as a reader sees it."""
    log_in(page, "reader")
    page.goto("/api/docs")
    operation = page.locator("#swagger-ui .opblock").first
    operation.locator(".opblock-summary").click()
    operation.locator(".responses-wrapper").wait_for()
    assert violations(page) == []
