"""Every URL pattern × every kind of person × GET and POST, against one table of what each
may do. The table is the access rules written down: a route added without a row fails here,
so nobody adds a door without saying who may open it.

People: anonymous (no session; no token on the API), a signed-in user with no role, a
Reader, a Moderator, an Editor, a Curator, a Lead, and staff (no group: staff may do
everything). What each group may is the README's table of groups (review/permissions.py). Outcomes:
a status, or LOGIN (a redirect to the sign-in page). A POST carries no fields: an allowed
person gets past the permission check and is refused for the empty form (400/422), which
is how the table tells "may" from "may not" without changing anything.

The project dimension: each role held in another project only meets 404 at every door of
"Default" (its routes under /p/default/, and an old address of one of its items).
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import NoReverseMatch, URLPattern, URLResolver, get_resolver, reverse

from review.actions.tokens import create_token
from review.adapters.documents import store_document
from review.adapters.plans import propose_document
from review.api import api
from review.models.projects import DEFAULT_SLUG
from review.urls import project_urlpatterns
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plans import CODE_TEXT
from tests.builders.users import ROLE_OF, make_project, member

pytestmark = pytest.mark.django_db

PEOPLE = ("anonymous", "no role", "reader", "moderator", "editor", "curator", "lead", "staff")
# The project dimension: the same roles, held in another project only (not in "Default",
# where every item the table's addresses name lives).
ELSEWHERE = ("reader", "moderator", "editor", "curator", "lead")
OTHER_PROJECT = "elsewhere"
GROUPS = {
    "reader": "Readers",
    "moderator": "Moderators",
    "editor": "Editors",
    "curator": "Curators",
    "lead": "Leads",
}
# Signed in, and not staff.
MEMBERS = PEOPLE[1:-1]
# A redirect to a sign-in page: the site's, or the admin's for someone who is not staff.
LOGIN = "sent to sign in"
# Staff in the admin: past the sign-in, and no server error (what a page then shows depends
# on the model permissions the staff user holds, which the admin's own tests cover).
ADMIN_INSIDE = "inside the admin"
# The admin's catch-all for a mistyped address has no name.
ADMIN_CATCH_ALL = "admin:None"
# The routes of one project's work, under /p/<slug>/ (the tests' are in "Default").
PROJECT_ROUTES = {pattern.name for pattern in project_urlpatterns}
# The API's operations in one project, under /api/projects/<slug>/.
API_PROJECT_ROUTES = {
    f"api:{pattern.name}" for pattern in api.urls[0] if "<project>" in str(pattern.pattern)
}


def everyone(status: int) -> dict[str, int | str]:
    """Any signed-in person gets `status`; anonymous is sent to sign in."""
    return {"anonymous": LOGIN} | {person: status for person in PEOPLE[1:]}


def only(allowed: set[str], status: int, *, otherwise: int = 403, anonymous=LOGIN) -> dict:
    """Those `allowed` (and staff) get `status`, other signed-in people `otherwise`."""
    return {"anonymous": anonymous} | {
        person: status if person in allowed | {"staff"} else otherwise for person in PEOPLE[1:]
    }


def open_to_all(status: int) -> dict:
    return dict.fromkeys(PEOPLE, status)


def with_token(status: int) -> dict:
    """The API: any valid token gets `status`; without one, 401."""
    return {"anonymous": 401} | {person: status for person in PEOPLE[1:]}


EDITORS, MODERATORS, CURATORS, LEADS = {"editor"}, {"moderator"}, {"curator"}, {"lead"}

# route name -> {method: {person: outcome}}
MATRIX: dict[str, dict[str, dict]] = {
    # The pages anyone signed in reads; POST is refused before anything is decided.
    "dashboard": {"GET": everyone(200), "POST": everyone(405)},
    # Each person sees the projects whose insights they may read side by side (or none).
    "projects-insights": {"GET": everyone(200), "POST": everyone(405)},
    "plans": {"GET": everyone(200), "POST": everyone(405)},
    "plan": {"GET": everyone(200), "POST": everyone(405)},
    "plan-history": {"GET": everyone(200), "POST": everyone(405)},
    "plan-entry-list": {"GET": everyone(200), "POST": everyone(405)},
    # An open plan has nothing to export yet: 409 for every reader alike.
    "plan-export": {"GET": everyone(409), "POST": everyone(405)},
    "plan-annotations": {"GET": everyone(409), "POST": everyone(405)},
    "plan-label-studio": {"GET": everyone(409), "POST": everyone(405)},
    # A plain GET of one row sends the reader to the row on the plan's page.
    "entry": {"GET": everyone(302), "POST": everyone(405)},
    "cases": {"GET": everyone(200), "POST": everyone(405)},
    "case": {"GET": everyone(200), "POST": everyone(405)},
    "answers": {"GET": everyone(200), "POST": everyone(405)},
    "answer": {"GET": everyone(200), "POST": everyone(405)},
    # Editors decide plans: an empty upload is a form with errors (422), an empty decision
    # one that does not say which version was seen (400).
    "plan-upload-document": {"GET": everyone(405), "POST": only(EDITORS, 422)},
    "plan-upload-plan": {"GET": everyone(405), "POST": only(EDITORS, 422)},
    "plan-propose-again": {"GET": everyone(405), "POST": only(EDITORS, 422)},
    "plan-accept-rule": {"GET": only(EDITORS, 200), "POST": only(EDITORS, 422)},
    "plan-adjudicate": {"GET": everyone(405), "POST": only(EDITORS, 400)},
    "entry-edit": {"GET": only(EDITORS, 200), "POST": only(EDITORS, 400)},
    "entry-decide": {"GET": everyone(405), "POST": only(EDITORS, 400)},
    # Moderators decide cases; Editors publish answers.
    "case-decide": {"GET": everyone(405), "POST": only(MODERATORS, 400)},
    "case-undo": {"GET": everyone(405), "POST": only(MODERATORS, 400)},
    "answer-decide": {"GET": everyone(405), "POST": only(EDITORS, 400)},
    "answer-undo": {"GET": everyone(405), "POST": only(EDITORS, 400)},
    # Work queues: anyone may see how many wait; taking the next item needs its role, and
    # curators may take from every queue (a taker is sent to the item, or back to the queue
    # when nothing waits).
    "plans-next": {"GET": everyone(200), "POST": only(EDITORS | CURATORS, 302)},
    "cases-next": {"GET": everyone(200), "POST": only(MODERATORS | CURATORS, 302)},
    "answers-next": {"GET": everyone(200), "POST": only(EDITORS | CURATORS, 302)},
    # An open page's poll and its leaving, for whoever has it open.
    "item-here": {"GET": everyone(405), "POST": everyone(200)},
    "item-leave": {"GET": everyone(405), "POST": everyone(204)},
    # Taking an open item again (after a lead released it) needs its queue's role.
    "item-take": {"GET": everyone(405), "POST": only(MODERATORS | CURATORS, 302)},
    # No such lease here: 404 for all (who may release one is test_actions_leases' to say).
    "lease-release": {"GET": everyone(405), "POST": everyone(404)},
    "stay-setting": {"GET": everyone(405), "POST": everyone(302)},
    # An old address (here a case's, from before projects) leads to the item in its project;
    # a form posted to one is posted again there (307).
    "moved-address": {"GET": everyone(302), "POST": everyone(307)},
    # Leads see everyone's progress.
    "progress": {"GET": only(LEADS, 200), "POST": everyone(405)},
    # Nothing of the rule was accepted here: an editor is sent back with the reason.
    "plan-undo-accept-rule": {"GET": everyone(405), "POST": only(EDITORS, 302)},
    # Double review: an editor makes their own review copy; curators curate; staff set the
    # policies; the old "Review next" address sends anyone to the queue's Next.
    "plan-review-copy": {"GET": everyone(405), "POST": only(EDITORS, 302)},
    "plan-curation": {"GET": only(CURATORS, 200), "POST": everyone(405)},
    "plan-curate-entry": {"GET": everyone(405), "POST": only(CURATORS, 302)},
    # A curator's edit or undo without the version seen goes back to the page, which says so.
    "plan-curate-edit": {"GET": everyone(405), "POST": only(CURATORS, 302)},
    "plan-curate-undo": {"GET": everyone(405), "POST": only(CURATORS, 302)},
    # The policies page: a POST must name its queue (404 without one, 422 for an empty form).
    "policies": {"GET": only(set(), 200), "POST": only(set(), 404)},
    "policy": {"GET": only(set(), 200), "POST": only(set(), 422)},
    "review-next": {"GET": everyone(302), "POST": everyone(405)},
    # Projects and members: staff make projects (an empty form: 422). Everyone here is a member
    # of the project named, Default, and its lead (with staff) manages its members; others are
    # refused (403), and no membership 999 is in it.
    "projects": {"GET": only(set(), 200), "POST": everyone(405)},
    "project-new": {"GET": only(set(), 200), "POST": only(set(), 422)},
    "project-members": {"GET": only({"lead"}, 200), "POST": everyone(405)},
    "project-member-add": {"GET": everyone(405), "POST": only({"lead"}, 422)},
    "project-member-roles": {"GET": everyone(405), "POST": only({"lead"}, 404)},
    # Leads (and staff) invite by email from the members page: an empty form is refused.
    "project-member-invite": {"GET": everyone(405), "POST": only({"lead"}, 422)},
    # An invitation's page is open to whoever holds its link; no invitation has this one.
    "invitation": {"GET": open_to_all(404), "POST": open_to_all(404)},
    "project-member-remove": {"GET": everyone(405), "POST": only({"lead"}, 404)},
    # Leads (and staff) withdraw or resend a waiting invitation; no invitation 999 is there.
    "project-invitation-withdraw": {"GET": everyone(405), "POST": only({"lead"}, 404)},
    "project-invitation-resend": {"GET": everyone(405), "POST": only({"lead"}, 404)},
    # A project's webhooks are its leads' (and staff's), like its members; an empty form is
    # refused, and no webhook 999 is in it.
    "project-webhooks": {"GET": only({"lead"}, 200), "POST": everyone(405)},
    "project-webhook-new": {"GET": everyone(405), "POST": only({"lead"}, 422)},
    "project-webhook": {"GET": only({"lead"}, 404), "POST": everyone(405)},
    "project-webhook-enabled": {"GET": everyone(405), "POST": only({"lead"}, 404)},
    "project-webhook-delete": {"GET": everyone(405), "POST": only({"lead"}, 404)},
    "project-webhook-redeliver": {"GET": everyone(405), "POST": only({"lead"}, 404)},
    # Jobs: a job is its starter's (test_view_job says who sees which); none exists here, so
    # every signed-in person gets 404. Anyone signed in may start the log's export.
    "job": {"GET": everyone(404), "POST": everyone(405)},
    "job-retry": {"GET": everyone(405), "POST": everyone(404)},
    "job-download": {"GET": everyone(404), "POST": everyone(405)},
    "job-export-decisions": {"GET": everyone(405), "POST": everyone(302)},
    # What the decisions teach: for those who decide and those who curate, not for readers.
    "insights": {"GET": only(EDITORS | MODERATORS | CURATORS, 200), "POST": everyone(405)},
    # A document's revisions: anyone reads them; Editors upload the next one.
    "revision": {"GET": everyone(200), "POST": everyone(405)},
    "revision-upload": {"GET": everyone(405), "POST": only(EDITORS, 422)},
    # Signing in and out, and passwords (Django's own views): an empty form is drawn again
    # with its errors (200). Anyone may ask for a reset, signed in or not; a link that is no
    # link draws its page saying so (200).
    "login": {"GET": open_to_all(200), "POST": open_to_all(200)},
    "password_change": {"GET": everyone(200), "POST": everyone(200)},
    "password_change_done": {"GET": everyone(200), "POST": everyone(405)},
    "password_reset": {"GET": open_to_all(200), "POST": open_to_all(200)},
    "password_reset_done": {"GET": open_to_all(200), "POST": open_to_all(405)},
    "password_reset_confirm": {"GET": open_to_all(200), "POST": open_to_all(200)},
    "password_reset_complete": {"GET": open_to_all(200), "POST": open_to_all(405)},
    # Signing out is a POST, and ends at the sign-in page.
    "logout": {"GET": everyone(405), "POST": open_to_all(LOGIN)},
    # The API: a token, not a session. Writes need the role; the method is checked first.
    "api:openapi-json": {"GET": open_to_all(200), "POST": open_to_all(405)},
    # The schema's reference is a page of the app: anyone signed in reads it.
    "openapi-reference": {"GET": everyone(200), "POST": everyone(405)},
    "api:api-root": {"GET": open_to_all(404), "POST": open_to_all(404)},
    "api:post_document": {"GET": open_to_all(405), "POST": only(EDITORS, 422, anonymous=401)},
    "api:propose": {"GET": open_to_all(405), "POST": only(EDITORS, 422, anonymous=401)},
    "api:post_plan": {"GET": open_to_all(405), "POST": only(EDITORS, 422, anonymous=401)},
    "api:post_annotations": {
        "GET": open_to_all(405),
        "POST": only(EDITORS, 422, anonymous=401),
    },
    "api:post_label_studio": {
        "GET": open_to_all(405),
        "POST": only(EDITORS, 422, anonymous=401),
    },
    # One address each lists (any key) and imports (the role): both names are that address.
    "api:post_cases": {"GET": with_token(200), "POST": only(MODERATORS, 422, anonymous=401)},
    "api:list_cases": {"GET": with_token(200), "POST": only(MODERATORS, 422, anonymous=401)},
    "api:get_case": {"GET": with_token(200), "POST": open_to_all(405)},
    "api:post_answers": {"GET": with_token(200), "POST": only(EDITORS, 422, anonymous=401)},
    "api:list_answers": {"GET": with_token(200), "POST": only(EDITORS, 422, anonymous=401)},
    "api:get_answer": {"GET": with_token(200), "POST": open_to_all(405)},
    "api:list_plans": {"GET": with_token(200), "POST": open_to_all(405)},
    "api:get_plan": {"GET": with_token(200), "POST": open_to_all(405)},
    "api:get_plan_export": {"GET": with_token(409), "POST": open_to_all(405)},
    "api:get_plan_annotations": {"GET": with_token(409), "POST": open_to_all(405)},
    "api:get_plan_label_studio": {"GET": with_token(409), "POST": open_to_all(405)},
    "api:list_decisions": {"GET": with_token(200), "POST": open_to_all(405)},
    "api:job": {"GET": with_token(404), "POST": open_to_all(405)},
    "api:agreement": {
        "GET": only(EDITORS | MODERATORS | CURATORS, 200, anonymous=401),
        "POST": open_to_all(405),
    },
    "api:post_revision": {"GET": open_to_all(405), "POST": only(EDITORS, 422, anonymous=401)},
    "api:insights": {
        "GET": only(EDITORS | MODERATORS | CURATORS, 200, anonymous=401),
        "POST": open_to_all(405),
    },
    "api:list_projects": {"GET": with_token(200), "POST": open_to_all(405)},
    # The API's addresses from before projects: to the item's project, as the pages' are.
    "api-moved": {"GET": with_token(302), "POST": with_token(307)},
    # A person's own API tokens: an empty form is refused; no token 999 is theirs.
    "tokens": {"GET": everyone(200), "POST": everyone(405)},
    "token-new": {"GET": everyone(405), "POST": everyone(422)},
    "token-revoke": {"GET": everyone(405), "POST": everyone(404)},
    # The security log: staff's.
    "security-log": {"GET": only(set(), 200), "POST": everyone(405)},
    # Lockouts of failed sign-ins: staff see them and lift one (an empty form names none).
    "lockouts": {"GET": only(set(), 200), "POST": everyone(405)},
    "lockout-lift": {"GET": everyone(405), "POST": only(set(), 422)},
    # Staff reset someone's lost second factor (an empty form names nobody).
    "second-factor-reset": {"GET": only(set(), 200), "POST": only(set(), 422)},
    # Anyone's own account; signing out everywhere else needs the password (none sent: 422).
    "account": {"GET": everyone(200), "POST": everyone(405)},
    "sign-out-everywhere": {"GET": everyone(405), "POST": everyone(422)},
    # One's second factor: enrolling starts with a POST and goes back to the account page; a
    # confirmation or a removal with no code is refused. The code page sends on (to "/")
    # whoever has no authenticator, as nobody here has.
    "second-factor": {"GET": everyone(302), "POST": everyone(302)},
    "second-factor-start": {"GET": everyone(405), "POST": everyone(302)},
    "second-factor-confirm": {"GET": everyone(405), "POST": everyone(422)},
    "second-factor-remove": {"GET": everyone(405), "POST": everyone(422)},
    # Staff say whether a project's members need a second factor (an empty form: not).
    "project-second-factor": {"GET": everyone(405), "POST": only(set(), 302)},
    # Single sign-on's two addresses are not found while no provider is configured, as here
    # (test_sign_on_flow walks them against a real one), to anyone signed in or not.
    "sign-on-start": {"GET": open_to_all(404), "POST": open_to_all(404)},
    "sign-on-callback": {"GET": open_to_all(404), "POST": open_to_all(404)},
    # Staff map claim values to roles (an empty form: 422); mapping 999 is already gone,
    # which staff are told on the page they are sent back to.
    "claim-roles": {"GET": only(set(), 200), "POST": only(set(), 422)},
    "claim-role-remove": {"GET": everyone(405), "POST": only(set(), 302)},
    # Guidelines: everyone reads them, leads edit them; no version 1 is written yet.
    "guidelines": {"GET": everyone(200), "POST": everyone(405)},
    "guidelines-edit": {"GET": only(LEADS, 200), "POST": only(LEADS, 422)},
    "guidelines-version": {"GET": everyone(404), "POST": everyone(405)},
    # Discussion: whoever sees the item comments on it (an empty comment is refused); no
    # comment or mention 999 exists.
    "comments": {"GET": everyone(200), "POST": everyone(422)},
    "comments-export": {"GET": everyone(200), "POST": everyone(405)},
    "comment-edit": {"GET": everyone(404), "POST": everyone(404)},
    "mention-read": {"GET": everyone(405), "POST": everyone(404)},
    # The admin's own sign-in: staff already signed in are sent on to the admin.
    "admin:login": {
        "GET": open_to_all(200) | {"staff": ADMIN_INSIDE},
        "POST": open_to_all(200) | {"staff": ADMIN_INSIDE},
    },
    # Someone who is not staff is sent to the admin's front door; staff sign out by POST.
    "admin:logout": {
        "GET": {"anonymous": LOGIN} | dict.fromkeys(MEMBERS, 302) | {"staff": 405},
        "POST": {"anonymous": LOGIN} | dict.fromkeys(MEMBERS, 302) | {"staff": LOGIN},
    },
}
# Every other page of the admin: only staff get past its sign-in.
ADMIN = {person: ADMIN_INSIDE if person == "staff" else LOGIN for person in PEOPLE}


def route_names(patterns=None, namespace: str = "") -> list[str]:
    names = []
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(pattern, URLResolver):
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            names += route_names(pattern.url_patterns, inner)
        elif isinstance(pattern, URLPattern):
            names.append(f"{namespace}{pattern.name}")
    return names


def expected(name: str, method: str, person: str):
    if name.startswith("admin:") and name not in MATRIX:
        return ADMIN[person]
    return MATRIX[name][method][person]


def test_every_route_has_a_row_and_every_row_a_route() -> None:
    names = set(route_names())
    ours = {name for name in names if not name.startswith("admin:")}

    assert not any(name.endswith("None") for name in ours), "every route needs a name"
    assert sorted(ours - set(MATRIX)) == [], "add these routes to MATRIX"
    assert sorted(set(MATRIX) - names) == [], "these rows name no route"


# --- the requests ------------------------------------------------------------------------------


@pytest.fixture
def world() -> dict:
    """One of everything a URL can name: an open plan with entries, a case, an answer."""
    document = store_document("n500.md", CODE_TEXT.encode())
    plan = propose_document("n500.md", CODE_TEXT.encode())
    entry = plan.entries.order_by("position").first()
    return {
        "document": document,
        "plan": plan,
        "entry": entry,
        "case": make_case(),
        "answer": make_answer(),
    }


def url_of(name: str, world: dict) -> str:
    pattern_kwargs = {
        "plan": {"pk": world["plan"].pk},
        "plan-history": {"pk": world["plan"].pk},
        "plan-entry-list": {"pk": world["plan"].pk, "number": 1},
        "plan-accept-rule": {"pk": world["plan"].pk},
        "plan-adjudicate": {"pk": world["plan"].pk},
        "plan-export": {"pk": world["plan"].pk},
        "plan-annotations": {"pk": world["plan"].pk},
        "plan-label-studio": {"pk": world["plan"].pk},
        "entry": {"pk": world["plan"].pk, "entry_pk": world["entry"].pk},
        "entry-edit": {"pk": world["plan"].pk, "entry_pk": world["entry"].pk},
        "entry-decide": {"pk": world["plan"].pk, "entry_pk": world["entry"].pk, "action": "accept"},
        "case": {"pk": world["case"].pk},
        "case-undo": {"pk": world["case"].pk},
        "case-decide": {"pk": world["case"].pk, "action": "uphold"},
        "answer": {"pk": world["answer"].pk},
        "answer-undo": {"pk": world["answer"].pk},
        "answer-decide": {"pk": world["answer"].pk, "action": "publish"},
        "item-here": {"queue": "cases", "pk": world["case"].pk},
        "item-leave": {"queue": "cases", "pk": world["case"].pk},
        "item-take": {"queue": "cases", "pk": world["case"].pk},
        "lease-release": {"pk": 999},
        "guidelines-version": {"version": 1},
        "comments": {"kind": "case", "pk": world["case"].pk},
        "comments-export": {"kind": "case", "pk": world["case"].pk},
        "comment-edit": {"pk": 999},
        "mention-read": {"pk": 999},
        "token-revoke": {"pk": 999},
        "password_reset_confirm": {"uidb64": "OTk5", "token": "no-such-token"},
        "claim-role-remove": {"pk": 999},
        "plan-review-copy": {"pk": world["plan"].pk},
        "plan-curation": {"pk": world["plan"].pk},
        "plan-curate-entry": {"pk": world["plan"].pk, "entry_pk": world["entry"].pk},
        "plan-curate-edit": {"pk": world["plan"].pk, "entry_pk": world["entry"].pk},
        "plan-curate-undo": {"pk": world["plan"].pk, "entry_pk": world["entry"].pk},
        "policy": {"queue": "cases"},
        "project-members": {"slug": DEFAULT_SLUG},
        "project-member-add": {"slug": DEFAULT_SLUG},
        "project-second-factor": {"slug": DEFAULT_SLUG},
        "project-member-invite": {"slug": DEFAULT_SLUG},
        "invitation": {"token": "no-such-invitation"},
        "project-member-roles": {"slug": DEFAULT_SLUG, "pk": 999},
        "project-member-remove": {"slug": DEFAULT_SLUG, "pk": 999},
        "project-invitation-withdraw": {"slug": DEFAULT_SLUG, "pk": 999},
        "project-invitation-resend": {"slug": DEFAULT_SLUG, "pk": 999},
        "project-webhooks": {"slug": DEFAULT_SLUG},
        "project-webhook-new": {"slug": DEFAULT_SLUG},
        "project-webhook": {"slug": DEFAULT_SLUG, "pk": 999},
        "project-webhook-enabled": {"slug": DEFAULT_SLUG, "pk": 999},
        "project-webhook-delete": {"slug": DEFAULT_SLUG, "pk": 999},
        "project-webhook-redeliver": {"slug": DEFAULT_SLUG, "pk": 999, "delivery": 999},
        "review-next": {"queue": "cases"},
        "job": {"pk": 999},
        "job-retry": {"pk": 999},
        "job-download": {"pk": 999},
        "api:job": {"job_id": 999},
        "plan-undo-accept-rule": {"pk": world["plan"].pk},
        "revision": {"pk": world["document"].pk},
        "revision-upload": {"pk": world["document"].pk},
        "moved-address": {"prefix": "cases", "rest": f"{world['case'].pk}/"},
        "api:post_revision": {"document_id": world["document"].pk},
        "api:propose": {"document_id": world["document"].pk},
        "api:post_plan": {"document_id": world["document"].pk},
        "api:post_annotations": {"document_id": world["document"].pk},
        "api:post_label_studio": {"document_id": world["document"].pk},
        "api:get_plan": {"plan_id": world["plan"].pk},
        "api:get_case": {"case_id": world["case"].pk},
        "api:get_answer": {"answer_id": world["answer"].pk},
        "api:get_plan_export": {"plan_id": world["plan"].pk},
        "api:get_plan_annotations": {"plan_id": world["plan"].pk},
        "api:get_plan_label_studio": {"plan_id": world["plan"].pk},
        "api-moved": {"prefix": "plans", "rest": str(world["plan"].pk)},
    }
    if name == ADMIN_CATCH_ALL:
        return reverse("admin:index") + "no-such-page/"
    if name.startswith("admin:"):
        return admin_url(name)
    kwargs = pattern_kwargs.get(name, {})
    if name in PROJECT_ROUTES | API_PROJECT_ROUTES:
        kwargs = {"project": DEFAULT_SLUG} | kwargs
    return reverse(name, kwargs=kwargs)


# What an admin URL may need; the first set its pattern takes is used.
ADMIN_KWARGS = (
    {},
    {"object_id": 1},
    {"app_label": "review"},
    {"id": 1},
    {"content_type_id": 1, "object_id": 1},
)


def admin_url(name: str) -> str:
    for kwargs in ADMIN_KWARGS:
        try:
            return reverse(name, kwargs=kwargs)
        except NoReverseMatch:
            continue
    raise AssertionError(f"no arguments found for {name}")


def client_for(person: str, name: str, project=None) -> Client:
    """A client for `person`: holding their role in "Default", or in `project` only."""
    if person == "anonymous":
        return Client()
    user = User.objects.create_user(person.replace(" ", "-"), is_staff=person == "staff")
    if project is not None:
        role = ROLE_OF[GROUPS.get(person)]
        member(user, project, *([role] if role else []))
    elif person != "staff":
        # Every signed-in person here works in the project "Default": "no role" and a reader
        # are both members with no role (`test_project_isolation` walks another project's).
        role = ROLE_OF[GROUPS.get(person)]
        member(user, None, *([role] if role else []))
    if name.startswith(("api:", "api-")):
        key = f"key-of-{person}"
        create_token(user, "matrix", key=key)
        return Client(headers={"Authorization": f"Bearer {key}"})
    client = Client()
    client.force_login(user)
    return client


def outcome(response, wanted):
    status = response.status_code
    if status == 302:
        target = response["Location"]
        if target.startswith((reverse("login"), reverse("admin:login"))):
            return LOGIN
    if wanted == ADMIN_INSIDE and status < 500:
        return ADMIN_INSIDE
    return status


CELLS = [
    (name, method, person)
    for name in sorted(set(route_names()))
    for method in ("GET", "POST")
    for person in PEOPLE
]


@pytest.mark.parametrize(("name", "method", "person"), CELLS)
def test_each_person_gets_what_the_table_says(name, method, person, world) -> None:
    client = client_for(person, name)

    response = request(client, name, method, url_of(name, world))

    wanted = expected(name, method, person)
    assert outcome(response, wanted) == wanted, response.content[:300]


def request(client: Client, name: str, method: str, url: str):
    if method == "GET":
        return client.get(url)
    if name.startswith(("api:", "api-")):
        return client.post(url, "", content_type="application/json")
    return client.post(url, {})


# Outside the project routes, the doors that name an item of "Default" by its id: an old
# address of a page, and of an API operation.
NAMING_AN_ITEM = {"moved-address": ("GET", "POST"), "api-moved": ("GET", "POST")}
# The API's operations in "Default", by the methods they answer: the method is judged before
# the key, for any slug, so a 405 tells nothing of what exists.
API_IN_DEFAULT = {
    name: tuple(method for method in ("GET", "POST") if MATRIX[name][method] != open_to_all(405))
    for name in API_PROJECT_ROUTES
}
ELSEWHERE_CELLS = [
    (name, method, person)
    for name, methods in sorted(
        (dict.fromkeys(PROJECT_ROUTES, ("GET", "POST")) | NAMING_AN_ITEM | API_IN_DEFAULT).items()
    )
    for method in methods
    for person in ELSEWHERE
]


@pytest.mark.parametrize(("name", "method", "person"), ELSEWHERE_CELLS)
def test_a_member_of_another_project_only_finds_no_door_of_this_one(
    name, method, person, world
) -> None:
    """Whatever their role there, someone who works only in another project cannot tell this
    one's pages, fragments or items exist: every door answers 404, as for a wrong address,
    before it says which method or which role it wants."""
    client = client_for(person, name, make_project(OTHER_PROJECT))

    response = request(client, name, method, url_of(name, world))

    assert response.status_code == 404, response.content[:300]
