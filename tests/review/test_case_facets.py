"""The cases queue's counters (CaseFacet): kept by the database's triggers for each project,
whatever writes the rows, equal at every moment to counting each project's rows themselves."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Count
from django.db.models.expressions import RawSQL

from review import counter_triggers
from review.apps import _reinstall_counter_triggers
from review.models import Case, CaseFacet, Evidence
from review.models.projects import default_project_id
from tests.builders.cases_answers import RULE_MATCH, make_case
from tests.builders.users import make_project

pytestmark = pytest.mark.django_db

UNCITED = "The post matched rule 2 [ev-1]. The author has done this many times before."
TIMEOUT = ("user_history", "timeout", "History lookup timed out", 5000, None)


def counted(project_id=None) -> dict[tuple[str, str], int]:
    """A project's counters as they should be ("Default"'s unless named): grouped from the
    rows."""
    project_id = project_id or default_project_id()
    cases = Case.objects.filter(project_id=project_id)
    evidence = Evidence.objects.filter(case__project_id=project_id)
    reasons = cases.values_list("validator_reason").annotate(n=Count("pk")).order_by()
    tools = evidence.values_list("tool").annotate(n=Count("pk")).order_by()
    return {("reason", value): n for value, n in reasons} | {
        ("tool", value): n for value, n in tools
    }


def kept(project_id=None) -> dict[tuple[str, str], int]:
    rows = CaseFacet.objects.filter(project_id=project_id or default_project_id())
    rows = rows.exclude(count=0).values_list("kind", "value", "count")
    return {(kind, value): count for kind, value, count in rows}


def test_an_import_adds_its_cases_reasons_and_its_evidence_tools():
    make_case("c-1")
    make_case("c-2", rationale=UNCITED, evidence=(RULE_MATCH, TIMEOUT))

    assert (
        kept()
        == counted()
        == {
            ("reason", ""): 1,
            ("reason", "uncited_claims"): 1,
            ("tool", "policy_match"): 2,
            ("tool", "user_history"): 1,
        }
    )


def test_bulk_inserts_updates_and_deletes_keep_the_counters():
    make_case("c-1", evidence=(RULE_MATCH, TIMEOUT))
    cases = Case.objects.bulk_create(
        Case(
            project_id=default_project_id(),
            case_id=f"bulk-{n}",
            rationale_text="r",
            validator_reason=f"reason-{n % 3}",
        )
        for n in range(30)
    )
    Evidence.objects.bulk_create(
        Evidence(case=case, position=0, ev_id="ev-1", tool=f"tool-{n % 4}", status="success")
        for n, case in enumerate(cases)
    )
    assert kept() == counted()

    Case.objects.filter(validator_reason="reason-1").update(validator_reason="reason-2")
    Evidence.objects.filter(tool="tool-0").update(tool="policy_match")
    assert kept() == counted()

    Case.objects.filter(case_id__in=["c-1", "bulk-2", "bulk-5"]).delete()  # evidence with them
    Evidence.objects.filter(tool="tool-3").delete()
    assert kept() == counted()
    assert ("tool", "user_history") not in kept()


def test_the_queue_shows_only_what_the_counters_hold(client, reader):
    case = make_case("c-1", rationale=UNCITED, evidence=(RULE_MATCH, TIMEOUT))
    case.delete()
    make_case("c-2")

    response = client.get("/p/default/cases/")

    assert [row["value"] for row in response.context["reason_counts"]] == ["passed"]
    assert response.context["tools"] == ["policy_match"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row versions are PostgreSQL's")
def test_a_verdict_writes_no_counter_row():
    case = make_case("c-1")

    # An UPDATE writes a new version of the row, at a new place (ctid), even when the count
    # it writes is the same.
    def places() -> set[str]:
        rows = CaseFacet.objects.order_by().annotate(place=RawSQL("ctid::text", ()))
        return set(rows.values_list("place", flat=True))

    before = places()

    Case.objects.filter(pk=case.pk).update(verdict=Case.Verdict.UPHELD, version=2)

    assert places() == before
    Case.objects.filter(pk=case.pk).update(validator_reason="uncited_claims")
    assert len(before - places()) == 1  # a new reason moves the counter it leaves


def test_recounting_sets_the_counters_from_the_rows():
    make_case("c-1", rationale=UNCITED)
    CaseFacet.objects.update(count=99)

    counter_triggers.recount_facets(connection)

    assert kept() == counted()


def test_after_a_migration_the_triggers_are_put_back():
    counter_triggers.remove_facets(connection)
    make_case("c-1")
    assert kept() == {}

    _reinstall_counter_triggers(sender=None, using="default")
    make_case("c-2", rationale=UNCITED)

    assert kept() == {("reason", "uncited_claims"): 1, ("tool", "policy_match"): 1}


def test_each_project_counts_its_own_cases_and_their_evidence(client, reader):
    shop = make_project("shop")
    make_case("c-1", evidence=(RULE_MATCH, TIMEOUT))
    make_case("s-1", rationale=UNCITED, evidence=(TIMEOUT,), project=shop)
    make_case("s-2", rationale=UNCITED, project=shop)
    Case.objects.filter(case_id="s-2").update(validator_reason="unknown_evidence")
    Evidence.objects.filter(case__case_id="s-1").update(tool="web_search")
    Case.objects.filter(case_id="c-1").delete()

    assert kept() == counted() == {}
    assert kept(shop.pk) == counted(shop.pk)
    assert kept(shop.pk)[("reason", "unknown_evidence")] == 1
    assert kept(shop.pk)[("tool", "web_search")] == 1 and len(kept(shop.pk)) == 4
    # The queue reads its own project's counters: one query, whatever the others hold.
    make_case("c-2")
    response = client.get("/p/default/cases/")
    assert [row["value"] for row in response.context["reason_counts"]] == ["passed"]
    assert response.context["tools"] == ["policy_match"]


def test_a_case_moved_to_another_project_moves_its_reasons_count():
    shop = make_project("shop")
    make_case("c-1", rationale=UNCITED)

    Case.objects.filter(case_id="c-1").update(project=shop)

    assert kept() == {("tool", "policy_match"): 1}  # its evidence stays where it was counted
    assert kept(shop.pk) == {("reason", "uncited_claims"): 1}
