"""After a verdict, Next moves on; the page it opens offers "Undo your verdict on c-1", which
posts to that case's own undo (the log, the versions and whose opinion may be taken back
hold), takes the case back, and is offered only while that verdict is the person's latest
decision and the case's, for a few minutes."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone

from review.actions.cases import decide_case
from review.models import Case, Decision, Lease
from review.views import leasing
from review.views.leasing import UNDO_AFTER_MOVING_ON
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.reviews import double_review
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def cases():
    return [make_case(f"c-{n}") for n in (1, 2, 3)]


def verdict_then_next(client, case, action="uphold", headers=None):
    client.post("/p/default/cases/next/")
    case.refresh_from_db()
    response = client.post(
        f"/p/default/cases/{case.pk}/{action}/", {"version": case.version}, headers=headers or {}
    )
    assert response.status_code in (200, 302)
    return response


def offer_on(client, url) -> str:
    body = client.get(url).content.decode()
    if "data-undo-moved-on" not in body:
        return ""
    at = body.index('class="undo-offer"')
    return body[body.rindex("<form", 0, at) : body.index("</form>", at)]


def test_the_page_next_opens_offers_to_undo_the_verdict_it_moved_on_from(client, moderator, cases):
    verdict_then_next(client, cases[0])

    offer = offer_on(client, f"/p/default/cases/{cases[1].pk}/")

    cases[0].refresh_from_db()
    assert "Undo your verdict on c-1" in offer
    assert f'action="/p/default/cases/{cases[0].pk}/undo/"' in offer
    assert f'name="version" value="{cases[0].version}"' in offer
    assert 'aria-keyshortcuts="z"' in offer


def test_the_offer_is_there_after_an_htmx_verdict_too(client, moderator, cases):
    response = verdict_then_next(client, cases[0], headers=HTMX)

    assert "Undo your verdict on c-1" in offer_on(client, response["HX-Redirect"])


def test_undoing_from_the_offer_takes_the_verdict_back_through_the_cases_undo(
    client, moderator, cases
):
    verdict_then_next(client, cases[0])
    cases[0].refresh_from_db()

    response = client.post(
        f"/p/default/cases/{cases[0].pk}/undo/", {"version": cases[0].version, "retake": "1"}
    )

    assert response.status_code == 302 and response.url == f"/p/default/cases/{cases[0].pk}/"
    cases[0].refresh_from_db()
    assert cases[0].verdict == Case.Verdict.PROPOSED
    actions = list(Decision.objects.order_by("pk").values_list("action", flat=True))
    assert actions == ["case.uphold", "case.undo"]
    # The case is the moderator's again, so deciding it moves on as before.
    held = set(Lease.objects.filter(holder=moderator).values_list("item_id", flat=True))
    assert cases[0].pk in held


def test_the_offer_goes_once_it_is_used(client, moderator, cases):
    verdict_then_next(client, cases[0])
    cases[0].refresh_from_db()
    client.post(
        f"/p/default/cases/{cases[0].pk}/undo/", {"version": cases[0].version, "retake": "1"}
    )

    assert offer_on(client, f"/p/default/cases/{cases[1].pk}/") == ""


def test_the_offer_goes_at_the_persons_next_decision(client, moderator, cases):
    verdict_then_next(client, cases[0])
    client.post(f"/p/default/cases/{cases[1].pk}/uphold/", {"version": 1})

    offer = offer_on(client, f"/p/default/cases/{cases[2].pk}/")

    assert "c-1" not in offer and "Undo your verdict on c-2" in offer


def test_the_offer_goes_once_someone_else_decided_the_item(
    client, moderator, cases, django_user_model
):
    verdict_then_next(client, cases[0])
    other = user_in(django_user_model, "mod9", "Moderators")
    case = Case.objects.get(pk=cases[0].pk)
    decide_case(case, "overturn", actor=other, expected_version=case.version, note="No.")

    assert offer_on(client, f"/p/default/cases/{cases[1].pk}/") == ""


def test_the_offer_goes_after_a_few_minutes(client, moderator, cases, monkeypatch):
    verdict_then_next(client, cases[0])
    assert offer_on(client, f"/p/default/cases/{cases[1].pk}/")
    later = timezone.now() + UNDO_AFTER_MOVING_ON + timedelta(seconds=1)
    # The log is append-only, so the clock the offer reads moves on instead.
    monkeypatch.setattr(leasing, "timezone", SimpleNamespace(now=lambda: later))

    assert offer_on(client, f"/p/default/cases/{cases[1].pk}/") == ""


def test_nobody_else_is_offered_it(client, moderator, cases, django_user_model):
    verdict_then_next(client, cases[0])
    client.force_login(user_in(django_user_model, "mod9", "Moderators"))

    assert offer_on(client, f"/p/default/cases/{cases[1].pk}/") == ""


def test_the_next_page_offers_it_when_nothing_is_left(client, moderator):
    only = make_case("c-7")

    response = verdict_then_next(client, only)

    assert response.url == "/p/default/cases/next/"
    assert "Undo your verdict on c-7" in offer_on(client, "/p/default/cases/next/")


def test_a_first_opinion_moved_on_from_is_offered_to_its_author(client, moderator, cases):
    double_review("cases")
    verdict_then_next(client, cases[0])

    assert "Undo your verdict on c-1" in offer_on(client, f"/p/default/cases/{cases[1].pk}/")


def test_an_answers_next_page_offers_to_undo_the_publication(client, editor):
    first, second = make_answer("a-1"), make_answer("a-2")
    client.post("/p/default/answers/next/")
    client.post(f"/p/default/answers/{first.pk}/publish/", {"version": 1})

    offer = offer_on(client, f"/p/default/answers/{second.pk}/")

    assert "Undo your decision on a-1" in offer
    assert f'action="/p/default/answers/{first.pk}/undo/"' in offer


def test_a_case_opened_from_the_list_offers_nothing_after_its_verdict(client, moderator, cases):
    client.post(f"/p/default/cases/{cases[0].pk}/uphold/", {"version": 1})

    assert offer_on(client, f"/p/default/cases/{cases[1].pk}/") == ""


def test_an_undo_from_the_offer_meeting_another_verdict_is_409_and_takes_nothing_back(
    client, moderator, cases, django_user_model
):
    verdict_then_next(client, cases[0])
    cases[0].refresh_from_db()
    seen = cases[0].version
    other = user_in(django_user_model, "mod9", "Moderators")
    decide_case(cases[0], "overturn", actor=other, expected_version=seen, note="No.")

    response = client.post(
        f"/p/default/cases/{cases[0].pk}/undo/", {"version": seen, "retake": "1"}
    )

    assert response.status_code == 409
    cases[0].refresh_from_db()
    assert cases[0].verdict == Case.Verdict.OVERTURNED
    assert not Lease.objects.filter(holder=moderator, item_id=cases[0].pk).exists()


def test_a_curator_moved_on_is_offered_their_curation_and_z_is_the_offers(
    client, moderator, moderator2, curator
):
    double_review("cases")
    settled, waiting = make_case("c-1"), make_case("c-2")
    for case in (settled, waiting):
        for person, verdict in ((moderator, "uphold"), (moderator2, "overturn")):
            case.refresh_from_db()
            decide_case(case, verdict, actor=person, expected_version=case.version, note="Why.")
    client.force_login(curator)
    verdict_then_next(client, settled)

    body = client.get(f"/p/default/cases/{waiting.pk}/").content.decode()

    offer = offer_on(client, f"/p/default/cases/{waiting.pk}/")
    assert "Undo your verdict on c-1" in offer and 'aria-keyshortcuts="z"' in offer
    # The panel's own Undo (a curator may take back an opinion here) does not claim z too.
    panel = body.split('id="verdict"')[1]
    assert 'data-action="undo"' in panel and 'aria-keyshortcuts="z"' not in panel
