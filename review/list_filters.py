"""What the case and answer lists filter by, read from a query string: the pages and the API
ask these, so the same filters list the same items at either door."""

from __future__ import annotations

from collections.abc import Mapping

from django.db.models import Exists, OuterRef, QuerySet

from review.models import Answer, Case, Evidence

CASE_FILTERS = ("reason", "tool", "status", "verdict")
ANSWER_FILTERS = ("q", "state", "changed")
PASSED = "passed"  # the reason filter's value for cases whose rationale passed


def filters_of(query: Mapping[str, str], names: tuple[str, ...]) -> dict[str, str]:
    """The filters `names` as `query` gives them, blank when absent."""
    return {name: (query.get(name) or "").strip() for name in names}


def filtered_cases(cases: QuerySet[Case], filters: dict[str, str]) -> QuerySet[Case]:
    """The `cases` the queue's filters keep (`CASE_FILTERS`, blank: not filtered)."""
    reason = filters["reason"]
    if reason:
        # A case is flagged exactly when it has a reason. Saying so tells the database where
        # the reason's cases lie in the queue's order, which it cannot tell from statistics:
        # else it may walk the flagged cases looking for ones that passed.
        passed = reason == PASSED
        cases = cases.filter(validator_reason="" if passed else reason, flagged=not passed)
    if filters["verdict"]:
        cases = cases.filter(verdict=filters["verdict"])
    if filters["tool"] or filters["status"]:
        # Tool and status together mean one evidence item with both.
        matching = Evidence.objects.filter(case=OuterRef("pk"))
        if filters["tool"]:
            matching = matching.filter(tool=filters["tool"])
        if filters["status"]:
            matching = matching.filter(status=filters["status"])
        cases = cases.filter(Exists(matching))
    return cases


def filtered_answers(answers: QuerySet[Answer], filters: dict[str, str]) -> QuerySet[Answer]:
    """The `answers` the list's state and changed filters keep; the search `q` is
    `review.views.answers.search_answers`', which also says in which order to list them."""
    if filters["state"]:
        answers = answers.filter(state=filters["state"])
    if filters["changed"] in ("yes", "no"):
        answers = answers.filter(changed=filters["changed"] == "yes")
    return answers
