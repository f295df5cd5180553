"""`decisions.py` is the one writer of decisions: it asks the row it decides what else the
change does (its model's hooks), stores a plan's payload in the decision's own UPDATE, keeps
the accept-all batch in a column, and offers no way to log a change that did not happen."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from review import decisions
from review.actions.cases import decide_case
from review.actions.entries import accept_entry
from review.actions.plan_reviews import adjudicate_plan
from review.actions.plans import accept_rule, rule_candidates
from review.models import Case, Decision, Plan
from tests.builders.cases_answers import make_case
from tests.builders.plan_views import entries_of, make_plan

pytestmark = pytest.mark.django_db

RULE = "rule:heading"


def test_decide_asks_the_row_it_decides_what_else_its_change_does(monkeypatch, moderator):
    case = make_case("c-1")
    seen = []
    monkeypatch.setattr(
        Case, "on_decision", lambda self, will_be: seen.append(("before", will_be.verdict))
    )
    monkeypatch.setattr(
        Case, "after_decision", lambda self, was: seen.append(("after", was.verdict))
    )
    decide_case(case, "uphold", actor=moderator, expected_version=case.version, note="")
    assert seen == [("before", Case.Verdict.UPHELD), ("after", Case.Verdict.PROPOSED)]


def test_a_hook_that_refuses_leaves_the_row_and_the_log_as_they_were(monkeypatch, moderator):
    case = make_case("c-1")

    def refuse(self, will_be):
        raise decisions.ActionRefused("not now")

    monkeypatch.setattr(Case, "on_decision", refuse)
    with pytest.raises(decisions.ActionRefused):
        decide_case(case, "uphold", actor=moderator, expected_version=case.version, note="")
    assert Case.objects.get(pk=case.pk).verdict == Case.Verdict.PROPOSED
    assert not Decision.objects.exists()


def test_the_decision_module_logs_only_through_its_own_ways_of_changing_a_row():
    assert not hasattr(decisions, "record")
    # And it names no model of the plans: an entry's reactions are the entry's own.
    assert "Entry" not in inspect.getsource(decisions.decide)
    # It reads and writes the log, and names no other model (a type hint aside).
    tree = ast.parse(Path(decisions.__file__).read_text())
    models = {
        alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "review.models"
        for alias in node.names
    }
    assert models == {"Decision"}


def test_adjudicating_stores_the_payload_in_the_decisions_one_update_and_logs_no_payload(editor):
    plan = make_plan(2)
    for entry in entries_of(plan):
        accept_entry(entry, actor=editor, expected_version=entry.version)
    plan.refresh_from_db()
    with CaptureQueriesContext(connection) as queries:
        adjudicate_plan(plan, actor=editor, expected_version=plan.version)
    updates = [
        query["sql"]
        for query in queries.captured_queries
        if query["sql"].lstrip().upper().startswith("UPDATE") and "review_plan" in query["sql"]
    ]
    assert len(updates) == 1
    stored = Plan.objects.get(pk=plan.pk)
    assert stored.adjudicated_payload.startswith("{")
    logged = Decision.objects.get(action="plan.adjudicate")
    assert "adjudicated_payload" not in logged.before
    assert "adjudicated_payload" not in logged.after


def test_an_accept_all_names_its_batch_in_a_column_and_leaves_the_note_to_people(editor):
    plan = make_plan(3)
    versions = {entry.pk: entry.version for entry in rule_candidates(plan, RULE)}
    accepted = accept_rule(plan, RULE, actor=editor, versions=versions, unvalidated_confirmed=True)
    batches = {row.batch for row in accepted}
    assert len(batches) == 1
    [batch] = batches
    assert len(batch) == 10
    assert all(batch not in row.note for row in accepted)
    assert {row.note for row in accepted} == {Decision.RULE_BATCH_NOTE.format(rule=RULE)}
    assert {row.rule_batch for row in accepted} == {batch}
