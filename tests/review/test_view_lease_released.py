"""A lead's release sticks: the released holder's open page stops renewing (its poll does not
take the item back), says who released it and when, and offers to take it again, which is
refused while someone else holds it."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from review.actions import leases
from review.models import Decision, Lease
from review.models.projects import default_project_id
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import make_plan
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
CASES = Lease.Queue.CASES

# Each queue's item page shares the strip and the poll: who reviews it, and one item.
QUEUE_ITEMS = {
    "plans": ("Editors", lambda: make_plan(2)),
    "cases": ("Moderators", make_case),
    "answers": ("Editors", make_answer),
}


@pytest.fixture
def lead(django_user_model):
    return user_in(django_user_model, "lena", "Leads")


def released_by(lead, queue: str, holder) -> tuple[int, Lease]:
    """`holder` takes the next item of `queue`; the lead releases it. The released lease."""
    lease = leases.take_next(queue, holder, default_project_id())
    leases.release_for_holder(lease, actor=lead)
    return lease.item_id, lease


def poll(client, queue: str, item_id: int, lease_id="") -> str:
    response = client.post(
        f"/p/default/open/{queue}/{item_id}/here/", {"lease": lease_id}, headers=HTMX
    )
    assert response.status_code == 200
    return response.content.decode()


def released_at() -> str:
    return timezone.localtime(Decision.objects.get(action="lease.release").at).strftime("%H:%M")


def text_of(body: str) -> str:
    return re.sub(r"<[^>]+>", "", body)


@pytest.mark.parametrize("queue", QUEUE_ITEMS)
def test_the_poll_after_a_lead_s_release_takes_nothing_back_and_names_the_lead(
    client, sign_in, lead, queue
) -> None:
    group, make_item = QUEUE_ITEMS[queue]
    make_item()
    holder = sign_in("holder", group)
    item_id, lease = released_by(lead, queue, holder)

    body = poll(client, queue, item_id, lease.pk)
    assert "<html" not in body
    assert f"lena released your hold at {released_at()}." in text_of(body)
    assert "You hold this" not in body
    assert "Take it again" in body
    assert not Lease.objects.exists()
    # The strip carries the released lease on, so the next poll does not take it back either.
    assert f'name="lease" value="{lease.pk}"' in body
    assert "lena released your hold" in poll(client, queue, item_id, lease.pk)
    assert not Lease.objects.exists()


def test_a_lease_that_lapsed_is_still_taken_back_by_the_poll(client, moderator) -> None:
    case = make_case()
    lease = leases.take_next(CASES, moderator, default_project_id())
    leases.release(CASES, case.pk, moderator)  # the page was reloaded: its beacon let it go
    body = poll(client, CASES, case.pk, lease.pk)
    assert "You hold this case" in body and "released your hold" not in body
    assert Lease.objects.get().holder == moderator


def test_the_poll_names_no_release_of_someone_else_s_lease(
    client, moderator, lead, django_user_model
) -> None:
    make_case()
    other = user_in(django_user_model, "moderator2", "Moderators")
    item_id, lease = released_by(lead, CASES, other)
    assert "released your hold" not in poll(client, CASES, item_id, lease.pk)


def test_a_released_page_offers_no_take_while_someone_else_holds_the_item(
    client, moderator, lead, django_user_model
) -> None:
    make_case()
    item_id, lease = released_by(lead, CASES, moderator)
    leases.take_next(
        CASES, user_in(django_user_model, "moderator2", "Moderators"), default_project_id()
    )
    body = poll(client, CASES, item_id, lease.pk)
    assert "lena released your hold" in body and "Held by moderator2" in body
    assert "Take it again" not in body


def test_take_it_again_holds_the_item_and_answers_the_strip(client, moderator, lead) -> None:
    make_case()
    item_id, lease = released_by(lead, CASES, moderator)
    response = client.post(
        f"/p/default/open/cases/{item_id}/take/", {"lease": lease.pk}, headers=HTMX
    )
    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    assert "You hold this case" in body and "released your hold" not in body
    again = Lease.objects.get()
    assert (again.holder, again.item_id) == (moderator, item_id)
    assert f'name="lease" value="{again.pk}"' in body
    assert "You hold this case" in poll(client, CASES, item_id, again.pk)


def test_take_it_again_without_javascript_goes_back_to_the_item(client, moderator, lead) -> None:
    make_case()
    item_id, _ = released_by(lead, CASES, moderator)
    response = client.post(f"/p/default/open/cases/{item_id}/take/")
    assert response.status_code == 302 and response.url == f"/p/default/cases/{item_id}/"
    assert Lease.objects.get().holder == moderator


def test_take_it_again_is_refused_while_someone_else_holds_it(
    client, moderator, lead, django_user_model
) -> None:
    make_case()
    item_id, lease = released_by(lead, CASES, moderator)
    other = user_in(django_user_model, "moderator2", "Moderators")
    taken = leases.take_next(CASES, other, default_project_id())

    response = client.post(
        f"/p/default/open/cases/{item_id}/take/", {"lease": lease.pk}, headers=HTMX
    )
    body = response.content.decode()
    assert response.status_code == 409
    assert "Someone else holds this case now" in body and "Held by moderator2" in body
    assert list(Lease.objects.values_list("pk", "holder")) == [(taken.pk, other.pk)]

    plain = client.post(f"/p/default/open/cases/{item_id}/take/", follow=True)
    assert "Someone else holds this case now" in plain.content.decode()
    assert list(Lease.objects.values_list("pk", "holder")) == [(taken.pk, other.pk)]


def test_take_it_again_is_post_only_for_reviewers_of_an_item_that_exists(
    client, reader, lead
) -> None:
    case = make_case()
    assert client.get(f"/p/default/open/cases/{case.pk}/take/").status_code == 405
    assert client.post(f"/p/default/open/cases/{case.pk}/take/").status_code == 403
    assert client.post("/p/default/open/cases/999/take/").status_code == 404
    assert client.post(f"/p/default/open/tasks/{case.pk}/take/").status_code == 404
    assert not Lease.objects.exists()
