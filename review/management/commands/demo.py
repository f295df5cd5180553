"""manage.py demo: the demo users, two projects they work in, documents with proposed plans,
cases and answers, each project's guidelines and a few comments.

The building code and the other documents are reviewed in the project "default" (old
bookmarks and the README name its slug); the cases and answers are moderated in
"moderation". Some people work in one of them, some in both.

Idempotent: a second run finds everything in place and creates nothing. Plans are
left undecided for the editor to adjudicate; a few cases and answers are decided
once, so the dashboards have recent decisions to show. The history (`_demo_history`) leaves
the cases queue under double review, some cases in curation, and one plan two editors
reviewed apart, with one entry they differ on for the curator. The building code has a second
revision (a changed paragraph, a moved section, a new one and a removed one), with the
first revision's plan carried onto it. The lead has invited newcomer@example.org into the
building code's project; the demo's console mail backend prints the mail with its link.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import get_connection
from django.core.management.base import BaseCommand
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from review.actions.answers import decide_answer
from review.actions.cases import decide_case
from review.actions.comments import add_comment
from review.actions.documents import COMMAND_LINE, propose_document
from review.actions.guidelines import edit_guidelines
from review.actions.imports import import_answers, import_cases
from review.actions.invitations import invite
from review.actions.projects import create_project, set_membership
from review.actions.revisions import add_revision
from review.actions.sign_on import map_claim
from review.actions.webhooks import register_endpoint
from review.adapters.documents import sha256_of
from review.decisions import latest_decision
from review.management.commands._demo_history import already_made, make_history
from review.models import (
    Answer,
    Case,
    ClaimRole,
    Comment,
    Decision,
    Document,
    Entry,
    Guideline,
    Membership,
    Plan,
    Project,
    WebhookEndpoint,
)
from review.models.projects import DEFAULT_SLUG
from review.permissions import CURATOR, EDITOR, LEAD, MODERATOR, READER
from review.refusals import ActionRefused
from review.webhooks.events import EVENT_TYPES

DEMO_DATA = Path(__file__).resolve().parents[2] / "demo_data"
# The issue fixes this password for every demo account; it is a local demo only.
PASSWORD = "demo"  # noqa: S105
URL = "http://127.0.0.1:8000"


# The building code's project keeps the slug today's data moved into; the moderation one is new.
BUILDING = DEFAULT_SLUG
MODERATION = "moderation"


@dataclass(frozen=True)
class DemoProject:
    slug: str
    name: str
    description: str
    guidelines: str  # a file in demo_data/guidelines/, written by the project's lead


PROJECTS = (
    DemoProject(
        BUILDING,
        "Building code review",
        "The building code and its revision, its guide, an inspection report, a long changelog "
        "and the READMEs of the team's history: plans to review.",
        "building-code-review.md",
    ),
    DemoProject(
        MODERATION,
        "Moderation and answers",
        "The moderation model's cases with their evidence, and the answers whose citations "
        "finalization repaired.",
        "moderation-and-answers.md",
    ),
)


@dataclass(frozen=True)
class DemoUser:
    username: str
    role: str  # their role in each project they work in ("" for the demo's staff member)
    projects: tuple[str, ...]  # the slugs of those projects (staff work in every one)
    can: str


BOTH = (BUILDING, MODERATION)
USERS = (
    DemoUser("editor", EDITOR, BOTH, "adjudicates plans, publishes and withdraws answers"),
    DemoUser("moderator", MODERATOR, (MODERATION,), "gives verdicts on moderation cases"),
    DemoUser("reader", READER, (BUILDING,), "browses the plans, decides nothing"),
    DemoUser("lead", LEAD, BOTH, "sees everyone's progress, writes the guidelines"),
    # The team's history: their decisions are what /insights/ counts.
    DemoUser("editor2", EDITOR, BOTH, "an editor whose past decisions the insights count"),
    DemoUser(
        "moderator2", MODERATOR, (MODERATION,), "a moderator whose past verdicts the insights count"
    ),
    # Double review: the second opinions of the history, and the curator of disagreements.
    DemoUser(
        "moderator3", MODERATOR, (MODERATION,), "gave the second opinions of the history's cases"
    ),
    DemoUser("editor3", EDITOR, (BUILDING,), "reviewed the double-reviewed plan beside editor2"),
    DemoUser("curator", CURATOR, BOTH, "settles what two reviewers disagree on (cases, a plan)"),
    DemoUser("staff", "", (), "staff: makes projects, sets the review policies"),
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


@dataclass(frozen=True)
class DemoComment:
    kind: str  # "entry" (of the building code's open plan), "case" or "answer"
    key: str  # the entry's title, or the case's or the answer's id
    by: str
    text: str
    reply: bool = False  # a reply to the item's first comment


# Made once each, in this order: a reply answers the comment before it on the same item.
COMMENTS = (
    DemoComment(
        "entry",
        "3.2 Bæreevne og stabilitet",
        "editor",
        "Revision 2 lowers the requirement from 90 to 60 minutes and adds an exception where "
        "an analysis shows the building is not exposed to a fully developed fire. @lead, does "
        "the exception stay in this entry, or is it a section of its own?",
    ),
    DemoComment(
        "entry",
        "3.2 Bæreevne og stabilitet",
        "lead",
        "It stays in 3.2: it qualifies the requirement and has none of its own (see *Plans* in "
        "the guidelines).",
        reply=True,
    ),
    DemoComment(
        "case",
        "c-1012",
        "moderator",
        "Overturned: the rationale leans on [ev-4], which no tool returned. If the earlier "
        "posts are real, the ban may still be right, but a person has to read them first.",
    ),
    DemoComment(
        "answer",
        "a-124",
        "moderator",
        "@editor the middle paragraph cited only phantom sources, and finalization replaced "
        "them with one nobody has read yet. Please check it against the Norwegian review "
        "before this is published.",
    ),
)
# The document whose entries the comments discuss: the building code, in its latest revision.
DISCUSSED = "byggteknisk-brann.md"
# Someone invited into the building code's project, who has no account yet: the demo's settings
# print the mail on the console, so its link can be followed to make the account.
# The demo provider's groups (demo_data/sign_on_accounts.json: "ines" and "omar", for
# scripts/with_demo_provider.sh) and the roles staff map them to.
SIGN_ON_GROUPS = (
    ("building-reviewers", BUILDING, {EDITOR: True}),
    ("building-readers", BUILDING, {}),
    ("trust-and-safety", MODERATION, {MODERATOR: True}),
)

# A receiver on loopback (scripts/demo_webhook_receiver.py, started by `make demo`) that
# prints each delivery once its signature is verified; its secret goes to a file for it.
WEBHOOK_URL = "http://127.0.0.1:8002/hooks"
WEBHOOK_SECRET_FILE = settings.BASE_DIR / "var" / "demo-webhook-secret"

INVITED = "newcomer@example.org"
INVITED_ROLES = {EDITOR: True}
# The name migration 0017 gave the project today's data moved into: the demo names it anew,
# and keeps a name someone chose.
MIGRATED_NAME = "Default"


class Command(BaseCommand):
    help = "Load the demo users and data (safe to run again: nothing is created twice)."

    def handle(self, *args, **options):
        with transaction.atomic():
            users = {user.username: self.ensure_user(user) for user in USERS}
            projects = {demo.slug: self.ensure_project(demo, users["staff"]) for demo in PROJECTS}
            for user in USERS:
                for slug in user.projects:
                    self.ensure_member(projects[slug], user, actor=users["staff"])
            # Before any decision, so every one records the guidelines it was made under.
            for demo in PROJECTS:
                self.write_guidelines(projects[demo.slug], demo, users["lead"])
            building, moderation = projects[BUILDING], projects[MODERATION]
            for document in DOCUMENTS:
                self.propose(document, building)
            for revision in REVISIONS:
                self.revise(revision, users[revision.by], building)
            self.import_jsonl("cases.jsonl", import_cases, Case, moderation)
            self.import_jsonl("answers.jsonl", import_answers, Answer, moderation)
            for decision in DECISIONS:
                self.decide(decision, users[decision.by], moderation)
            if not already_made(users["editor2"]):
                make_history(
                    users["editor2"],
                    users["moderator2"],
                    self.stdout.write,
                    plans_in=building,
                    cases_in=moderation,
                    second=users["moderator3"],
                    curator=users["curator"],
                    staff=users["staff"],
                    second_editor=users["editor3"],
                )
            for comment in COMMENTS:
                self.comment(comment, users[comment.by], building, moderation)
            self.ensure_invitation(building, users["lead"])
            for value, slug, roles in SIGN_ON_GROUPS:
                self.ensure_claim_role(value, projects[slug], roles, users["staff"])
            # Last, so the demo's own history is not sent: only what people decide from now.
            self.ensure_webhook(building, users["lead"])
        self.show_logins()

    def show_logins(self) -> None:
        self.stdout.write("")
        self.stdout.write(f"Open {URL} and log in (password: {PASSWORD}):")
        for user in USERS:
            role = user.role.capitalize() or "Staff"
            where = " and ".join(user.projects) or "every project"
            self.stdout.write(f"  {user.username:<10} {role:<11} {where:<23} {user.can}")

    def ensure_user(self, demo: DemoUser):
        user, created = get_user_model().objects.get_or_create(username=demo.username)
        if created:
            # Only a new account gets the demo password; a changed one is kept.
            user.set_password(PASSWORD)
            user.save()
        if not demo.role and not user.is_staff:
            # The one account without a role is the demo's staff member.
            user.is_staff = True
            user.save(update_fields=["is_staff"])
        self.say(created, f"user {demo.username} ({demo.role or 'staff'})")
        return user

    def ensure_project(self, demo: DemoProject, staff) -> Project:
        project = Project.objects.filter(slug=demo.slug).first()
        if project is None:
            create_project(
                actor=staff, name=demo.name, slug=demo.slug, description=demo.description
            )
            project = Project.objects.get(slug=demo.slug)
            self.say(True, f"project {demo.slug} ({demo.name})")
        elif project.name == MIGRATED_NAME and demo.name != MIGRATED_NAME:
            project.name, project.description = demo.name, demo.description
            project.save(update_fields=["name", "description"])
            self.stdout.write(f"renamed  project {demo.slug} ({demo.name})")
        else:
            self.say(False, f"project {demo.slug} ({project.name})")
        return project

    def ensure_member(self, project: Project, demo: DemoUser, *, actor) -> None:
        # A membership someone changed since is kept, as a changed password is.
        if Membership.objects.filter(project=project, user__username=demo.username).exists():
            return
        roles = {} if demo.role == READER else {demo.role: True}
        set_membership(project, demo.username, actor=actor, roles=roles)
        self.say(True, f"member {demo.username} of {project.slug} ({demo.role})")

    def ensure_claim_role(self, value: str, project: Project, roles: dict, staff) -> None:
        what = f"single sign-on group {value!r} in {project.slug}"
        if ClaimRole.objects.filter(claim_value=value, project=project).exists():
            self.say(False, what)
            return
        removed = Decision.objects.filter(
            action="claim_role.remove", before__claim_value=value, before__project=project.slug
        )
        if removed.exists():
            # Staff took it away since: as with a changed role, theirs is kept.
            self.stdout.write(f"removed  {what} (by staff; not made again)")
            return
        map_claim(actor=staff, claim_value=value, project=project, roles=roles)
        self.say(True, what)

    def ensure_webhook(self, project: Project, lead) -> None:
        endpoint = WebhookEndpoint.objects.filter(project=project, url=WEBHOOK_URL).first()
        if endpoint is None:
            try:
                endpoint, _ = register_endpoint(
                    project,
                    actor=lead,
                    url=WEBHOOK_URL,
                    events=EVENT_TYPES,
                    description="The demo's receiver: it prints what it is sent.",
                )
            except ActionRefused as refused:
                # Outside `make demo` loopback is not allowed (the trust suite's server).
                self.stdout.write(f"skipped  webhook {WEBHOOK_URL}: {refused}")
                return
            self.say(True, f"webhook of {project.slug} to {WEBHOOK_URL} (every event)")
        else:
            self.say(False, f"webhook of {project.slug} to {WEBHOOK_URL}")
        WEBHOOK_SECRET_FILE.parent.mkdir(parents=True, exist_ok=True)
        WEBHOOK_SECRET_FILE.write_text(endpoint.secret + "\n")
        WEBHOOK_SECRET_FILE.chmod(0o600)

    def ensure_invitation(self, project: Project, lead) -> None:
        pending = project.invitations.pending(timezone.now()).filter(email=INVITED)
        if pending.exists() or Membership.objects.filter(user__email=INVITED).exists():
            # Only the mail had the link: the one kept is its hash.
            self.say(False, f"invitation of {INVITED} to {project.slug} (its link was mailed)")
            return
        invite(
            project,
            INVITED,
            actor=lead,
            roles=INVITED_ROLES,
            link_for=lambda token: URL + reverse("invitation", args=[token]),
            # On this command's output, whatever mail server the settings name: the demo's
            # invitee is nobody's address, and a run beside a production-like server (the
            # trust suite's) has no mail server to send to.
            mail_connection=get_connection(
                "django.core.mail.backends.console.EmailBackend", stream=self.stdout
            ),
        )
        self.say(True, f"invitation of {INVITED} to {project.slug}: its link is in the mail above")

    def write_guidelines(self, project: Project, demo: DemoProject, lead) -> None:
        current = Guideline.objects.current_of(project)
        if current is None:
            text = (DEMO_DATA / "guidelines" / demo.guidelines).read_text(encoding="utf-8")
            current = edit_guidelines(
                project, actor=lead, based_on=0, text=text, summary="The team's first guidelines."
            )
            self.say(True, f"guidelines v{current.version} of {project.slug} ({demo.guidelines})")
        else:
            self.say(False, f"guidelines v{current.version} of {project.slug}")

    def propose(self, demo: DemoDocument, project: Project) -> None:
        data = (DEMO_DATA / demo.file).read_bytes()
        plan = propose_document(
            demo.file,
            data,
            actor=COMMAND_LINE,
            project=project,
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

    def revise(self, demo: DemoRevision, actor, project: Project) -> None:
        documents = Document.objects.filter(project=project)
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

    def import_jsonl(self, file: str, importer, model, project: Project) -> None:
        data = (DEMO_DATA / file).read_bytes()
        result = importer(data, actor=COMMAND_LINE, project=project)
        in_project = model.objects.filter(project=project).count()
        self.stdout.write(
            f"{file}: {result.created} created, {result.unchanged} already there "
            f"({in_project} {model._meta.verbose_name_plural} in {project.slug})"
        )

    def decide(self, demo: DemoDecision, actor, project: Project) -> None:
        obj = demo_item(demo.kind, demo.object_id, project)
        if latest_decision(obj) is not None:
            return
        decide = decide_case if demo.kind == "case" else decide_answer
        decide(obj, demo.action, actor=actor, expected_version=obj.version, note=demo.note)
        self.stdout.write(f"decided: {actor.username} {demo.action} {demo.kind} {demo.object_id}")

    def comment(self, demo: DemoComment, author, building: Project, moderation: Project) -> None:
        project = building if demo.kind == "entry" else moderation
        item = demo_item(demo.kind, demo.key, project)
        on_item = Comment.objects.on(item)
        thread = on_item.filter(reply_to=None).first()
        if on_item.filter(author=author, reply_to__isnull=not demo.reply).exists():
            return
        add_comment(item, author=author, text=demo.text, reply_to=thread if demo.reply else None)
        self.say(True, f"comment by {author.username} on {demo.kind} {demo.key}")

    def say(self, created: bool, what: str) -> None:
        self.stdout.write(f"{'created' if created else 'exists '}  {what}")


def demo_item(kind: str, key: str, project: Project):
    """The demo's entry (of the building code's open plan, by title), case or answer."""
    if kind == "case":
        return Case.objects.get(project=project, case_id=key)
    if kind == "answer":
        return Answer.objects.get(project=project, answer_id=key)
    return Entry.objects.get(
        plan__project=project,
        plan__document__name=DISCUSSED,
        plan__status=Plan.Status.OPEN,
        title=key,
    )
