"""Blindness is one rule, held at every door: while a double review is under way, what the
first reviewer decided, wrote and who they are reaches the other reviewer through no page,
fragment, poll, API route, export job or command. A withheld row of the log may say that
something happened on an item and when, nothing more.

The walk goes over the URL table itself (as test_access_matrix does): every route, filled with
the ids of the planted objects, by GET and GET as htmx (with the filters and selections its
page offers), and by POST (with a version no page would hold now, so nothing is decided and
each refusal and conflict is drawn). A route whose URL the walk cannot fill fails it, so a new
door cannot slip past.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse

from review.actions.answers import decide_answer
from review.actions.cases import decide_case
from review.actions.comments import add_comment
from review.actions.entries import accept_entry, reject_entry
from review.actions.plan_reviews import adjudicate_plan, open_review_copy
from review.actions.tokens import create_token
from review.models import Comment, Job, Lease, Membership, Mention, Project
from review.models.projects import DEFAULT_SLUG
from tests.builders.api import api_client
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.reviews import double_review
from tests.builders.urls import url_of
from tests.builders.users import member, user_in
from tests.review.test_access_matrix import route_names

pytestmark = pytest.mark.django_db

# What the first reviewers leave behind, each a word no page would show otherwise. Their names
# share a stem so one search finds any of them.
FIRST = "qzfirst"
NOTES = {
    "plan": "Plover-7731 kept this entry for the plan.",
    "case": "Plover-7732 overturned this case.",
    "answer": "Plover-7733 withdrew this answer.",
}
# The decisions as the log and the pages word them.
DECISION_WORDS = (
    "entry.accept",
    "entry.reject",
    "accepted entry",
    "rejected entry",
    "case.first_opinion",
    "case.overturn",
    "answer.first_opinion",
    "answer.withdraw",
    "first_opinion",
)
FORBIDDEN = (FIRST, *NOTES.values(), *DECISION_WORDS)

# Routes the walk leaves alone, each with why. Nothing else may be missing from it.
NOT_WALKED = {
    "logout": "signing out ends the walk's session and draws nothing of a review",
    "moved-address": "an old address only redirects to one of the routes walked here",
    "api-moved": "an old API address only redirects to one of the operations walked here",
    "token-revoke": "revokes one of the person's own API keys: shows nothing of a review",
    "password_reset_confirm": "a mailed link's page: a password form, nothing of any item",
    "invitation": "a mailed link's page: a project's name and roles, nothing of any item",
    "claim-role-remove": "staff's: takes a sign-on mapping away and shows nothing of a review",
    # No event is made of a review under way (review copies and first opinions send nothing:
    # test_webhook_events), so no delivery has one to show.
    "project-webhook-redeliver": "a lead's POST that sends a delivery again, then redirects",
}
HTMX = {"HX-Request": "true"}
LONG_AGO = "2000-01-01T00:00:00+00:00"


@pytest.fixture
def world(django_user_model, django_capture_on_commit_callbacks) -> dict:
    """A double-reviewed plan, case and answer, each with a first reviewer's decision and note
    and their page still open on it, and the blind reviewer (an editor, a moderator and a
    curator, so that every reviewer's page opens to them) with their own copy of the plan,
    their own hold on the case and their own export of the log."""
    for queue in ("plans", "cases", "answers"):
        double_review(queue)
    blind = user_in(django_user_model, "blind", "Editors")
    member(blind, None, "moderator", "curator")
    first_plan = user_in(django_user_model, f"{FIRST}-plans", "Editors")
    first_case = user_in(django_user_model, f"{FIRST}-cases", "Moderators")
    first_answer = user_in(django_user_model, f"{FIRST}-answers", "Editors")

    plan = make_plan(3)
    first_copy = open_review_copy(plan, actor=first_plan)
    kept, dropped, *rest = entries_of(first_copy)
    accept_entry(kept, actor=first_plan, expected_version=kept.version, note=NOTES["plan"])
    reject_entry(dropped, actor=first_plan, expected_version=dropped.version, note=NOTES["plan"])
    for entry in rest:
        accept_entry(entry, actor=first_plan, expected_version=entry.version)
    first_copy.refresh_from_db()
    adjudicate_plan(first_copy, actor=first_plan, expected_version=first_copy.version)
    own_copy = open_review_copy(plan, actor=blind)

    case = make_case("c-9")
    decide_case(
        case, "overturn", actor=first_case, expected_version=case.version, note=NOTES["case"]
    )
    answer = make_answer("a-9")
    decide_answer(
        answer,
        "withdraw",
        actor=first_answer,
        expected_version=answer.version,
        note=NOTES["answer"],
    )

    # Each first reviewer comments on the item they decided, mentioning the blind reviewer.
    Membership.objects.get_or_create(project_id=case.project_id, user=blind)
    for item, person, queue in ((kept, first_plan, "plan"), (case, first_case, "case"),
                                (answer, first_answer, "answer")):  # fmt: skip
        add_comment(item, author=person, text=f"@blind {NOTES[queue]}")

    # Each first reviewer stays on the page they decided on: it polls, so they are "here".
    for queue, item, person in (
        ("plans", first_copy, first_plan),
        ("cases", case, first_case),
        ("answers", answer, first_answer),
    ):
        _signed_in(person).post(url_of("item-here", queue, item.pk))

    client = _signed_in(blind)
    client.post(url_of("cases-next"))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url_of("job-export-decisions"))
    key = "key-of-the-blind-reviewer"
    create_token(blind, "t", key=key)
    for item in (plan, case, answer):
        item.refresh_from_db()
    return {
        "blind": blind,
        "client": client,
        "api": api_client(key),
        "plans": [plan, first_copy, own_copy],
        "case": case,
        "answer": answer,
        "job": Job.objects.get(created_by=blind),
        "lease": Lease.objects.get(holder=blind, queue="cases"),
        "comments": list(Comment.objects.values_list("pk", flat=True)),
        "mentions": list(Mention.objects.values_list("pk", flat=True)),
        "first": {"plans": first_plan, "cases": first_case, "answers": first_answer},
    }


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- filling the URL table -----------------------------------------------------------------


def fillings(name: str, keys: set[str], world: dict) -> Iterator[dict]:
    """Every set of URL kwargs the walk tries for route `name`: each planted object the route
    can name, in the project "Default". A kwarg it does not know fails the walk."""
    if "project" in keys:
        for filled in fillings(name, keys - {"project"}, world):
            yield {"project": DEFAULT_SLUG} | filled
        return
    if not keys:
        yield {}
        return
    plans = world["plans"]
    by_item = {
        "case": [world["case"].pk],
        "answer": [world["answer"].pk],
        "job": [world["job"].pk],
        "lease": [world["lease"].pk],
        "revision": [plan.document_id for plan in plans],
        "comment": world["comments"],
        "mention": world["mentions"],
    }
    if keys == {"pk"} and name.split("-")[0] in by_item:
        for pk in by_item[name.split("-")[0]]:
            yield {"pk": pk}
    elif keys <= {"pk", "entry_pk", "number", "action"} and name.startswith(("plan", "entry")):
        for plan in plans:
            yield from _plan_kwargs(name, keys, plan)
    elif keys == {"pk", "action"} and name in ("case-decide", "answer-decide"):
        actions = ("uphold", "overturn", "needs_rewrite") if name == "case-decide" else ()
        actions = actions or ("publish", "withdraw")
        item = world[name.split("-")[0]]
        for action in actions:
            yield {"pk": item.pk, "action": action}
    elif keys == {"queue", "pk"}:
        for queue, pks in (
            ("plans", [plan.pk for plan in plans]),
            ("cases", [world["case"].pk]),
            ("answers", [world["answer"].pk]),
        ):
            for pk in pks:
                yield {"queue": queue, "pk": pk}
    elif keys == {"queue"}:
        for queue in ("plans", "cases", "answers"):
            yield {"queue": queue}
    elif keys == {"plan_id"}:
        for plan in plans:
            yield {"plan_id": plan.pk}
    elif keys == {"document_id"}:
        for plan in plans:
            yield {"document_id": plan.document_id}
    elif keys == {"job_id"}:
        yield {"job_id": world["job"].pk}
    elif keys == {"case_id"}:
        yield {"case_id": world["case"].pk}
    elif keys == {"answer_id"}:
        yield {"answer_id": world["answer"].pk}
    elif keys <= {"slug", "pk"} and name.startswith("project-"):
        # A project's members pages: every project, and each membership in it.
        for project in Project.objects.all():
            if "pk" not in keys:
                yield {"slug": project.slug}
            for membership in project.memberships.all() if "pk" in keys else ():
                yield {"slug": project.slug, "pk": membership.pk}
    elif keys == {"version"}:
        yield {"version": 1}
    elif keys == {"kind", "pk"}:
        entries = [entry for plan in plans for entry in entries_of(plan)[:2]]
        yield from ({"kind": "entry", "pk": entry.pk} for entry in entries)
        yield {"kind": "case", "pk": world["case"].pk}
        yield {"kind": "answer", "pk": world["answer"].pk}
    else:
        raise AssertionError(
            f"the blindness walk cannot fill {name} ({', '.join(sorted(keys))}): teach "
            "fillings() its objects, or list it in NOT_WALKED with the reason"
        )


def _plan_kwargs(name: str, keys: set[str], plan) -> Iterator[dict]:
    entries = entries_of(plan)[:2] if "entry_pk" in keys else [None]
    for entry in entries:
        filled = {"pk": plan.pk}
        if entry is not None:
            filled["entry_pk"] = entry.pk
        if "number" in keys:
            filled["number"] = 1
        for action in ("accept", "reject") if "action" in keys else (None,):
            yield filled | ({"action": action} if action else {})


def route_keys(patterns=None, namespace: str = "", outer=frozenset()) -> dict[str, set[str]]:
    """Route name -> the names of its URL kwargs (those of the prefix it is under too, the
    project's), read off the URL table itself (the admin's routes left out: it is staff's, and
    the blind reviewer is not staff)."""
    keys: dict[str, set[str]] = {}
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace != "admin":
                inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                prefix = outer | set(pattern.pattern.regex.groupindex)
                keys |= route_keys(pattern.url_patterns, inner, prefix)
        else:
            keys[f"{namespace}{pattern.name}"] = outer | set(pattern.pattern.regex.groupindex)
    return keys


# --- what a door answers ---------------------------------------------------------------------


def text_of(response) -> str:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return f"{response.headers}\n{body.decode(errors='replace')}"


def leaks(text: str) -> list[str]:
    return [word for word in FORBIDDEN if word.lower() in text.lower()]


def queries(name: str, kwargs: dict, world: dict) -> list[str]:
    """The query strings a GET of the route is tried with besides none: the filters and
    selections its page offers, the planted objects selected."""
    plan = next((plan for plan in world["plans"] if plan.pk == kwargs.get("pk")), None)
    found = {
        "plans": ["status=open", "status=adjudicated"],
        "cases": ["verdict=proposed", "verdict=overturned"],
        "answers": ["q=Plover", "state=proposed", "state=withdrawn"],
        "insights": [f"document={world['plans'][0].document_id}"],
        "api:list_plans": ["limit=500"],
        "api:list_cases": ["limit=500", "verdict=proposed"],
        "api:list_answers": ["limit=500", "q=Plover", "state=proposed"],
        "api:list_decisions": ["limit=500", "since=2000-01-01"],
    }.get(name, [])
    if name == "plan" and plan is not None:
        found += ["state=accepted", "state=rejected"]
        found += [f"entry={entry.pk}" for entry in entries_of(plan)]
    return ["", *(f"?{query}" for query in found)]


def knock(world: dict, name: str, url: str, query: str) -> Iterator[tuple[str, object]]:
    """Every way the blind reviewer opens `url`: GET and GET as htmx with `query`, and (once,
    without it) POST and POST as htmx."""
    if name.startswith("api:"):
        client = world["api"]
        yield "GET", client.get(url + query)
        if not query:
            yield "POST", client.post(url, "", content_type="application/json")
        return
    client = world["client"]
    yield "GET", client.get(url + query, follow=True)
    yield "GET htmx", client.get(url + query, headers=HTMX)
    if not query:
        # A cursor from long ago: every open page's poll brings all there is to bring.
        stale = {"version": "0", "seen": LONG_AGO}
        yield "POST", client.post(url, stale, follow=True)
        yield "POST htmx", client.post(url, stale, headers=HTMX)


def test_the_walk_reads_every_route_of_the_url_table_but_the_admins() -> None:
    ours = {name for name in route_names() if not name.startswith("admin:")}

    assert set(route_keys()) == ours
    assert sorted(set(NOT_WALKED) - ours) == [], "these skipped routes no longer exist"


def test_no_door_shows_the_blind_reviewer_what_the_first_reviewer_decided(
    world, django_capture_on_commit_callbacks
) -> None:
    found, answered = [], {}
    with django_capture_on_commit_callbacks(execute=True):
        for name, keys in sorted(route_keys().items()):
            if name in NOT_WALKED:
                continue
            for kwargs in fillings(name, keys, world):
                url = reverse(name, kwargs=kwargs)
                for query in queries(name, kwargs, world):
                    for how, response in knock(world, name, url, query):
                        assert response.status_code < 500, (how, url + query)
                        answered[how, url + query] = response.status_code
                        found += [(how, url + query, word) for word in leaks(text_of(response))]
    # What the walk itself started: every export job of the blind reviewer, as downloaded.
    for job in Job.objects.filter(created_by=world["blind"]):
        assert job.status == Job.Status.SUCCEEDED, job.error
        found += [("job", job.pk, word) for word in leaks(b"".join(job.output_chunks()).decode())]

    assert found == [], "\n".join(map(str, found))
    # The walk read the pages themselves, signed in, not a sign-in page or a 404 for each.
    for door in ("case", "answer", "plan"):
        pk = world[door].pk if door != "plan" else world["plans"][0].pk
        assert answered["GET", url_of(door, pk)] == 200
    assert answered["POST htmx", url_of("item-here", "cases", world["case"].pk)] == 200
    for door in ("case", "answer"):
        read = reverse(f"api:get_{door}", args=[DEFAULT_SLUG, world[door].pk])
        assert answered["GET", read] == 200
    # The discussions too, and the blind reviewer's mentions were there to be marked read.
    for kind in ("case", "answer"):
        assert answered["GET", url_of("comments", kind, world[kind].pk)] == 200
    assert len(world["mentions"]) == 3
    assert answered["GET", reverse("api:list_decisions", args=["default"])] == 200


def test_the_log_pages_through_to_the_end_without_a_word_of_the_first_reviewers(world) -> None:
    url, pages = reverse("api:list_decisions", args=["default"]) + "?limit=1", []
    while url:
        page = world["api"].get(url).json()
        pages.append(page)
        url = page["next"]

    rows = [row for page in pages for row in page["items"]]
    withheld = [row for row in rows if row["withheld"]]
    assert len(withheld) >= 5 and {row["action"] for row in withheld} == {"withheld"}
    assert leaks(str(pages)) == []


def test_the_command_writes_no_word_of_a_review_under_way_to_stdout_or_a_file(
    world, tmp_path
) -> None:
    out = io.StringIO()
    call_command("export_decisions", stdout=out)
    call_command("export_decisions", out=str(tmp_path / "log.jsonl"))

    assert leaks(out.getvalue()) == []
    assert leaks((tmp_path / "log.jsonl").read_text()) == []


def test_each_first_reviewer_reads_their_own_words_at_the_same_doors(world) -> None:
    """The walk would see a leak: what each first reviewer planted is there for them."""
    codes = {
        "plans": "entry.accept",
        "cases": "case.first_opinion",
        "answers": "answer.first_opinion",
    }
    for queue, person in world["first"].items():
        key = f"key-of-{person.username}"
        create_token(person, "t", key=key)
        text = text_of(
            api_client(key).get(reverse("api:list_decisions", args=["default"]) + "?limit=500")
        )
        note = NOTES[queue.removesuffix("s")]
        assert note in text and person.username in text and codes[queue] in text


def test_each_first_reviewer_reads_their_own_comment_in_the_discussion(world) -> None:
    """The walk would see a leak of a comment: each first reviewer's is there for them."""
    kept = entries_of(world["plans"][1])[0]
    for queue, kind, pk in (
        ("plans", "entry", kept.pk),
        ("cases", "case", world["case"].pk),
        ("answers", "answer", world["answer"].pk),
    ):
        text = text_of(_signed_in(world["first"][queue]).get(url_of("comments", kind, pk)))
        assert NOTES[queue.removesuffix("s")] in text


def test_a_first_reviewer_still_on_the_case_is_another_reviewer_until_the_second_opinion(
    world,
) -> None:
    case, poll = world["case"], url_of("item-here", "cases", world["case"].pk)

    blind = world["client"].post(poll, headers=HTMX).content.decode()
    assert "Also here: another reviewer" in blind and FIRST not in blind

    decide_case(case, "uphold", actor=world["blind"], expected_version=case.version, note="")
    _signed_in(world["first"]["cases"]).post(poll, headers=HTMX)
    settled = world["client"].post(poll, headers=HTMX).content.decode()
    assert f"Also here: {FIRST}-cases" in settled


def test_an_entry_row_of_another_editor_s_review_copy_is_not_found_over_htmx(world) -> None:
    plan, first_copy, own_copy = world["plans"]
    theirs, mine = entries_of(first_copy)[0], entries_of(own_copy)[0]

    refused = world["client"].get(url_of("entry", first_copy.pk, theirs.pk), headers=HTMX)
    drawn = world["client"].get(url_of("entry", own_copy.pk, mine.pk), headers=HTMX)

    assert refused.status_code == 404 and NOTES["plan"] not in refused.content.decode()
    assert drawn.status_code == 200 and "<html" not in drawn.content.decode()
