"""The progress page (leads and staff) and a reviewer's own figures on the dashboard."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from review.actions import leases
from review.actions.plan_reviews import AGREED
from review.actions.revisions import CARRY
from review.models import Decision, Lease
from review.models.projects import default_project_id
from review.views.progress import reviewer_figures
from tests.builders.cases_answers import make_case
from tests.builders.revisions import first_plan, revise
from tests.builders.users import make_project, member, user_in

pytestmark = pytest.mark.django_db
NOW = timezone.now()


@pytest.fixture(autouse=True)
def _one_moment():
    """A test's decisions are timed back from one moment, not each from its own now(): on a busy
    machine the calls are milliseconds apart, and the medians are asserted to 0.01 s."""
    global NOW
    NOW = timezone.now()


def decided(user, *, seconds_ago: float, action: str = "case.uphold", **fields) -> Decision:
    return Decision.objects.create(
        project_id=default_project_id(),
        actor=user,
        actor_name=user.username,
        action=action,
        object_type="case",
        object_id="1",
        at=NOW - timedelta(seconds=seconds_ago),
        **fields,
    )


@pytest.fixture
def lead(django_user_model):
    return user_in(django_user_model, "lena", "Leads")


def test_only_leads_and_staff_see_the_progress_page(client, moderator, lead, django_user_model):
    assert client.get("/p/default/progress/").status_code == 403
    client.force_login(lead)
    assert client.get("/p/default/progress/").status_code == 200
    staff = django_user_model.objects.create_user("sam", is_staff=True)
    client.force_login(staff)
    assert client.get("/p/default/progress/").status_code == 200


def test_the_median_pause_between_decisions_leaves_out_breaks(moderator) -> None:
    # Pauses of 10, 30 and 10 seconds, then an eleven-minute break (not time spent deciding).
    for seconds_ago in (800, 790, 760, 750, 90):
        decided(moderator, seconds_ago=seconds_ago)
    [figures] = reviewer_figures(moderator)
    assert figures.median_seconds == pytest.approx(10, abs=0.01)


def test_an_even_number_of_pauses_has_the_mean_of_the_middle_two_as_its_median(moderator):
    for offset in (0, 10, 30, 60, 100):  # pauses 10, 20, 30, 40
        decided(moderator, seconds_ago=120 - offset)
    [figures] = reviewer_figures(moderator)
    assert figures.median_seconds == pytest.approx(25, abs=0.01)


def test_decisions_logged_at_one_stroke_are_not_timed_as_a_persons_decisions(editor, moderator):
    # The editor takes three decisions, 40 seconds apart, looking at each entry...
    for seconds_ago in (100, 60, 20):
        decided(editor, seconds_ago=seconds_ago, action="entry.reject")
    # ...and, between them, accepts all of a rule, uploads a revision (its carried decisions),
    # undoes the accept-all, and hands in a second review (its agreements): each many rows at
    # once, which would make the median 0 seconds.
    note = Decision.RULE_BATCH_NOTE.format(rule="rule:heading")
    accepted = [
        decided(editor, seconds_ago=90, action="entry.accept", note=note, batch="0123456789")
        for _ in range(6)
    ]
    for _ in range(6):
        decided(editor, seconds_ago=80, action=CARRY)
    for row in accepted:
        decided(editor, seconds_ago=50, action="entry.undo", undoes=row)
    for _ in range(6):
        decided(editor, seconds_ago=30, action=AGREED)
    # An undo a person took on its own is timed as theirs.
    for seconds_ago in (300, 250):
        decided(moderator, seconds_ago=seconds_ago)
    decided(
        moderator, seconds_ago=200, action="case.undo", undoes=decided(moderator, seconds_ago=400)
    )

    by_name = {row.username: row for row in reviewer_figures()}

    assert by_name["editor"].median_seconds == pytest.approx(40, abs=0.01)
    assert reviewer_figures(editor)[0].median_seconds == pytest.approx(40, abs=0.01)
    assert by_name["moderator"].median_seconds == pytest.approx(50, abs=0.01)


def test_figures_count_today_this_week_conflicts_and_items_held(client, moderator, lead):
    make_case("c-1")
    decided(moderator, seconds_ago=5)
    decided(moderator, seconds_ago=1, action="lease.release")  # not a decision of theirs
    leases.take_next(Lease.Queue.CASES, moderator, default_project_id())
    case_pk = Lease.objects.get().item_id
    # A verdict on a version someone else already moved on: a conflict met.
    client.post(f"/p/default/cases/{case_pk}/uphold/", {"version": 1})
    client.post(f"/p/default/cases/{case_pk}/overturn/", {"version": 1, "note": "late"})
    [figures] = reviewer_figures(moderator)
    assert (figures.today, figures.week, figures.conflicts, figures.leases) == (2, 2, 1, 0)
    client.force_login(lead)
    body = client.get("/p/default/progress/").content.decode()
    assert '<th scope="row">moderator</th>' in body


def test_a_conflict_met_in_another_project_is_counted_there_and_not_here(client, moderator):
    other = make_project("other")
    member(moderator, other, "moderator")
    case = make_case("c-1", project=other)
    # Two verdicts on version 1: the second meets the first's change, in project "other".
    client.post(f"/p/other/cases/{case.pk}/uphold/", {"version": 1})
    client.post(f"/p/other/cases/{case.pk}/overturn/", {"version": 1, "note": "late"})

    [there] = reviewer_figures(moderator, other)
    assert there.conflicts == 1
    assert all(row.conflicts == 0 for row in reviewer_figures(None, default_project_id()))
    [everywhere] = reviewer_figures(moderator)
    assert everywhere.conflicts == 1


def test_a_reviewer_sees_their_own_figures_on_the_dashboard(client, moderator) -> None:
    decided(moderator, seconds_ago=30)
    decided(moderator, seconds_ago=10)
    body = client.get("/").content.decode()
    assert "Your figures" in body and "Median seconds per decision" in body
    assert "Everyone's progress" not in body


def test_the_progress_page_asks_as_many_queries_for_many_decisions_as_for_few(
    client, lead, django_user_model
) -> None:
    client.force_login(lead)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get("/p/default/progress/").status_code == 200
        return len(captured)

    first = user_in(django_user_model, "m1", "Moderators")
    decided(first, seconds_ago=20)
    few = queries()
    for n in range(2, 8):
        person = user_in(django_user_model, f"m{n}", "Moderators")
        for seconds in range(1, 10):
            decided(person, seconds_ago=seconds * 7)
    assert queries() == few


def test_a_plan_superseded_by_an_upload_is_no_decision_of_the_uploader(moderator):
    revise(first_plan(), moderator)

    assert Decision.objects.filter(action="plan.supersede", actor=moderator).exists()
    assert not Decision.objects.filter(actor=moderator).exclude(action="plan.supersede").exists()
    [figures] = reviewer_figures(moderator)
    assert (figures.today, figures.week) == (0, 0)
