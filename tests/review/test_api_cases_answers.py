"""The API reads cases and answers as their pages show them: listed in the page's order with
its filters, a page at a time, and one by one; another project's are not there, and a first
opinion under double review is nobody's to read through it."""

from __future__ import annotations

import pytest

from review.actions.answers import decide_answer
from review.actions.cases import decide_case
from review.list_filters import CASE_FILTERS, filtered_cases, filters_of
from review.models import Answer, Case
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.reviews import double_review
from tests.builders.users import make_project

pytestmark = pytest.mark.django_db

LOOKUP = ("web_search", "failure", "Search timed out", 900, {})


@pytest.fixture
def api():
    pipeline_user()
    return api_client()


def ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["items"]]


def walk(api, url: str) -> list[int]:
    """Every id a list holds, following its pages' `next`."""
    seen, pages = [], 0
    while url:
        body = api.get(url).json()
        seen += [row["id"] for row in body["items"]]
        url, pages = body["next"], pages + 1
    assert pages > 1
    return seen


@pytest.fixture
def cases() -> dict[str, Case]:
    made = {
        "passed": make_case("c-passed"),
        "flagged": make_case("c-flagged", rationale="It is a threat, plainly."),
        "looked-up": make_case("c-looked-up", evidence=[LOOKUP]),
        "upheld": make_case("c-upheld"),
        "newest": make_case("c-newest", rationale="No evidence cited at all."),
    }
    Case.objects.filter(pk=made["upheld"].pk).update(verdict=Case.Verdict.UPHELD)
    assert made["flagged"].flagged and not made["passed"].flagged
    return made


def test_cases_are_listed_in_the_queue_order_of_their_page(api, cases):
    queue = filtered_cases(Case.objects.all(), filters_of({}, CASE_FILTERS))
    in_order = list(queue.order_by(*Case.QUEUE_ORDER).values_list("pk", flat=True))

    listed = ids(api.get(f"{API}/cases"))

    assert listed == in_order
    # Flagged first: not the order they were imported in.
    assert listed != sorted(listed) and listed[0] == cases["flagged"].pk


def test_each_filter_of_the_cases_page_changes_what_is_listed(api, cases):
    everything = set(ids(api.get(f"{API}/cases")))
    reason = cases["flagged"].validator_reason

    listed = {
        query: set(ids(api.get(f"{API}/cases", dict([query]))))
        for query in [
            ("reason", "passed"),
            ("reason", reason),
            ("tool", "web_search"),
            ("status", "failure"),
            ("verdict", "upheld"),
        ]
    }

    assert {cases["flagged"].pk, cases["newest"].pk} & listed["reason", "passed"] == set()
    assert cases["flagged"].pk in listed["reason", reason]
    assert listed["tool", "web_search"] == listed["status", "failure"] == {cases["looked-up"].pk}
    assert listed["verdict", "upheld"] == {cases["upheld"].pk}
    assert all(found < everything for found in listed.values())


def test_the_cases_list_is_read_a_page_at_a_time_in_its_order(api, cases):
    everything = ids(api.get(f"{API}/cases"))

    assert walk(api, f"{API}/cases?limit=2") == everything


def test_a_filtered_cases_list_keeps_its_filter_on_the_following_pages(api, cases):
    passed = ids(api.get(f"{API}/cases", {"reason": "passed"}))

    assert walk(api, f"{API}/cases?reason=passed&limit=1") == passed


def test_a_case_reads_as_its_page_shows_it(api, cases):
    case = cases["looked-up"]

    body = api.get(f"{API}/cases/{case.pk}").json()

    assert (body["id"], body["case_id"], body["verdict"]) == (case.pk, "c-looked-up", "proposed")
    assert body["content_text"] == case.content_text
    assert body["rationale_text"] == case.rationale_text
    assert (body["flagged"], body["validator_reason"]) == (case.flagged, case.validator_reason)
    assert [(item["ev_id"], item["tool"], item["status"]) for item in body["evidence"]] == [
        (item.ev_id, item.tool, item.status) for item in case.evidence.order_by("position")
    ]
    assert (body["review_stage"], body["decided_by"], body["version"]) == ("single", None, 1)


def test_an_unknown_case_or_answer_is_404(api):
    assert api.get(f"{API}/cases/999").json()["detail"] == "there is no case 999"
    assert api.get(f"{API}/answers/999").status_code == 404
    assert api.get(f"{API}/cases", {"after": 999}).status_code == 404


def test_another_projects_case_and_answer_are_404_and_not_listed(api):
    elsewhere = make_project("elsewhere")
    case = make_case("c-far", project=elsewhere)
    answer = make_answer("a-far", project=elsewhere)

    assert api.get(f"{API}/cases/{case.pk}").status_code == 404
    assert api.get(f"{API}/answers/{answer.pk}").status_code == 404
    assert ids(api.get(f"{API}/cases")) == ids(api.get(f"{API}/answers")) == []
    # The key acts for "Default" alone: the other project's address is no project of its.
    assert api.get(f"/api/projects/elsewhere/cases/{case.pk}").status_code == 404


# --- answers -------------------------------------------------------------------------------


@pytest.fixture
def answers() -> dict[str, Answer]:
    made = {
        "plover": make_answer("a-plover", question="Where does the plover nest?"),
        "published": make_answer("a-published", state=Answer.State.PUBLISHED),
        "changed": make_answer("a-changed"),
        "plain": make_answer("a-plain"),
    }
    # A fixture, not an import's finding (finalizing renumbers the default text's citations):
    # the filter reads the flag the import sets.
    Answer.objects.exclude(pk=made["changed"].pk).update(changed=False)
    Answer.objects.filter(pk=made["changed"].pk).update(changed=True)
    return made


def test_answers_are_listed_newest_first_and_a_page_at_a_time(api, answers):
    newest_first = list(Answer.objects.order_by("-created_at", "-pk").values_list("pk", flat=True))

    assert ids(api.get(f"{API}/answers")) == newest_first
    assert walk(api, f"{API}/answers?limit=3") == newest_first


def test_each_filter_of_the_answers_page_changes_what_is_listed(api, answers):
    everything = set(ids(api.get(f"{API}/answers")))

    def listed(**query) -> set[int]:
        return set(ids(api.get(f"{API}/answers", query)))

    assert listed(q="plover") == {answers["plover"].pk}
    assert listed(state="published") == {answers["published"].pk}
    assert listed(changed="yes") == {answers["changed"].pk}
    assert listed(changed="no") == everything - {answers["changed"].pk}


def test_an_answer_reads_with_its_references_as_its_page_shows_it(api, answers):
    answer = answers["plain"]

    body = api.get(f"{API}/answers/{answer.pk}").json()

    assert (body["answer_id"], body["state"], body["body"]) == ("a-plain", "proposed", answer.body)
    assert body["raw_text"] == answer.raw_text and body["sources"] == answer.sources
    assert [ref["number"] for ref in body["references"]] == sorted(
        answer.references.values_list("number", flat=True)
    )
    assert body["references"][0]["title"].startswith("Study number")


# --- blind review ----------------------------------------------------------------------------


def reviewers(group: str):
    first = pipeline_user("first-key", groups=(group,), username="first-reviewer")
    second = pipeline_user("second-key", groups=(group,), username="second-reviewer")
    return first, second, api_client("second-key")


def read_both(api, url: str, pk: int) -> tuple[dict, str]:
    listed = api.get(url.rsplit("/", 1)[0])
    item = next(row for row in listed.json()["items"] if row["id"] == pk)
    one = api.get(url)
    return one.json() | {"listed": item}, listed.content.decode() + one.content.decode()


@pytest.mark.parametrize("queue", ["cases", "answers"])
def test_a_first_opinion_is_not_in_what_the_second_reviewers_key_reads(queue):
    double_review(queue)
    group, action = ("Moderators", "uphold") if queue == "cases" else ("Editors", "publish")
    decide = decide_case if queue == "cases" else decide_answer
    item = make_case("c-blind") if queue == "cases" else make_answer("a-blind")
    first, second, second_api = reviewers(group)
    url = f"{API}/{queue}/{item.pk}"

    decide(item, action, actor=first, expected_version=item.version, note="FIRST-SAID-THIS")
    during, text = read_both(second_api, url, item.pk)

    assert "FIRST-SAID-THIS" not in text and "first-reviewer" not in text
    outcome = "verdict" if queue == "cases" else "state"
    for read in (during, during["listed"]):
        assert read["review_stage"] == "awaiting_second"
        assert (read[outcome], read["decided_by"], read["note"]) == ("proposed", None, "")

    item.refresh_from_db()
    decide(item, action, actor=second, expected_version=item.version, note="")
    after, _ = read_both(second_api, url, item.pk)

    assert after["review_stage"] == after["listed"]["review_stage"] == "agreed"
    assert after[outcome] == ("upheld" if queue == "cases" else "published")
    assert after["decided_by"] is not None
