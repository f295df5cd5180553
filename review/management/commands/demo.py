"""manage.py demo: the demo users, documents with proposed plans, cases and answers.

Idempotent: a second run finds everything in place and creates nothing. Plans are
left undecided for the editor to adjudicate; a few cases and answers are decided
once, so the dashboards have recent decisions to show. The history (`_demo_history`) leaves
the cases queue under double review, some cases in curation, and one plan two editors
reviewed apart, with one entry they differ on for the curator. The building code has a second
revision (a changed paragraph, a moved section, a new one and a removed one), with the
first revision's plan carried onto it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from review.actions.answers import decide_answer
from review.actions.cases import decide_case
from review.actions.documents import COMMAND_LINE, propose_document
from review.actions.imports import import_answers, import_cases
from review.actions.revisions import add_revision
from review.adapters.documents import sha256_of
from review.decisions import latest_decision
from review.management.commands._demo_history import already_made, make_history
from review.models import Answer, Case, Document, Membership
from review.models.projects import default_project_id
from review.permissions import CURATOR, EDITOR, LEAD, MODERATOR, READER

DEMO_DATA = Path(__file__).resolve().parents[2] / "demo_data"
# The issue fixes this password for every demo account; it is a local demo only.
PASSWORD = "demo"  # noqa: S105
URL = "http://127.0.0.1:8000"


@dataclass(frozen=True)
class DemoUser:
    username: str
    role: str  # their role in the demo's project ("" for the demo's staff member)
    can: str


USERS = (
    DemoUser("editor", EDITOR, "adjudicates plans, publishes and withdraws answers"),
    DemoUser("moderator", MODERATOR, "gives verdicts on moderation cases"),
    DemoUser("reader", READER, "browses everything, decides nothing"),
    DemoUser("lead", LEAD, "sees everyone's progress, releases a reviewer's lease"),
    # The team's history: their decisions are what /insights/ counts.
    DemoUser("editor2", EDITOR, "an editor whose past decisions the insights count"),
    DemoUser("moderator2", MODERATOR, "a moderator whose past verdicts the insights count"),
    # Double review: the second opinions of the history, and the curator of disagreements.
    DemoUser("moderator3", MODERATOR, "gave the second opinions of the history's cases"),
    DemoUser("editor3", EDITOR, "reviewed the history's double-reviewed plan beside editor2"),
    DemoUser("curator", CURATOR, "settles what two reviewers disagree on (cases, a plan)"),
    DemoUser("staff", "", "staff: sets the review policies (/policies/)"),
)


@dataclass(frozen=True)
class DemoDocument:
    file: str
    max_segment_chars: int = 0
    # The guide's numbered sections ("1 Innledning", ...) would claim the same paths
    # as the building code's; a prefix keeps the two apart.
    path_prefix: str = ""


DOCUMENTS = (
    DemoDocument("byggteknisk-brann.md"),
    # No headings at all: only a size cap gives the editor something to decide.
    DemoDocument("tilsynsrapport-lindeberg-skole.txt", 2500, "tilsyn-lindeberg"),
    DemoDocument("veileder-brannsikkerhet-bolig.pdf", path_prefix="veileder-bolig"),
    # A long plan (about 120 entries in five lists of 25): its page draws the lists far from
    # the current entry light, and each whole as it comes into view.
    DemoDocument("nodejs-21-changelog.md", 600, "nodejs-21"),
)


@dataclass(frozen=True)
class DemoRevision:
    document: str  # the demo file of the revision before
    file: str  # the revised file, stored under the document's own name
    by: str


REVISIONS = (DemoRevision("byggteknisk-brann.md", "byggteknisk-brann-revisjon-2.md", "editor"),)


@dataclass(frozen=True)
class DemoDecision:
    kind: str  # "case" or "answer"
    object_id: str
    by: str
    action: str
    note: str


# Made once, on objects nobody has decided yet.
DECISIONS = (
    DemoDecision(
        "case",
        "c-1001",
        "moderator",
        "uphold",
        "A call to mass-report a named user; the removal stands.",
    ),
    DemoDecision(
        "case",
        "c-1012",
        "moderator",
        "overturn",
        "The ban rests on [ev-4], which the model never gathered. Restore the ban only "
        "if a person confirms the earlier posts.",
    ),
    DemoDecision("answer", "a-101", "editor", "publish", "Clean citations, checked sources."),
    DemoDecision("answer", "a-114", "editor", "publish", ""),
)


class Command(BaseCommand):
    help = "Load the demo users and data (safe to run again: nothing is created twice)."

    def handle(self, *args, **options):
        with transaction.atomic():
            users = {user.username: self.ensure_user(user) for user in USERS}
            for document in DOCUMENTS:
                self.propose(document)
            for revision in REVISIONS:
                self.revise(revision, users[revision.by])
            self.import_jsonl("cases.jsonl", import_cases, Case)
            self.import_jsonl("answers.jsonl", import_answers, Answer)
            for decision in DECISIONS:
                self.decide(decision, users[decision.by])
            if not already_made(users["editor2"]):
                make_history(
                    users["editor2"],
                    users["moderator2"],
                    self.stdout.write,
                    second=users["moderator3"],
                    curator=users["curator"],
                    staff=users["staff"],
                    second_editor=users["editor3"],
                )
        self.stdout.write("")
        self.stdout.write(f"Open {URL} and log in (password: {PASSWORD}):")
        for user in USERS:
            role = user.role.capitalize() or "Staff"
            self.stdout.write(f"  {user.username:<10} {role:<11} {user.can}")

    def ensure_user(self, demo: DemoUser):
        user, created = get_user_model().objects.get_or_create(username=demo.username)
        if created:
            # Only a new account gets the demo password; a changed one is kept.
            user.set_password(PASSWORD)
            user.save()
        if demo.role:
            roles = {} if demo.role == READER else {demo.role: True}
            Membership.objects.update_or_create(
                project_id=default_project_id(), user=user, defaults=roles
            )
        elif not user.is_staff:
            # The one account without a role is the demo's staff member.
            user.is_staff = True
            user.save(update_fields=["is_staff"])
        self.say(created, f"user {demo.username} ({demo.role or 'staff'})")
        return user

    def propose(self, demo: DemoDocument) -> None:
        data = (DEMO_DATA / demo.file).read_bytes()
        plan = propose_document(
            demo.file,
            data,
            actor=COMMAND_LINE,
            project=default_project_id(),
            max_segment_chars=demo.max_segment_chars,
            path_prefix=demo.path_prefix,
        )
        options = []
        if demo.max_segment_chars:
            options.append(f"--max-segment-chars {demo.max_segment_chars}")
        if demo.path_prefix:
            options.append(f"--path-prefix {demo.path_prefix}")
        shown = f" ({' '.join(options)})" if options else ""
        self.say(
            getattr(plan, "created", False),
            f"plan {plan.pk} for {demo.file}{shown}: {plan.entries.count()} entries",
        )

    def revise(self, demo: DemoRevision, actor) -> None:
        documents = Document.objects.filter(project_id=default_project_id())
        earlier = documents.get(sha256=sha256_of((DEMO_DATA / demo.document).read_bytes()))
        data = (DEMO_DATA / demo.file).read_bytes()
        existing = documents.filter(sha256=sha256_of(data)).first()
        if existing is not None:
            self.say(False, f"revision {existing.revision} of {demo.document} ({demo.file})")
            return
        revised = add_revision(earlier, demo.document, data, actor=actor)
        plan = revised.plan
        self.say(
            True,
            f"revision {revised.revision.revision} of {demo.document} ({demo.file}), plan "
            f"{plan.carried_from_id} carried as plan {plan.pk}: "
            f"{plan.entries.counts().need_you} of {plan.entries.count()} entries need you",
        )

    def import_jsonl(self, file: str, importer, model) -> None:
        data = (DEMO_DATA / file).read_bytes()
        result = importer(data, actor=COMMAND_LINE, project=default_project_id())
        self.stdout.write(
            f"{file}: {result.created} created, {result.unchanged} already there "
            f"({model.objects.count()} {model._meta.verbose_name_plural} in all)"
        )

    def decide(self, demo: DemoDecision, actor) -> None:
        if demo.kind == "case":
            obj = Case.objects.get(case_id=demo.object_id)
        else:
            obj = Answer.objects.get(answer_id=demo.object_id)
        if latest_decision(obj) is not None:
            return
        decide = decide_case if demo.kind == "case" else decide_answer
        decide(obj, demo.action, actor=actor, expected_version=obj.version, note=demo.note)
        self.stdout.write(f"decided: {actor.username} {demo.action} {demo.kind} {demo.object_id}")

    def say(self, created: bool, what: str) -> None:
        self.stdout.write(f"{'created' if created else 'exists '}  {what}")
