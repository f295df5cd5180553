"""review.agreement, GET /api/projects/{project}/agreement and manage.py agreement: the
reviewers' agreement under double review, against values worked by hand on fixed opinions."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

from review.agreement import agreement
from review.models import Case
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.cases_answers import make_case
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

UP, OV = Case.Verdict.UPHELD, Case.Verdict.OVERTURNED
# (first opinion, second opinion, outcome) of ten cases; alice first, bob second.
OPINIONS = [(UP, UP, UP)] * 5 + [(UP, OV, OV)] + [(OV, OV, OV)] * 3 + [(OV, UP, "proposed")]


@pytest.fixture
def reviewed(django_user_model):
    alice = user_in(django_user_model, "alice", "Moderators")
    bob = user_in(django_user_model, "bob", "Moderators")
    for number, (first, second, outcome) in enumerate(OPINIONS):
        case = make_case(f"c-{number}")
        # Fixed opinions, set as the tables hold them; the tests of deciding go through views.
        Case.objects.filter(pk=case.pk).update(
            first_opinion=first,
            first_by=alice,
            second_opinion=second,
            second_by=bob,
            verdict=outcome,
        )


def test_kappa_between_the_two_reviewers_matches_the_hand_computed_value(reviewed):
    # po = 8/10; both said upheld 6 times in 10, so pe = 0.6² + 0.4² = 0.52;
    # κ = (0.8 - 0.52) / (1 - 0.52) = 0.5833…
    figures = agreement().cases

    assert figures.items == 10
    assert figures.kappa.value == pytest.approx(0.28 / 0.48)
    assert figures.kappa.low < figures.kappa.value < figures.kappa.high
    [pair] = figures.people.pairs
    assert (pair.reviewer_a, pair.reviewer_b) == ("alice", "bob")
    assert pair.kappa.value == pytest.approx(0.28 / 0.48)


def test_alpha_across_reviewers_matches_the_hand_computed_value(reviewed):
    # Coincidences: 20 pairable values, upheld 12 and overturned 8, 4 disagreeing pairs;
    # α = 1 - (n - 1) · 4 / (2 · 12 · 8) = 1 - 19 · 4 / 192 = 0.6041…
    assert agreement().cases.people.alpha.value == pytest.approx(1 - 76 / 192)


def test_each_reviewer_is_compared_with_the_outcome_where_there_is_one(reviewed):
    against = {pair.reviewer_a: pair for pair in agreement().cases.people.against_final}

    # Nine cases have an outcome; alice's first opinion differs from it once, bob's never.
    assert against["alice"].percent.value == pytest.approx(8 / 9)
    assert against["bob"].percent.value == pytest.approx(1.0)


def test_the_share_sent_to_curation_and_how_the_curator_decided(reviewed):
    curated = agreement().cases.curation

    assert (curated.sent.successes, curated.sent.n) == (2, 10)
    assert curated.outcomes == {"sided with the second": 1, "still in curation": 1}


def test_the_figures_are_grouped_by_validator_reason(reviewed):
    Case.objects.filter(case_id__in=["c-0", "c-5"]).update(validator_reason="uncited_claims")

    groups = {group.name: group for group in agreement().cases.by_reason}

    assert set(groups) == {"passed", "uncited_claims"}
    assert groups["uncited_claims"].percent.n_items == 2
    assert groups["uncited_claims"].percent.value == pytest.approx(0.5)


def test_with_no_item_reviewed_twice_every_figure_says_why_it_is_undefined():
    figures = agreement().answers

    assert figures.items == 0
    assert figures.kappa.value is None and "at least 2 items" in figures.kappa.reason_if_undefined


def test_the_api_answers_the_same_figures(reviewed):
    user = pipeline_user()
    user.is_staff = True
    user.save()

    body = api_client().get(f"{API}/agreement").json()

    assert body["cases"]["kappa"]["value"] == pytest.approx(0.28 / 0.48)
    assert body["cases"]["alpha"]["value"] == pytest.approx(1 - 76 / 192)


def test_the_api_refuses_a_token_of_someone_who_may_not_read_insights():
    pipeline_user(groups=("Readers",))

    response = api_client().get(f"{API}/agreement")

    assert response.status_code == 403
    assert "editors, moderators and curators" in response.json()["detail"]


def test_the_command_writes_json_and_csv_with_the_same_kappa(reviewed):
    as_json, as_csv = io.StringIO(), io.StringIO()
    call_command("agreement", "--format", "json", stdout=as_json)
    call_command("agreement", "--format", "csv", stdout=as_csv)

    assert json.loads(as_json.getvalue())["cases"]["kappa"]["value"] == pytest.approx(0.28 / 0.48)
    rows = list(csv.DictReader(io.StringIO(as_csv.getvalue())))
    [kappa] = [row for row in rows if row["queue"] == "cases" and row["figure"] == "kappa"]
    assert float(kappa["value"]) == pytest.approx(0.28 / 0.48) and kappa["n_items"] == "10"


def test_the_insights_page_shows_the_people_panel(client, moderator, reviewed):
    body = client.get("/p/default/insights/").content.decode()

    assert 'id="people"' in body and "alice &amp; bob" in body
    assert "10 items reviewed twice" in body


def test_cached_figures_change_as_soon_as_someone_gives_an_opinion(
    settings, client, moderator, django_user_model
):
    from django.core.cache import cache

    from tests.builders.reviews import double_review

    settings.INSIGHTS_CACHE_SECONDS = 60
    cache.clear()
    double_review("cases")
    case = make_case("c-cached")
    client.post(f"/p/default/cases/{case.pk}/uphold/", {"version": 1})
    assert agreement().cases.items == 0

    client.force_login(user_in(django_user_model, "moderator2", "Moderators"))
    client.post(f"/p/default/cases/{case.pk}/uphold/", {"version": 2})

    assert agreement().cases.items == 1
