"""/account/ and signing out everywhere else: the person's other sessions end at their next
request, the one they asked from goes on, their API tokens go on, and it is recorded. A wrong
password ends nothing and counts as a failed sign-in."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from review.models import SecurityEvent
from tests.builders.api import API, API_KEY, pipeline_user

pytestmark = pytest.mark.django_db

Kind = SecurityEvent.Kind
PASSWORD = "a long and good passphrase"


def signed_in_client(username: str, address: str) -> Client:
    """A browser of its own, signed in through the sign-in form."""
    client = Client(REMOTE_ADDR=address)
    response = client.post(reverse("login"), {"username": username, "password": PASSWORD})
    assert response.status_code == 302, response.content
    return client


@pytest.fixture
def ada() -> User:
    return User.objects.create_user("ada", password=PASSWORD)


def test_the_account_page_offers_it_and_the_top_bar_leads_there(ada) -> None:
    client = signed_in_client("ada", "192.0.2.1")

    page = client.get(reverse("account")).content.decode()
    dashboard = client.get(reverse("dashboard")).content.decode()

    assert "Sign out everywhere else" in page and 'autocomplete="current-password"' in page
    assert f'href="{reverse("account")}"' in dashboard


def test_signing_out_everywhere_ends_the_other_sessions_and_keeps_this_one(ada) -> None:
    here = signed_in_client("ada", "192.0.2.1")
    elsewhere = signed_in_client("ada", "198.51.100.7")

    done = here.post(reverse("sign-out-everywhere"), {"password": PASSWORD}, follow=True)
    there_next = elsewhere.get(reverse("dashboard"))

    assert done.status_code == 200 and "Your other sessions are signed out" in done.content.decode()
    assert here.get(reverse("dashboard")).status_code == 200
    assert there_next.status_code == 302
    assert there_next["Location"].startswith(reverse("login"))
    # The same password still signs in.
    assert signed_in_client("ada", "198.51.100.7").get(reverse("dashboard")).status_code == 200
    [event] = SecurityEvent.objects.filter(kind=Kind.SIGNED_OUT_EVERYWHERE)
    assert (event.username, event.address) == ("ada", "192.0.2.1")


def test_a_wrong_password_ends_nothing_and_counts_as_a_failed_sign_in(ada) -> None:
    here = signed_in_client("ada", "192.0.2.1")
    elsewhere = signed_in_client("ada", "198.51.100.7")

    refused = here.post(reverse("sign-out-everywhere"), {"password": "wrong"})

    assert refused.status_code == 422
    assert "That is not your password" in refused.content.decode()
    assert elsewhere.get(reverse("dashboard")).status_code == 200
    assert not SecurityEvent.objects.filter(kind=Kind.SIGNED_OUT_EVERYWHERE).exists()
    assert SecurityEvent.objects.filter(kind=Kind.SIGN_IN_FAILED, username="ada").count() == 1


def test_the_api_tokens_go_on_after_signing_out_everywhere() -> None:
    pipeline = pipeline_user()
    pipeline.set_password(PASSWORD)
    pipeline.save()
    client = signed_in_client("pipeline", "192.0.2.1")

    client.post(reverse("sign-out-everywhere"), {"password": PASSWORD})

    api = Client(headers={"Authorization": f"Bearer {API_KEY}"})
    assert api.get(f"{API}/plans").status_code == 200
