"""What the decisions teach, counted: each figure against counts the test made itself."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

from grounding.agreement import cohen_kappa
from review.actions.tokens import create_token
from review.insights import Filters, finalization_figures, insights, rule_records
from review.insights import validator_figures as validator_of
from review.models import Answer, Case, Entry
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.cases_answers import make_answer, make_case, make_source
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.plans import update_entries
from tests.builders.users import member

pytestmark = pytest.mark.django_db


def decide_rows(plan, *states: str, rules=("rule:a",)) -> None:
    """Give the plan's first entries these states and rules (the rows the figures count)."""
    entries = entries_of(plan)
    for entry in entries:
        update_entries(Entry.objects.filter(pk=entry.pk), rules=list(rules))
    for entry, state in zip(entries, states, strict=False):
        update_entries(Entry.objects.filter(pk=entry.pk), state=state)


def record_of(rule: str, **filters):
    (record,) = [r for r in rule_records(Filters(**filters)) if r.rule == rule]
    return record


# --- the proposer's rules -------------------------------------------------------------------


def test_a_rule_counts_each_outcome_and_the_documents_its_entries_were_decided_on():
    first = make_plan(5, name="first.md", title="First")
    second = make_plan(5, name="second.md", title="Second")
    untouched = make_plan(3, name="third.md", title="Third")
    decide_rows(first, "accepted", "accepted", "accepted", "rejected")  # 5th stays proposed
    decide_rows(second, "accepted", "edited", "merged")
    decide_rows(untouched)

    record = record_of("rule:a")

    total = sum(plan.entries.count() for plan in (first, second, untouched))
    assert (record.proposed, record.decided) == (total, 7)
    assert (record.accepted, record.edited, record.merged, record.rejected) == (4, 1, 1, 1)
    assert record.documents == 2
    assert record.acceptance.successes == 4 and record.acceptance.n == 7


def test_an_entry_with_two_rules_counts_for_each_and_a_filter_narrows_to_one():
    plan = make_plan(3)
    decide_rows(plan, "accepted", "rejected", rules=("rule:a", "rule:b"))

    both = {r.rule: (r.decided, r.accepted) for r in rule_records()}
    only_b = rule_records(Filters(rule="rule:b"))

    assert both == {"rule:a": (2, 1), "rule:b": (2, 1)}
    assert [r.rule for r in only_b] == ["rule:b"]


def test_a_rule_all_accepted_on_one_document_is_not_validated_and_says_why(settings):
    settings.INSIGHTS_MIN_DOCUMENTS = 5
    plan = make_plan(8)
    decide_rows(plan, *["accepted"] * plan.entries.count())

    record = record_of("rule:a")

    assert record.acceptance.share == 1.0
    assert not record.validated
    assert "on 1 document" in record.why_not


def test_a_rule_clears_validation_on_enough_documents_with_a_high_enough_lower_bound(settings):
    settings.INSIGHTS_MIN_DOCUMENTS = 3
    settings.INSIGHTS_MIN_LOWER_BOUND = 0.7
    for number in range(3):
        plan = make_plan(6, name=f"guide-{number}.md", title=f"Guide {number}")
        decide_rows(plan, *["accepted"] * plan.entries.count())

    assert record_of("rule:a").validated
    settings.INSIGHTS_MIN_LOWER_BOUND = 0.9  # 21 of 21: Wilson's lower bound is 0.845
    assert not record_of("rule:a").validated


def test_with_no_plans_there_is_nothing_to_count_and_no_error():
    figures = insights()
    assert figures.rules == [] and figures.validator.reasons == []
    assert figures.finalization.answers == 0 and figures.finalization.changed.share is None
    assert figures.weeks == []


def test_the_figures_take_the_same_queries_for_two_plans_as_for_ten():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            insights()
        return len(captured)

    for number in range(2):
        decide_rows(make_plan(4, name=f"a{number}.md", title=f"A {number}"), "accepted")
    few = queries()
    for number in range(8):
        decide_rows(make_plan(4, name=f"b{number}.md", title=f"B {number}"), "rejected")
    assert queries() == few


# --- the validator's reasons ----------------------------------------------------------------


def cases_with(verdicts: list[tuple[bool, str]]) -> None:
    """Cases flagged (or not) and given these verdicts, as rows."""
    for number, (flagged, verdict) in enumerate(verdicts):
        case = make_case(f"c-{number}")
        reason = "uncited_claims" if flagged else ""
        Case.objects.filter(pk=case.pk).update(
            flagged=flagged, validator_reason=reason, verdict=verdict
        )


def test_each_reason_counts_its_verdicts_and_the_share_that_agreed_with_the_validator():
    cases_with(
        [(True, "overturned"), (True, "needs_rewrite"), (True, "upheld")]
        + [(False, "upheld"), (False, "upheld"), (False, "overturned"), (False, "proposed")]
    )

    reasons = {record.reason: record for record in validator_of().reasons}

    flagged, unflagged = reasons["uncited_claims"], reasons["unflagged"]
    assert (flagged.upheld, flagged.overturned, flagged.needs_rewrite) == (1, 1, 1)
    assert (flagged.agreed.successes, flagged.agreed.n) == (2, 3)
    assert (unflagged.agreed.successes, unflagged.agreed.n) == (2, 3)  # the proposed one waits


def test_the_confusion_matrix_and_kappa_match_the_cases_and_list_the_disagreements():
    verdicts = [(True, "overturned")] * 6 + [(True, "upheld")] * 2
    verdicts += [(False, "upheld")] * 5 + [(False, "needs_rewrite")] * 1
    cases_with(verdicts)

    confusion = validator_of().confusion

    cells = (
        confusion.flagged_not_upheld,
        confusion.flagged_upheld,
        confusion.unflagged_not_upheld,
        confusion.unflagged_upheld,
    )
    assert cells == (6, 2, 1, 5)
    by_hand = cohen_kappa([f for f, _ in verdicts], [v != "upheld" for _, v in verdicts])
    assert confusion.kappa.value == pytest.approx(by_hand.value)
    assert confusion.flagged_but_upheld == ("c-6", "c-7")
    assert confusion.unflagged_but_not_upheld == ("c-13",)


# --- finalization ---------------------------------------------------------------------------


def test_each_kind_of_change_is_counted_with_how_often_it_was_published_or_withdrawn():
    sources = [make_source(1), make_source(2)]
    make_answer("a-1", text="Walls resist fire [2]. Doors close [1].", sources=sources)
    make_answer("a-2", text="Walls resist fire [1]. Doors close [2].", sources=sources)
    make_answer(
        "a-3",
        text="Walls resist fire [1][9].",
        sources=sources,
        state=Answer.State.PUBLISHED,
    )
    Answer.objects.filter(answer_id="a-1").update(state=Answer.State.WITHDRAWN)

    figures = finalization_figures()
    kinds = {kind.kind: kind for kind in figures.kinds}

    assert figures.answers == 3
    assert (kinds["renumbered"].answers, kinds["renumbered"].withdrawn) == (1, 1)
    assert (kinds["dropped"].answers, kinds["dropped"].published) == (1, 1)
    assert kinds["replaced"].answers == 0


# --- the page, the API and the command -------------------------------------------------------


def test_the_page_shows_a_rules_record_to_an_editor_and_refuses_a_reader(client, reader, editor):
    plan = make_plan(4)
    decide_rows(plan, "accepted", "accepted", "rejected")

    body = client.get("/p/default/insights/").content.decode()
    assert 'data-rule="rule:a"' in body
    assert "2 of 3" in body and "not validated" in body
    assert '<svg class="chart" id="rules-chart" role="img"' in body
    client.force_login(reader)
    assert client.get("/p/default/insights/").status_code == 403


def test_the_api_gives_the_same_figures_and_refuses_a_readers_token():
    plan = make_plan(4)
    decide_rows(plan, "accepted")
    user = pipeline_user(groups=("Readers",))
    assert api_client().get(f"{API}/insights").status_code == 403
    member(user, None, "moderator")
    # The reader's token acts as a reader still: a token never gains the roles its owner does.
    assert api_client().get(f"{API}/insights").status_code == 403
    create_token(user, "moderating", key="a-moderators-key")

    payload = api_client("a-moderators-key").get(f"{API}/insights").json()

    assert payload == json.loads(json.dumps(insights().to_dict()))
    assert payload["rules"][0]["rule"] == "rule:a"


def test_the_command_writes_the_figures_as_json_and_as_csv():
    plan = make_plan(4)
    decide_rows(plan, "accepted", "rejected")
    out = io.StringIO()
    call_command("insights", "--format", "json", stdout=out)
    assert json.loads(out.getvalue())["rules"][0]["accepted"] == 1

    out = io.StringIO()
    call_command("insights", "--format", "csv", "--rule", "rule:a", stdout=out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    (rule,) = [row for row in rows if row["section"] == "rule"]
    assert (rule["name"], rule["successes"], rule["n"]) == ("rule:a", "1", "2")


def test_cached_figures_are_counted_afresh_after_any_new_decision(settings, editor):
    from django.core.cache import cache

    from review.actions.entries import accept_entry

    settings.INSIGHTS_CACHE_SECONDS = 60
    cache.clear()
    plan = make_plan(3)
    decide_rows(plan)
    assert insights().rules[0].accepted == 0
    # A row changed behind the app's back is not seen while the figures are cached...
    update_entries(Entry.objects.filter(pk=entries_of(plan)[0].pk), state=Entry.State.ACCEPTED)
    assert insights().rules[0].accepted == 0
    # ...but a decision, which always adds a log row, counts them again.
    entry = Entry.objects.select_related("plan").get(pk=entries_of(plan)[1].pk)
    accept_entry(entry, actor=editor, expected_version=entry.version)
    assert insights().rules[0].accepted == 2
    cache.clear()
