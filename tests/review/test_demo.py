"""manage.py demo: what a first launch shows, and that a second run creates nothing."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import re
import subprocess
import sys
import time
from io import StringIO

import pytest
import requests
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.test import RequestFactory
from standardwebhooks import Webhook

from grounding.evidence import EVIDENCE_STATUSES, VALIDATION_REASONS
from review.actions.sign_on import apply_claims, unmap_claim
from review.actions.webhooks import new_secret
from review.adapters.plans import path_collisions
from review.management.commands import demo as demo_command
from review.management.commands.demo import DEMO_DATA, DOCUMENTS
from review.models import (
    Answer,
    AnswerReference,
    Case,
    ClaimRole,
    Comment,
    Decision,
    Document,
    Entry,
    Evidence,
    Guideline,
    Invitation,
    Membership,
    Mention,
    Plan,
    Project,
    WebhookEndpoint,
)
from review.models.projects import default_project_id
from review.permissions import role_label
from review.views.answer_changes import finalization_changes
from review.views.presenters import ENTRY_CHUNK, WHOLE_AROUND
from review.webhooks.events import EVENT_TYPES
from tests.builders.served import free_port

pytestmark = pytest.mark.django_db

MODELS = (
    Document,
    Plan,
    Entry,
    Case,
    Evidence,
    Answer,
    AnswerReference,
    Decision,
    Project,
    Membership,
    Guideline,
    Comment,
    Mention,
    Invitation,
)


def run_demo() -> str:
    out = StringIO()
    call_command("demo", stdout=out)
    return out.getvalue()


@pytest.fixture
def demo() -> str:
    return run_demo()


def counts() -> dict[str, int]:
    counted = {model.__name__: model.objects.count() for model in MODELS}
    counted["users"] = get_user_model().objects.count()
    return counted


def project(slug: str) -> Project:
    return Project.objects.get(slug=slug)


# Who works where: the building code's plans in "default", the cases and answers in
# "moderation"; the editor, the lead and the curator in both.
WORKS_IN = {
    "editor": {"default": "Editor", "moderation": "Editor"},
    "moderator": {"moderation": "Moderator"},
    "reader": {"default": "Reader"},
    "lead": {"default": "Lead", "moderation": "Lead"},
    "curator": {"default": "Curator", "moderation": "Curator"},
    "editor3": {"default": "Editor"},
    "moderator2": {"moderation": "Moderator"},
}


def signing_in():
    """A sign-in request, as the form's: the lockout counter (django-axes) wants one."""
    return RequestFactory().post("/accounts/login/")


def test_the_demo_users_log_in_with_the_password_demo_each_with_their_role_where_they_work(demo):
    for username, roles in WORKS_IN.items():
        user = authenticate(signing_in(), username=username, password="demo")
        assert user is not None, username
        assert not user.is_staff
        for slug in ("default", "moderation"):
            assert role_label(user, project(slug)) == roles.get(slug, "No role"), (username, slug)
        assert set(Project.objects.of_member(user).values_list("slug", flat=True)) == set(roles)


def test_the_building_code_keeps_the_default_slug_and_the_cases_and_answers_have_their_own(demo):
    building, moderation = project("default"), project("moderation")

    assert building.pk == default_project_id()
    assert (building.name, moderation.name) == ("Building code review", "Moderation and answers")
    assert Document.objects.filter(project=building).count() == Document.objects.count()
    assert Plan.objects.filter(project=building).count() == Plan.objects.count()
    assert Case.objects.filter(project=moderation).count() == Case.objects.count() > 0
    assert Answer.objects.filter(project=moderation).count() == Answer.objects.count() > 0
    # The project's making and each membership are rows of the project's own log.
    made = Decision.objects.filter(project=moderation, action="project.create")
    assert made.get().actor.username == "staff"
    assert Decision.objects.filter(project=moderation, action="membership.add").count() == (
        Membership.objects.filter(project=moderation).count()
    )


def test_each_project_has_guidelines_with_sections_for_its_kinds_of_item(demo):
    kinds = {
        slug: set().union(*(s.kinds for s in Guideline.objects.current_of(project(slug)).sections))
        for slug in ("default", "moderation")
    }

    assert kinds == {"default": {"plans"}, "moderation": {"cases", "answers"}}
    assert {g.author.username for g in Guideline.objects.all()} == {"lead"}
    # Written before anything was decided, so every decision of the items records them.
    decided = Decision.objects.filter(action__startswith="case.") | Decision.objects.filter(
        action__startswith="entry."
    )
    assert set(decided.values_list("guideline_version", flat=True)) == {1}


def test_each_project_has_comments_and_a_mention_of_one_of_its_members(demo):
    for slug, mentioned in (("default", "lead"), ("moderation", "editor")):
        comments = Comment.objects.filter(project=project(slug))
        assert comments.count() >= 2
        person = get_user_model().objects.get(username=mentioned)
        [mention] = Mention.objects.unread_for(person)
        assert mention.comment.project == project(slug)
        assert f"@{mentioned}" in mention.comment.text
        assert mention.comment.author.username in WORKS_IN
    reply = Comment.objects.get(reply_to__isnull=False)
    assert (reply.author.username, reply.reply_to.author.username) == ("lead", "editor")
    assert reply.entry.plan.is_open and reply.entry.plan.document.name == "byggteknisk-brann.md"


def test_the_output_gives_the_address_and_says_which_login_is_which(demo):
    assert "http://127.0.0.1:8000" in demo
    for line in ("editor     Editor", "moderator  Moderator", "reader     Reader"):
        assert line in demo


def test_the_demo_prints_one_invitation_whose_link_makes_an_account(mailoutbox, client):
    printed = run_demo()

    (invitation,) = Invitation.objects.all()
    # On the demo's own output, not to a mail server: the invitee is nobody's address.
    assert mailoutbox == []
    assert "To: newcomer@example.org" in printed
    link = re.search(r"http://127\.0\.0\.1:8000(/invitations/\S+)", printed).group(1)
    password = "a long and good passphrase"
    data = {"username": "newcomer", "password1": password, "password2": password}
    joined = client.post(link, data)

    assert (invitation.email, invitation.project.slug) == ("newcomer@example.org", "default")
    assert joined.status_code == 302
    assert Membership.objects.get(user__username="newcomer").role_names == {"editor"}


def test_running_the_demo_twice_creates_nothing_twice(demo):
    before = counts()

    second = run_demo()

    assert counts() == before
    assert "created " not in second
    assert "decided:" not in second


def test_a_second_run_keeps_roles_and_a_project_name_someone_changed(demo):
    Membership.objects.filter(user__username="reader").update(editor=True)
    Project.objects.filter(slug="default").update(name="Brann")

    run_demo()

    assert Membership.objects.get(user__username="reader").role_names == {"editor"}
    assert project("default").name == "Brann"


def test_a_second_run_keeps_a_password_someone_changed(demo):
    reader = get_user_model().objects.get(username="reader")
    reader.set_password("a-new-one")
    reader.save()

    run_demo()

    assert authenticate(signing_in(), username="reader", password="a-new-one") is not None


def demo_documents():
    """The demo's own documents, as first uploaded (the history's are the insights')."""
    names = [document.file for document in DOCUMENTS]
    return Document.objects.filter(name__in=names, revision=1)


def test_three_kinds_of_document_each_get_an_undecided_proposed_plan(demo):
    documents = list(demo_documents())

    assert {document.media_type for document in documents} == {"markdown", "text", "pdf"}
    assert len(documents) == len(DOCUMENTS)
    for document in documents:
        # A document the demo revised is reviewed on its latest revision; the first
        # revision's plan is superseded.
        plan = document.latest_revision().plans.get()
        assert plan.status == Plan.Status.OPEN
        assert plan.entries.count() >= 4
        if document.latest_revision() != document:
            assert document.plans.get().status == Plan.Status.SUPERSEDED
    entries = Entry.objects.filter(plan__document__in=demo_documents())
    assert not entries.exclude(state=Entry.State.PROPOSED).exists()


def test_the_long_changelog_is_long_enough_that_its_page_draws_far_lists_light(demo):
    plan = demo_documents().get(name="nodejs-21-changelog.md").plans.get()

    assert plan.entries.count() > ENTRY_CHUNK * (2 * WHOLE_AROUND + 1)
    assert all(entry.path.startswith("nodejs-21/") for entry in plan.entries.all())


def test_the_building_code_has_numbered_sections_and_shows_the_proposers_gates(demo):
    document = demo_documents().get(name="byggteknisk-brann.md")
    titles = list(document.plans.get().entries.values_list("title", flat=True))

    assert "3.1 Brannkonsept" in titles
    assert "1 Innledning" in titles
    # A heading of stop words only, and headings with no body, are in the text but
    # open no entry.
    for gated in ("Hva er det?", "6 Vedlegg", "7 Endringslogg"):
        assert gated in document.text
        assert gated not in titles


def test_the_long_report_is_split_by_size_because_it_has_no_headings(demo):
    plan = demo_documents().get(media_type="text").plans.get()

    assert plan.options["max_segment_chars"] > 0
    entries = list(plan.entries.all())
    assert len(entries) >= 3
    assert all("rule:size-split" in entry.rules for entry in entries)
    assert all(
        entry.span_end - entry.span_start <= plan.options["max_segment_chars"] for entry in entries
    )


def test_the_pdfs_numbered_sections_are_proposed_under_a_prefix_so_no_paths_collide(demo):
    plan = demo_documents().get(media_type="pdf").plans.get()

    assert all(entry.path.startswith("veileder-bolig/") for entry in plan.entries.all())
    # Every section is a numbered heading; the title page before them is the preamble.
    rules = [set(entry.rules) for entry in plan.entries.order_by("position")]
    assert all("rule:numbered-heading" in found for found in rules[1:])
    assert rules[0] & {"rule:numbered-heading", "rule:preamble"}
    assert path_collisions() == {}


def test_the_committed_pdf_is_what_make_pdf_writes():
    from review.demo_data.make_pdf import OUT, build

    assert OUT.read_bytes() == build()


def test_the_cases_cover_every_validator_outcome_and_every_evidence_status(demo):
    assert Case.objects.count() >= 20
    reasons = set(Case.objects.values_list("validator_reason", flat=True))
    assert reasons == {"", *VALIDATION_REASONS}
    assert Case.objects.filter(flagged=False).exists()
    statuses = set(Evidence.objects.values_list("status", flat=True))
    assert statuses == set(EVIDENCE_STATUSES)


def test_a_case_carries_script_and_img_markup_as_plain_text(demo):
    case = Case.objects.get(rationale_text__contains="<script>alert(1)</script>")

    assert "<img src=x onerror=alert(1)>" in case.rationale_text


def test_the_answers_cover_every_kind_of_citation_finalization_repairs(demo):
    answers = list(Answer.objects.all())
    changes = [finalization_changes(answer) for answer in answers]

    assert len(answers) >= 20
    assert any(change.dropped for change in changes)
    assert any(change.moved for change in changes)
    assert any(change.backfills for change in changes)
    kinds = {rewrite.kind for change in changes for rewrite in change.rewrites}
    assert kinds == {"grouped", "range", "escaped"}
    assert any(not change.changed for change in changes)
    assert AnswerReference.objects.exclude(snippet="").exists()


def test_an_answer_carries_untrusted_markup_in_its_body(demo):
    assert Answer.objects.filter(body__contains="<script>").exists()
    assert Answer.objects.filter(body__contains="javascript:").exists()


def test_a_few_decisions_are_made_so_the_dashboards_have_history(demo):
    ours = Decision.objects.filter(actor__username__in=["editor", "moderator"])
    actions = set(ours.values_list("action", flat=True))

    # The editor also stored the building code's second revision, which superseded its plan.
    assert actions == {"case.uphold", "case.overturn", "answer.publish", "plan.supersede"}
    assert Case.objects.filter(decided_by__username="moderator").count() == 2
    assert Answer.objects.filter(decided_by__username="editor").count() == 2


def test_the_history_gives_every_insights_panel_something_to_show(demo):
    from review.insights import insights

    figures = insights()
    validated = [record for record in figures.rules if record.validated]
    assert validated and validated[0].documents >= figures.settings.min_documents
    assert any(not record.validated and record.decided for record in figures.rules)
    confusion = figures.validator.confusion
    assert confusion.cases >= 10 and confusion.kappa.value is not None
    assert confusion.flagged_but_upheld and confusion.unflagged_but_not_upheld
    assert {record.reason for record in figures.validator.reasons} >= {"unflagged"}
    assert all(kind.answers for kind in figures.finalization.kinds)
    assert any(kind.published for kind in figures.finalization.kinds)
    assert any(kind.withdrawn for kind in figures.finalization.kinds)
    assert figures.weeks
    # The demo's own people still find work left: undecided cases and answers.
    assert Case.objects.filter(verdict=Case.Verdict.PROPOSED).count() >= 4
    assert Answer.objects.filter(state=Answer.State.PROPOSED).count() >= 4


def test_a_decision_someone_undid_is_not_made_again(demo):
    case = Case.objects.get(case_id="c-1001")
    from review.actions.cases import undo_case

    moderator = get_user_model().objects.get(username="moderator")
    undo_case(case, actor=moderator, expected_version=case.version)

    run_demo()

    case.refresh_from_db()
    assert case.verdict == Case.Verdict.PROPOSED


def test_every_demo_jsonl_line_is_one_json_object():
    for name in ("cases.jsonl", "answers.jsonl"):
        lines = (DEMO_DATA / name).read_text(encoding="utf-8").splitlines()
        assert all(isinstance(json.loads(line), dict) for line in lines), name


def test_the_demo_has_a_lead_who_sees_everyone_s_progress_in_both_projects(demo, client):
    client.force_login(authenticate(signing_in(), username="lead", password="demo"))

    assert client.get("/p/default/progress/").status_code == 200
    assert client.get("/p/moderation/progress/").status_code == 200


def test_the_history_double_reviews_cases_so_the_people_panel_has_figures(demo):
    from review.actions.reviews import policy_for
    from review.agreement import agreement

    cases = agreement().cases
    assert cases.items >= 10 and cases.kappa.value is not None
    assert cases.people.alpha.value is not None
    assert cases.curation.outcomes.get("still in curation", 0) >= 1
    assert policy_for("cases", project("moderation")).is_double
    assert not policy_for("cases", project("default")).is_double
    assert authenticate(signing_in(), username="staff", password="demo").is_staff


def test_the_demo_has_a_plan_two_editors_reviewed_apart_with_one_entry_for_the_curator(demo):
    from review.actions.plan_reviews import differing_entries, review_copies

    [plan] = [plan for plan in Plan.objects.filter(review_copies__isnull=False).distinct()]
    copies = review_copies(plan)

    assert [copy.reviewer.username for copy in copies] == ["editor2", "editor3"]
    assert all(not copy.is_open for copy in copies) and plan.is_open
    [(entry, first, second)] = differing_entries(plan)
    assert (first.title, second.title) == (entry.title, f"{entry.title}: overview")
    assert Decision.objects.filter(action="entry.agreed").count() == plan.entries.count() - 1


def test_the_demos_queues_hand_the_curator_a_plan_and_cases_to_settle(demo):
    from review.actions import leases

    curator = get_user_model().objects.get(username="curator")

    plan_lease = leases.take_next("plans", curator, project("default"))
    case_lease = leases.take_next("cases", curator, project("moderation"))

    assert Plan.objects.get(pk=plan_lease.item_id).review_copies.count() == 2
    assert Case.objects.get(pk=case_lease.item_id).review_stage == Case.IN_CURATION


def test_the_demos_cases_queue_stays_double_reviewed_with_cases_left_to_review(demo):
    from review.actions.reviews import policy_for

    assert policy_for("cases", project("moderation")).is_double
    assert Case.objects.filter(verdict="proposed", first_opinion="").exists()


@pytest.mark.parametrize(
    ("slug", "queue", "pair"),
    [
        ("default", "Plans: ", "editor2 &amp; editor3"),
        ("moderation", "Cases: ", "moderator2 &amp; moderator3"),
    ],
)
def test_each_projects_insights_page_shows_its_agreement_figures(demo, client, slug, queue, pair):
    client.force_login(get_user_model().objects.get(username="curator"))

    page = client.get(f"/p/{slug}/insights/").content.decode()

    people = page[page.index('id="people"') : page.index('id="weeks"')]
    assert queue in people and pair in people
    kappas = people.split("Cohen's κ, first against second reviewer: <strong>")[1:]
    assert len(kappas) == 1 and not kappas[0].startswith("0.00")


def test_the_demo_providers_people_get_the_roles_their_groups_are_mapped_to(demo):
    """What `make demo`'s provider says of ines and omar (sign_on_accounts.json) gives them
    their roles at their first sign-in, by the mappings staff can edit."""
    accounts = json.loads((DEMO_DATA / "sign_on_accounts.json").read_text())
    roles = {}
    for subject, claims in accounts.items():
        user = get_user_model().objects.create_user(subject)
        apply_claims(user, {"sub": subject, **claims})
        roles[subject] = {m.project.slug: m.role_names for m in user.memberships.all()}

    assert roles == {
        "ines": {"default": {"editor"}},
        "omar": {"moderation": {"moderator"}, "default": {"reader"}},
    }


def test_a_group_mapping_staff_removed_is_not_made_again(demo):
    staff = get_user_model().objects.get(username="staff")
    unmap_claim(ClaimRole.objects.get(claim_value="building-readers"), actor=staff)

    printed = run_demo()

    assert not ClaimRole.objects.filter(claim_value="building-readers").exists()
    assert "removed  single sign-on group 'building-readers' in default" in printed


def test_the_demo_registers_its_receiver_only_where_loopback_is_allowed(
    settings, tmp_path, monkeypatch
):
    """`make demo` allows its own receiver on loopback; elsewhere (the trust suite's server)
    the guard refuses it, and the demo says so and goes on."""
    secret_file = tmp_path / "var" / "demo-webhook-secret"
    monkeypatch.setattr(demo_command, "WEBHOOK_SECRET_FILE", secret_file)

    refused = run_demo()
    settings.WEBHOOK_ALLOWED_NETWORKS = [ipaddress.ip_network("127.0.0.1/32")]
    allowed = run_demo()

    assert f"skipped  webhook {demo_command.WEBHOOK_URL}" in refused
    (endpoint,) = WebhookEndpoint.objects.all()
    assert (endpoint.project.slug, endpoint.url) == ("default", demo_command.WEBHOOK_URL)
    assert set(endpoint.events) == set(EVENT_TYPES)
    assert secret_file.read_text().strip() == endpoint.secret
    assert "created  webhook of default" in allowed


def test_the_demos_receiver_prints_a_signed_delivery_and_refuses_an_unsigned_one(tmp_path):
    secret = new_secret()
    (tmp_path / "secret").write_text(secret)
    port = free_port()
    receiver = subprocess.Popen(
        [sys.executable, "scripts/demo_webhook_receiver.py", str(port), str(tmp_path / "secret")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert "listening" in receiver.stdout.readline()
        body = json.dumps({"type": "entry.decided", "timestamp": "now", "data": {"event": 7}})
        now = dt.datetime.fromtimestamp(int(time.time()), dt.UTC)
        signed = {
            "webhook-id": "msg_7",
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Webhook(secret).sign("msg_7", now, body),
        }
        url = f"http://127.0.0.1:{port}/hooks"
        accepted = requests.post(url, data=body, headers=signed, timeout=10)
        forged = requests.post(url, data=body.replace("7", "8"), headers=signed, timeout=10)
        printed = [receiver.stdout.readline(), receiver.stdout.readline()]
    finally:
        receiver.terminate()
        receiver.wait(timeout=10)

    assert (accepted.status_code, forged.status_code) == (204, 400)
    assert printed[0].startswith('webhook msg_7 entry.decided: {"event": 7}')
    assert printed[1].startswith("webhook refused")
