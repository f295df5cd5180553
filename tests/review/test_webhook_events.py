"""The webhooks' outbox: an event and its deliveries are written in the transaction of the
decision that causes it, only for the endpoints of its project that want it; a decision that
did not land leaves none."""

from __future__ import annotations

import pytest
from django.db import transaction

from review.actions.answers import decide_answer
from review.actions.cases import decide_case
from review.actions.entries import accept_entry, reject_entry
from review.actions.plan_reviews import open_review_copy
from review.actions.plans import do_adjudicate_plan
from review.decisions import StaleVersion
from review.jobs import run_job, start_job
from review.models import Entry, Job, WebhookDelivery, WebhookEvent
from review.webhooks import events
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.reviews import double_review
from tests.builders.revisions import decided_plan, revise
from tests.builders.users import make_project, member, user_in
from tests.builders.webhooks import accept, allow_loopback, endpoint_to

pytestmark = pytest.mark.django_db

URL = "http://127.0.0.1:9/hooks"


@pytest.fixture
def lead(django_user_model, settings):
    allow_loopback(settings)
    return user_in(django_user_model, "lead", "Leads")


def test_a_decision_writes_its_event_with_one_delivery_per_endpoint_that_wants_it(
    lead, editor
) -> None:
    plan = make_plan(2)
    wants, _ = endpoint_to(URL, plan.project, lead)
    endpoint_to(URL + "/cases", plan.project, lead, events=[events.CASE_SETTLED])
    entry = entries_of(plan)[0]
    decision = accept(entry, editor)
    event = WebhookEvent.objects.get()
    assert (event.type, event.project_id) == (events.ENTRY_DECIDED, plan.project_id)
    assert event.data == {
        "project": "default",
        "object": {"type": "entry", "id": entry.pk},
        "actor": "editor",
        "at": decision.at.isoformat(),
        "path": f"/api/projects/default/plans/{plan.pk}",
        "decision": decision.pk,
        "action": "entry.accept",
        "state": Entry.State.ACCEPTED,
    }
    assert list(WebhookDelivery.objects.values_list("endpoint", "status")) == [
        (wants.pk, "pending")
    ]


def test_nothing_is_written_while_no_endpoint_listens(editor) -> None:
    accept(entries_of(make_plan(2))[0], editor)
    assert not WebhookEvent.objects.exists()


def test_a_decision_rolled_back_leaves_no_event_and_one_refused_writes_none(lead, editor) -> None:
    plan = make_plan(2)
    endpoint_to(URL, plan.project, lead)
    entry = Entry.objects.select_related("plan").get(pk=entries_of(plan)[0].pk)
    with pytest.raises(RuntimeError), transaction.atomic():
        accept_entry(entry, actor=editor, expected_version=1)
        raise RuntimeError("the request failed after the decision was made")
    assert not WebhookEvent.objects.exists()
    accept(entry, editor)
    with pytest.raises(StaleVersion), transaction.atomic():
        # The page showed version 1; it was accepted since.
        reject_entry(entry, actor=editor, expected_version=1, note="")
    assert WebhookEvent.objects.count() == WebhookDelivery.objects.count() == 1


def test_an_event_of_one_project_is_never_delivered_to_another_projects_endpoint(
    lead, editor, django_user_model
) -> None:
    other = make_project("other")
    other_lead = user_in(django_user_model, "other-lead", None)
    member(other_lead, other, "lead")
    endpoint_to(URL, other, other_lead)
    accept(entries_of(make_plan(2))[0], editor)
    assert not WebhookEvent.objects.exists()
    assert not WebhookDelivery.objects.exists()


def test_a_verdict_and_a_publication_are_events_of_their_own_types(lead, moderator) -> None:
    case = make_case("c-1")
    answer = make_answer("a-1")
    endpoint_to(URL, case.project, lead, events=[events.CASE_SETTLED, events.ANSWER_PUBLISHED])
    member(moderator, case.project, "editor")
    with transaction.atomic():
        decide_case(case, "uphold", actor=moderator, expected_version=case.version, note="")
    with transaction.atomic():
        decide_answer(answer, "publish", actor=moderator, expected_version=answer.version)
    kinds = [
        (e.type, e.data["object"], e.data.get("verdict", e.data.get("state")))
        for e in WebhookEvent.objects.order_by("pk")
    ]
    assert kinds == [
        (events.CASE_SETTLED, {"type": "case", "id": case.pk}, "upheld"),
        (events.ANSWER_PUBLISHED, {"type": "answer", "id": answer.pk}, "published"),
    ]
    assert WebhookEvent.objects.get(type=events.CASE_SETTLED).data["path"] == (
        f"/p/default/cases/{case.pk}/"
    )


def test_a_finished_job_is_an_event_naming_its_status(lead, editor) -> None:
    project = make_plan(1).project
    endpoint_to(URL, project, lead, events=[events.JOB_FINISHED])
    job = start_job(Job.Kind.IMPORT_CASES, editor, project=project, data=b"not json\n")
    run_job.call(job.pk)
    event = WebhookEvent.objects.get()
    assert (event.type, event.data["status"], event.data["object"]) == (
        events.JOB_FINISHED,
        "failed",
        {"type": "job", "id": job.pk},
    )
    assert event.data["path"] == f"/api/projects/default/jobs/{job.pk}"


def test_a_revision_carried_is_one_event_naming_the_plan_it_carried(lead, alice) -> None:
    plan = decided_plan(alice)
    endpoint_to(URL, plan.project, lead, events=[events.REVISION_CARRIED])
    revised = revise(plan, alice)
    event = WebhookEvent.objects.get()
    assert event.type == events.REVISION_CARRIED
    assert event.data["object"] == {"type": "document", "id": revised.revision.pk}
    assert (event.data["plan"], event.data["carried"]) == (revised.plan.pk, len(revised.carried))
    assert event.data["path"] == f"/api/projects/default/plans/{revised.plan.pk}"
    assert event.data["actor"] == "alice"


def test_adjudicating_a_plan_is_an_event_after_its_entries_own(lead, editor) -> None:
    plan = make_plan(1)
    endpoint_to(URL, plan.project, lead, events=[events.PLAN_ADJUDICATED, events.ENTRY_DECIDED])
    for entry in entries_of(plan):
        accept(entry, editor)
    plan.refresh_from_db()
    with transaction.atomic():
        do_adjudicate_plan(plan, actor=editor, expected_version=plan.version)
    kinds = list(WebhookEvent.objects.order_by("pk").values_list("type", flat=True))
    assert kinds == [events.ENTRY_DECIDED] * len(entries_of(plan)) + [events.PLAN_ADJUDICATED]
    assert WebhookEvent.objects.last().data["status"] == "adjudicated"


def test_under_double_review_only_the_agreeing_second_opinion_settles_a_case(
    lead, moderator, moderator2
) -> None:
    double_review("cases")
    case = make_case("c-1")
    endpoint_to(URL, case.project, lead, events=[events.CASE_SETTLED])
    with transaction.atomic():
        decide_case(case, "uphold", actor=moderator, expected_version=case.version, note="")
    assert not WebhookEvent.objects.exists()  # a first opinion, blind to the second reviewer
    case.refresh_from_db()
    with transaction.atomic():
        decide_case(case, "uphold", actor=moderator2, expected_version=case.version, note="")
    event = WebhookEvent.objects.get()
    assert (event.data["action"], event.data["verdict"]) == ("case.second_opinion", "upheld")


def test_an_entry_of_a_review_copy_is_no_event_while_the_other_reviewer_is_blind_to_it(
    lead, editor
) -> None:
    """Under double review each editor decides a copy of their own: its entries are one
    reviewer's blind opinions, which no receiver hears of; the plan's own entries are."""
    double_review("plans")
    plan = make_plan(2)
    endpoint_to(URL, plan.project, lead, events=[events.ENTRY_DECIDED])
    copy = open_review_copy(plan, actor=editor)

    accept(entries_of(copy)[0], editor)

    assert not WebhookEvent.objects.exists()
