"""Every list's page and every queue's "Next" is a walk along an index in its order, not a
sort of all the rows (PostgreSQL, where the large instances run)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import RequestFactory

from review.actions.leases import QUEUES
from review.list_filters import filtered_cases
from review.models import Answer, Case, Lease, Project
from review.models.projects import default_project_id
from review.views.answers import NEWEST_FIRST
from review.views.cases import QUEUE_KEYS
from review.views.projects import in_current_project
from tests.builders.cases_answers import make_answer, make_case

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="plans are PostgreSQL's"),
]

NO_FILTER = {"reason": "", "tool": "", "status": "", "verdict": ""}


def plan_of(queryset) -> str:
    with connection.cursor() as cursor:
        # On tables this small a scan and a sort would win; forbid both, to see whether an
        # index gives the order (a sort still happens, at a high cost, when none does).
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        return queryset.explain()


def default_project() -> Project:
    return Project.objects.get(pk=default_project_id())


def cases_list(filters: dict, user):
    """The cases list's query as its page makes it, in the project its address names."""
    request = RequestFactory().get("/")
    request.user, request.project = user, default_project()
    return filtered_cases(in_current_project(request, Case.objects.all()), filters)


def ordered(queryset, keys):
    return queryset.order_by(*(key.ordering() for key in keys))[:51]


@pytest.mark.parametrize(
    "filters",
    [{}, {"reason": "passed"}, {"reason": "uncited_claims"}, {"verdict": "upheld"}],
    ids=["default", "passed", "a reason", "a verdict"],
)
def test_each_page_of_the_cases_queue_walks_an_index(filters, moderator):
    make_case("c-1")
    plan = plan_of(ordered(cases_list(NO_FILTER | filters, moderator), QUEUE_KEYS))

    assert "Sort" not in plan and "case_queue" in plan


@pytest.mark.parametrize("filters", [{}, {"state": "published"}, {"changed": True}])
def test_each_page_of_the_answers_list_walks_an_index(filters):
    make_answer("a-1")
    answers = Answer.objects.filter(project=default_project(), **filters)
    plan = plan_of(ordered(answers, NEWEST_FIRST))

    assert "Sort" not in plan and "answer_list" in plan


@pytest.mark.parametrize(
    ("queue", "index"),
    [
        ("plans", "plan_list_status_order"),
        ("cases", "case_queue_by_verdict"),
        ("answers", "answer_list_by_state"),
    ],
)
def test_next_finds_the_first_waiting_item_along_an_index(queue, index):
    make_case("c-1")
    make_answer("a-1")
    waiting = QUEUES[queue].waiting(default_project())

    plan = plan_of(waiting.exclude(pk__in=Lease.objects.values("item_id"))[:1])

    assert "Sort" not in plan and index in plan, plan


@pytest.mark.parametrize(
    ("queue", "who", "indexes"),
    [
        ("cases", "moderator", ["case_awaiting_second", "case_queue_by_verdict"]),
        ("cases", "curator", ["case_both_opinions"]),
        ("answers", "editor", ["answer_awaiting_second", "answer_list_by_state"]),
        ("answers", "curator", ["answer_both_opinions"]),
    ],
)
def test_each_stage_next_takes_from_walks_an_index(request, queue, who, indexes):
    user = request.getfixturevalue(who)
    make_case("c-1")
    make_answer("a-1")

    stages = QUEUES[queue].stages_for(user, default_project())
    plans = [plan_of(stage[:1]) for stage in stages]

    assert len(plans) == len(indexes)
    for plan, index in zip(plans, indexes, strict=True):
        assert "Sort" not in plan and index in plan, plan


def test_the_cases_queue_order_is_the_one_next_takes_from():
    waiting = QUEUES[Lease.Queue.CASES].waiting(default_project())
    assert waiting.query.order_by == Case.QUEUE_ORDER
