"""Failed sign-ins lock an account out, from any address, and an address out, for any account:
at the site's form and at the admin's, with a page that says when it ends, an end that holds,
and staff to lift it sooner. Each lockout and each lift is in the security log; the API, which
takes keys, never passwords, is not locked.

The limit is 3 here (the `settings` fixture): the counts are rows in each test's own
transaction, so no test is locked out by another's failures."""

from __future__ import annotations

import datetime as dt
import re
import time

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from review.models import SecurityEvent
from tests.builders.api import API, API_KEY, pipeline_user

pytestmark = pytest.mark.django_db

Kind = SecurityEvent.Kind
PASSWORD = "a long and good passphrase"
LIMIT = 3


@pytest.fixture(autouse=True)
def _limit(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT


@pytest.fixture
def ada() -> User:
    return User.objects.create_user("ada", password=PASSWORD)


def sign_in(username: str, password: str, address: str = "192.0.2.1", door: str = "login"):
    client = Client(REMOTE_ADDR=address)
    return client.post(reverse(door), {"username": username, "password": password})


def signed_in(response) -> bool:
    return response.status_code == 302 and response.wsgi_request.user.is_authenticated


def ends_at(response) -> str:
    """When the lockout page says the lockout ends."""
    return re.search(r'<time datetime="([^"]+)"', response.content.decode()).group(1)


def events(kind: str) -> list[tuple[str, str]]:
    return list(
        SecurityEvent.objects.filter(kind=kind).order_by("pk").values_list("username", "detail")
    )


def test_an_account_is_locked_out_after_the_limit_even_from_other_addresses(ada) -> None:
    before = [sign_in("ada", "wrong", f"192.0.2.{n}") for n in range(1, LIMIT)]
    locking = sign_in("ada", "wrong", "192.0.2.50")
    right_elsewhere = sign_in("ada", PASSWORD, "198.51.100.7")

    assert [response.status_code for response in before] == [200] * (LIMIT - 1)
    assert locking.status_code == 429 and right_elsewhere.status_code == 429
    assert not right_elsewhere.wsgi_request.user.is_authenticated
    body = right_elsewhere.content.decode()
    assert "Signing in is paused" in body and "for the account ada" in body
    assert "even with the right password" in body
    # Another account from those addresses is not locked.
    User.objects.create_user("bea", password=PASSWORD)
    assert signed_in(sign_in("bea", PASSWORD, "192.0.2.50"))
    [(username, detail)] = events(Kind.LOCKED_OUT)
    assert username == "ada" and detail.startswith(f"the account ada, after {LIMIT} failed")


def test_an_address_is_locked_out_after_the_limit_even_for_other_accounts(ada) -> None:
    for n in range(LIMIT):
        sign_in(f"guess-{n}", "wrong", "203.0.113.9")

    from_there = sign_in("ada", PASSWORD, "203.0.113.9")
    from_elsewhere = sign_in("ada", PASSWORD, "203.0.113.10")

    assert from_there.status_code == 429 and "from this address" in from_there.content.decode()
    assert signed_in(from_elsewhere)
    [(username, detail)] = events(Kind.LOCKED_OUT)
    assert (username, detail.split(",")[0]) == (f"guess-{LIMIT - 1}", "the address 203.0.113.9")


def test_the_lockout_says_when_it_ends_tries_do_not_move_it_and_then_it_ends(ada, settings) -> None:
    settings.AXES_COOLOFF_TIME = dt.timedelta(seconds=2)
    started = dt.datetime.now(dt.UTC)
    for _ in range(LIMIT):
        locking = sign_in("ada", "wrong")
    time.sleep(0.5)
    again = sign_in("ada", "wrong")

    end = dt.datetime.fromisoformat(ends_at(locking))
    assert started + dt.timedelta(seconds=2) <= end <= started + dt.timedelta(seconds=3)
    assert ends_at(again) == ends_at(locking), "a try during the lockout moved its end"
    assert sign_in("ada", PASSWORD).status_code == 429
    # The failure that locked locked both the account and its address; the tries during the
    # lockout locked nothing more.
    assert [detail.split(",")[0] for _, detail in events(Kind.LOCKED_OUT)] == [
        "the account ada",
        "the address 192.0.2.1",
    ]

    time.sleep(max(0.0, (end - dt.datetime.now(dt.UTC)).total_seconds()) + 0.1)

    assert signed_in(sign_in("ada", PASSWORD))


def test_staff_see_the_lockouts_in_force_and_lift_one(ada, client) -> None:
    for _ in range(LIMIT):
        sign_in("ada", "wrong")
    boss = User.objects.create_user("boss", is_staff=True)
    client.force_login(boss)

    listed = client.get(reverse("lockouts")).content.decode()
    lifted = client.post(reverse("lockout-lift"), {"of": "account", "value": "ada"}, follow=True)

    assert "the account ada" in listed and "the address <code>192.0.2.1</code>" not in listed
    assert "The lockout of the account ada is lifted." in lifted.content.decode()
    assert "No lockout is in force." in lifted.content.decode()
    assert signed_in(sign_in("ada", PASSWORD))
    [lift] = SecurityEvent.objects.filter(kind=Kind.LOCKOUT_LIFTED)
    assert (lift.username, lift.actor) == ("ada", boss)
    assert lift.detail.startswith("the account ada, locked until ")


def test_staff_lift_an_address_and_nothing_is_lifted_where_nothing_is_locked(client) -> None:
    for n in range(LIMIT):
        sign_in(f"guess-{n}", "wrong", "203.0.113.9")
    client.force_login(User.objects.create_user("boss", is_staff=True))

    nothing = client.post(reverse("lockout-lift"), {"of": "account", "value": "ada"}, follow=True)
    lifted = client.post(reverse("lockout-lift"), {"of": "address", "value": "203.0.113.9"})
    empty = client.post(reverse("lockout-lift"), {})

    assert "is not locked out now: nothing to lift" in nothing.content.decode()
    assert lifted.status_code == 302 and empty.status_code == 422
    assert [detail.split(",")[0] for _, detail in events(Kind.LOCKOUT_LIFTED)] == [
        "the address 203.0.113.9"
    ]


def test_only_staff_see_or_lift_lockouts(ada, client) -> None:
    for _ in range(LIMIT):
        sign_in("ada", "wrong")
    client.force_login(User.objects.create_user("bea"))

    assert client.get(reverse("lockouts")).status_code == 403
    assert client.post(reverse("lockout-lift"), {"of": "account", "value": "ada"}).status_code == (
        403
    )
    assert sign_in("ada", PASSWORD).status_code == 429


def test_the_admin_sign_in_counts_and_is_locked_out_too(ada) -> None:
    User.objects.create_user("boss", password=PASSWORD, is_staff=True)
    for _ in range(LIMIT - 1):
        sign_in("boss", "wrong", door="admin:login")
    locking = sign_in("boss", "wrong", door="admin:login")

    right_at_the_admin = sign_in("boss", PASSWORD, "198.51.100.7", door="admin:login")
    right_at_the_site = sign_in("boss", PASSWORD, "198.51.100.7")

    assert locking.status_code == right_at_the_admin.status_code == 429
    assert "Signing in is paused" in right_at_the_admin.content.decode()
    assert right_at_the_site.status_code == 429


def test_the_api_is_not_locked_out_with_its_address(ada) -> None:
    pipeline_user()
    for n in range(LIMIT):
        sign_in(f"guess-{n}", "wrong", "127.0.0.1")
        sign_in("pipeline", "wrong", f"192.0.2.{n}")
    assert sign_in("ada", PASSWORD, "127.0.0.1").status_code == 429

    # The test client's requests come from 127.0.0.1, the address now locked out.
    api = Client(headers={"Authorization": f"Bearer {API_KEY}"})
    response = api.get(f"{API}/plans")

    assert response.status_code == 200, response.content
