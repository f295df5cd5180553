"""The figures split by the guideline version each decision was made under: a rule's record,
the validator's reasons and the agreement of two reviewers, under v1 and under v2 apart."""

from __future__ import annotations

import pytest

from review.actions.cases import decide_case
from review.actions.entries import accept_entry, reject_entry
from review.actions.guidelines import edit_guidelines
from review.agreement import agreement
from review.insights import Filters, guideline_versions, rule_records, validator_figures
from review.models import Project
from review.models.projects import default_project_id
from tests.builders.cases_answers import make_case
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.reviews import double_review
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(django_user_model):
    return {
        name: user_in(django_user_model, name, group)
        for name, group in (
            ("lead", "Leads"),
            ("editor", "Editors"),
            ("first", "Moderators"),
            ("second", "Moderators"),
        )
    }


def new_guidelines(people, version: int) -> None:
    project = Project.objects.get(pk=default_project_id())
    edit_guidelines(project, actor=people["lead"], based_on=version - 1, text=f"v{version}")


def test_a_rules_record_counts_the_entries_decided_under_each_version_apart(people):
    entries = entries_of(make_plan(4))
    new_guidelines(people, 1)
    for entry in entries[:2]:
        accept_entry(entry, actor=people["editor"], expected_version=entry.version)
    new_guidelines(people, 2)
    for entry in entries[2:]:
        reject_entry(entry, actor=people["editor"], expected_version=entry.version)

    under = {v: rule_records(Filters(guideline=v)) for v in (1, 2)}

    assert sum(r.accepted for r in under[1]) == 2 and sum(r.rejected for r in under[1]) == 0
    rejected = len(entries) - 2
    assert sum(r.accepted for r in under[2]) == 0 and sum(r.rejected for r in under[2]) == rejected
    assert sum(r.decided for r in rule_records()) == len(entries)
    assert guideline_versions() == [1, 2]


def test_an_entry_undone_and_decided_again_counts_under_the_version_of_its_standing_decision(
    people,
):
    from review.actions.entries import undo_entry

    [entry, *_] = entries_of(make_plan(2))
    new_guidelines(people, 1)
    accept_entry(entry, actor=people["editor"], expected_version=entry.version)
    new_guidelines(people, 2)
    undo_entry(entry, actor=people["editor"], expected_version=entry.version)
    reject_entry(entry, actor=people["editor"], expected_version=entry.version)

    assert sum(r.decided for r in rule_records(Filters(guideline=1))) == 0
    assert sum(r.rejected for r in rule_records(Filters(guideline=2))) == 1


def test_the_validators_reasons_count_the_verdicts_under_each_version_apart(people):
    cases = [make_case(f"c-{n}") for n in range(3)]
    new_guidelines(people, 1)
    decide_case(cases[0], "uphold", actor=people["first"], expected_version=1, note="")
    new_guidelines(people, 2)
    for case in cases[1:]:
        decide_case(case, "overturn", actor=people["first"], expected_version=1, note="no")

    def verdicts(version):
        reasons = validator_figures(Filters(guideline=version)).reasons
        return sum(r.upheld for r in reasons), sum(r.overturned for r in reasons)

    assert verdicts(1) == (1, 0)
    assert verdicts(2) == (0, 2)


def test_agreement_counts_the_items_whose_second_opinion_came_under_each_version(people):
    double_review("cases")
    cases = [make_case(f"c-{n}") for n in range(3)]
    new_guidelines(people, 1)
    for case in cases:
        decide_case(case, "uphold", actor=people["first"], expected_version=1, note="")
    decide_case(cases[0], "uphold", actor=people["second"], expected_version=2, note="")
    new_guidelines(people, 2)
    for case in cases[1:]:
        decide_case(case, "overturn", actor=people["second"], expected_version=2, note="no")

    assert agreement(guideline=1).cases.items == 1
    assert agreement(guideline=2).cases.items == 2
    assert agreement().cases.items == 3


def test_the_insights_page_offers_the_versions_and_narrows_to_one(client, people):
    case = make_case("c-1")
    new_guidelines(people, 1)
    decide_case(case, "uphold", actor=people["first"], expected_version=1, note="")
    client.force_login(people["first"])

    body = client.get("/p/default/insights/?guideline=1").content.decode()

    assert '<option value="1" selected>version 1</option>' in body
