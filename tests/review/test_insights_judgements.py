"""A rule's record counts what people judged, entry by entry: not the entries accepted with all
of their rule, not decisions carried onto a revision, not the copies of a double review; and a
document's revisions are one document. What it leaves out it shows beside the record."""

from __future__ import annotations

import json
import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from review.actions.entries import accept_entry, reject_entry, undo_entry
from review.actions.plan_reviews import open_review_copy
from review.actions.plans import RuleNotValidated, accept_rule, rule_candidates
from review.actions.revisions import CARRY, add_revision
from review.insights import Filters, insights, rule_record, rule_records
from review.models import Decision, Document, Entry, Plan
from review.models.projects import default_project_id
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

RULE = "rule:heading"


def fresh(entry: Entry) -> Entry:
    return Entry.objects.select_related("plan").get(pk=entry.pk)


def of_rule(plan: Plan) -> list[Entry]:
    return [entry for entry in entries_of(plan) if RULE in entry.rules]


def judge(plan: Plan, actor, *, reject: int = 0) -> None:
    """A person decides each proposed entry of the rule on its own: the first `reject`
    rejected, the rest accepted."""
    for index, entry in enumerate(rule_candidates(plan, RULE)):
        act = reject_entry if index < reject else accept_entry
        act(fresh(entry), actor=actor, expected_version=entry.version)


def accept_all(plan: Plan, actor) -> list[Decision]:
    """ "Accept all proposed of the rule", ticked "without looking at each"."""
    versions = {entry.pk: entry.version for entry in rule_candidates(plan, RULE)}
    return accept_rule(plan, RULE, actor=actor, versions=versions, unvalidated_confirmed=True)


def revise(document: Document, actor, words: str):
    """The next revision of `document`: its text with one paragraph's words changed."""
    text = document.text.replace("in words an editor", f"in words {words} an editor", 1)
    return add_revision(document, document.name, text.encode(), actor=actor)


def record(plan: Plan):
    return rule_record(RULE, plan.proposed_by)


def counted(found) -> tuple:
    """What a record counts, and whether that validates the rule."""
    if found is None:
        return None
    return (
        found.decided,
        found.accepted,
        found.edited,
        found.merged,
        found.rejected,
        found.documents,
        found.validated,
    )


# --- bulk accepts ------------------------------------------------------------------------------


def test_entries_accepted_with_all_of_their_rule_are_shown_beside_the_record_not_in_it(editor):
    plan = make_plan(6)
    first, second = rule_candidates(plan, RULE)[:2]
    accept_entry(fresh(first), actor=editor, expected_version=first.version)
    reject_entry(fresh(second), actor=editor, expected_version=second.version)

    bulk = accept_all(plan, editor)

    found = record(plan)
    assert len(bulk) == len(of_rule(plan)) - 2 > 0
    assert (found.decided, found.accepted, found.rejected) == (2, 1, 1)
    assert found.bulk_accepted == len(bulk)
    assert found.not_counted == f"{len(bulk)} bulk-accepted, not counted"
    assert found.proposed == len(of_rule(plan))


def test_an_entry_a_person_decides_after_its_bulk_accept_counts_and_its_undo_does_not(editor):
    plan = make_plan(4)
    accept_all(plan, editor)
    entry = fresh(of_rule(plan)[0])

    reject_entry(entry, actor=editor, expected_version=entry.version)
    assert (record(plan).decided, record(plan).rejected) == (1, 1)

    # Undoing the rejection puts back the bulk accept: again nobody's judgement.
    undo_entry(fresh(entry), actor=editor, expected_version=fresh(entry).version)
    assert record(plan).decided == 0
    assert record(plan).bulk_accepted == len(of_rule(plan))


def test_undoing_an_accept_all_takes_its_entries_off_the_record_entirely(editor):
    from review.actions.plans import undo_accept_rule

    plan = make_plan(4)
    batch = accept_all(plan, editor)[0].rule_batch

    undo_accept_rule(plan, batch, actor=editor)

    found = record(plan)
    assert (found.decided, found.bulk_accepted) == (0, 0)


def test_a_rule_that_only_bulk_accepts_would_validate_still_needs_a_second_confirmation(
    settings, editor
):
    settings.INSIGHTS_MIN_DOCUMENTS = 2
    settings.INSIGHTS_MIN_LOWER_BOUND = 0.5
    for number in range(3):
        accept_all(make_plan(6, name=f"guide-{number}.md", title=f"Guide {number}"), editor)
    plan = make_plan(6, name="next.md", title="Next")
    versions = {entry.pk: entry.version for entry in rule_candidates(plan, RULE)}

    with pytest.raises(RuleNotValidated, match="none of its .* decided by a person yet"):
        accept_rule(plan, RULE, actor=editor, versions=versions)
    assert not Decision.objects.filter(object_id__in=[str(pk) for pk in versions]).exists()


def test_the_same_decisions_taken_one_by_one_do_validate_the_rule(settings, editor):
    # The gate above refuses because nobody judged, not because it always refuses.
    settings.INSIGHTS_MIN_DOCUMENTS = 2
    settings.INSIGHTS_MIN_LOWER_BOUND = 0.5
    for number in range(3):
        judge(make_plan(6, name=f"guide-{number}.md", title=f"Guide {number}"), editor)
    plan = make_plan(6, name="next.md", title="Next")
    versions = {entry.pk: entry.version for entry in rule_candidates(plan, RULE)}

    assert len(accept_rule(plan, RULE, actor=editor, versions=versions)) == len(versions)


# --- revisions ---------------------------------------------------------------------------------


def test_a_revision_is_the_same_document_and_its_carried_decisions_are_not_counted_again(editor):
    plan = make_plan(5)
    judge(plan, editor, reject=1)
    before = counted(record(plan))

    revised = revise(plan.document, editor, "that")

    carried = Decision.objects.filter(action=CARRY).count()
    found = record(plan)
    assert revised.plan is not None and carried > 0
    assert counted(found) == before
    assert found.documents == 1
    assert found.carried == carried
    assert f"{carried} carried from an earlier revision, not counted" in found.not_counted


def test_a_person_deciding_a_carried_entry_again_counts_it_on_the_same_document(editor):
    plan = make_plan(5)
    judge(plan, editor)
    revised = revise(plan.document, editor, "that")
    entry = fresh(of_rule(revised.plan)[0])
    assert entry.state == Entry.State.ACCEPTED

    reject_entry(entry, actor=editor, expected_version=entry.version)

    found = record(plan)
    assert (found.decided, found.rejected, found.documents) == (len(of_rule(plan)) + 1, 1, 1)


# --- double review -----------------------------------------------------------------------------


def test_a_double_reviewed_entry_counts_once_and_its_copies_beside_the_record(
    editor, django_user_model
):
    double_review("plans")
    plan = make_plan(3)
    second = user_in(django_user_model, "editor2", "Editors")
    hand_in_review(open_review_copy(plan, actor=editor), editor)
    hand_in_review(open_review_copy(plan, actor=second), second)

    found = record(plan)
    entries = len(of_rule(plan))
    assert (found.proposed, found.decided, found.accepted) == (entries, entries, entries)
    assert found.review_copies == 2 * entries
    assert "decided in double-review copies, not counted" in found.not_counted


# --- any sequence of bulk accepts and revisions ----------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_no_sequence_of_bulk_accepts_and_revisions_changes_what_a_record_counts(
    seed, settings, editor
):
    """A seeded random sequence of the two things no person judges (accepting every proposed
    entry of the rule unseen, on plans old and new, and uploading a revision, which carries
    the decisions) leaves the rule's record, and so whether it is validated, as it was."""
    settings.INSIGHTS_MIN_DOCUMENTS = 2
    settings.INSIGHTS_MIN_LOWER_BOUND = 0.4
    draw = random.Random(seed)
    plans = []
    # Some judged on one document, some on two (validated or not, as the draw falls).
    for number in range(draw.choice((1, 2))):
        plan = make_plan(draw.randint(3, 5), name=f"judged-{number}.md", title=f"J {number}")
        judge(plan, editor, reject=draw.randint(0, 2))
        plans.append(plan)
    version = plans[0].proposed_by
    before = counted(rule_record(RULE, version))
    steps = []
    for step in range(draw.randint(3, 6)):
        move = draw.choice(("accept all on a new plan", "accept all on a plan", "revise"))
        steps.append(move)
        if move == "accept all on a new plan":
            name = f"bulk-{step}.md"
            plans.append(make_plan(draw.randint(2, 4), name=name, title=f"B {step}"))
            accept_all(plans[-1], editor)
        elif move == "accept all on a plan":
            plan = draw.choice(plans)
            plan.refresh_from_db()  # a revision since may have superseded it
            if plan.is_open and rule_candidates(plan, RULE):
                accept_all(plan, editor)
        else:
            latest = draw.choice(plans).document
            while (following := Document.objects.filter(revision_of=latest).first()) is not None:
                latest = following
            revised = revise(latest, editor, f"step {step}")
            if revised.plan is not None:
                plans.append(revised.plan)

        assert counted(rule_record(RULE, version)) == before, (seed, steps)
    assert rule_record(RULE, version).validated == before[-1]


# --- the doors ----------------------------------------------------------------------------------


def test_the_page_the_api_and_the_command_show_what_was_not_counted(client, editor):
    from io import StringIO

    from django.core.management import call_command

    plan = make_plan(4)
    bulk = len(accept_all(plan, editor))
    words = f"{bulk} bulk-accepted, not counted"

    body = client.get("/p/default/insights/").content.decode()
    assert words in body
    pipeline_user(groups=("Editors",))
    payload = api_client().get(f"{API}/insights").json()
    (rule,) = [r for r in payload["rules"] if r["rule"] == RULE]
    assert rule["not_counted"] == {"bulk_accepted": bulk, "carried": 0, "review_copies": 0}
    assert rule["decided"] == 0
    out = StringIO()
    call_command("insights", "--format", "json", stdout=out)
    assert json.loads(out.getvalue())["rules"][0]["not_counted"]["bulk_accepted"] == bulk
    out = StringIO()
    call_command("insights", "--format", "csv", "--rule", RULE, stdout=out)
    assert words in out.getvalue()
    page = client.get(
        f"/p/default/plans/{make_plan(2, name='b.md').pk}/accept-rule/", {"rule": RULE}
    )
    assert f"{bulk} bulk-accepted, not counted" in page.content.decode()


def test_the_figures_take_the_same_queries_with_bulk_accepts_and_revisions_as_without(editor):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            insights(Filters())
        return len(captured)

    judge(make_plan(3, name="a.md"), editor)
    few = queries()
    for number in range(3):
        plan = make_plan(3, name=f"b{number}.md", title=f"B {number}")
        accept_all(plan, editor)
        revise(plan.document, editor, f"n{number}")
    assert queries() == few
    assert {r.rule for r in rule_records()} >= {RULE}


# --- the log's twin rules ----------------------------------------------------------------------


def test_a_decisions_rule_batch_and_its_filter_give_the_same_answer(editor):
    notes = [
        (Decision.RULE_BATCH_NOTE.format(rule=RULE), "0123456789"),
        (Decision.RULE_BATCH_NOTE.format(rule="rule:a (b)"), "abcdef0123"),
        # A note that reads like an accept-all's, logged by no accept-all.
        (Decision.RULE_BATCH_NOTE.format(rule="rule:x"), ""),
        ("accepted with all of rule:x (batch 0123456789)", ""),
        ("looks right", ""),
        ("", ""),
    ]
    rows = [
        Decision.objects.create(
            project_id=default_project_id(),
            actor_name="editor",
            action=action,
            object_type="entry",
            object_id="1",
            note=note,
            batch=batch,
        )
        for note, batch in notes
        for action in ("entry.accept", "entry.reject")
    ]
    in_sql = set(Decision.objects.filter(Decision.rule_batch_q()).values_list("pk", flat=True))
    in_python = {row.pk for row in rows if row.rule_batch}
    assert in_sql == in_python
    assert len(in_python) == 2
