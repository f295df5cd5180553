"""/tokens/: people make their own API tokens with the projects, roles and expiry they choose
(never more than they hold), see the key once, see when each was last used, and revoke them;
staff see and revoke everyone's. A revoked or expired key answers 401 saying which."""

from __future__ import annotations

import datetime as dt
import hashlib
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from review.actions.tokens import create_token
from review.models import ApiToken
from tests.builders.api import api_client
from tests.builders.users import make_project, member

pytestmark = pytest.mark.django_db

KEY = "a-key-made-for-the-test"


@pytest.fixture
def ada(client) -> User:
    """An editor and moderator of "Default", a reader of "shop", signed in."""
    user = User.objects.create_user("ada")
    member(user, None, "editor", "moderator")
    member(user, make_project("shop"))
    client.force_login(user)
    return user


def shop_pk() -> int:
    return make_project("shop").pk


def made_key(response) -> str:
    return re.search(r'id="token-key">([^<]+)<', response.content.decode()).group(1)


def test_a_token_made_on_the_page_acts_for_what_was_ticked_and_its_key_is_shown_once(
    client, ada
) -> None:
    default = make_project("default")
    response = client.post(
        reverse("token-new"),
        {
            "name": "nightly import",
            "lifetime": "30",
            f"project_{default.pk}": ["moderator"],
            f"project_{shop_pk()}": ["reader"],
        },
    )

    assert response.status_code == 201
    assert "no-store" in response["Cache-Control"]
    key = made_key(response)
    token = ApiToken.objects.get()
    assert token.key_sha256 == hashlib.sha256(key.encode()).hexdigest()
    assert {g.project.slug: g.role_names for g in token.grants.all()} == {
        "default": {"moderator"},
        "shop": {"reader"},
    }
    assert dt.timedelta(days=29) < token.expires_at - timezone.now() <= dt.timedelta(days=30)
    listed = client.get(reverse("tokens")).content.decode()
    assert "nightly import" in listed and key not in listed
    assert api_client(key).post("/api/projects/default/documents").status_code == 403
    assert api_client(key).get("/api/projects/shop/plans").status_code == 200


def test_a_role_the_person_does_not_hold_cannot_be_given_and_nothing_is_made(client, ada) -> None:
    beyond = client.post(
        reverse("token-new"), {"name": "t", "lifetime": "", f"project_{shop_pk()}": ["editor"]}
    )
    nothing = client.post(reverse("token-new"), {"name": "t", "lifetime": ""})

    assert beyond.status_code == 422
    assert "Select a valid choice" in beyond.content.decode()
    assert nothing.status_code == 422
    assert "Tick at least one project" in nothing.content.decode()
    assert not ApiToken.objects.exists()


def test_the_page_lists_ones_own_tokens_and_staff_see_everyones(client, ada) -> None:
    create_token(ada, "ada's pipeline")
    bob = User.objects.create_user("bob")
    member(bob, None, "editor")
    create_token(bob, "bob's pipeline")

    mine = client.get(reverse("tokens")).content.decode()
    client.force_login(User.objects.create_user("boss", is_staff=True))
    everyone = client.get(reverse("tokens")).content.decode()

    assert "ada&#x27;s pipeline" in mine and "bob&#x27;s pipeline" not in mine
    assert "ada&#x27;s pipeline" in everyone and "bob&#x27;s pipeline" in everyone


def test_a_revoked_key_answers_401_saying_so_and_only_its_owner_or_staff_revoke_it(
    client, ada
) -> None:
    token, key = create_token(ada, "t", key=KEY)
    bob = User.objects.create_user("bob")
    member(bob, None, "editor")
    theirs, _ = create_token(bob, "bob's")

    not_mine = client.post(reverse("token-revoke", args=[theirs.pk]))
    revoked = client.post(reverse("token-revoke", args=[token.pk]))
    refused = api_client(KEY).get("/api/projects/default/plans")
    moved = api_client(KEY).get("/api/plans")

    assert not_mine.status_code == 404
    assert ApiToken.objects.get(pk=theirs.pk).revoked_at is None
    assert revoked.status_code == 302
    assert refused.status_code == 401
    assert refused.json()["detail"].startswith("this key was revoked by ada on ")
    assert "make another on the 'Your API tokens' page" in refused.json()["detail"]
    assert moved.status_code == 401 and moved.json()["detail"] == refused.json()["detail"]
    client.force_login(User.objects.create_user("boss", is_staff=True))
    assert client.post(reverse("token-revoke", args=[theirs.pk])).status_code == 302
    assert ApiToken.objects.get(pk=theirs.pk).revoked_by.username == "boss"


def test_an_expired_key_and_one_of_an_inactive_owner_answer_401_saying_which(ada) -> None:
    token, _ = create_token(ada, "t", key=KEY)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - dt.timedelta(days=1))
    expired = api_client(KEY).get("/api/projects/default/plans")
    create_token(ada, "other", key="another-key")
    User.objects.filter(pk=ada.pk).update(is_active=False)
    inactive = api_client("another-key").get("/api/projects/default/plans")

    assert expired.status_code == 401
    assert expired.json()["detail"].startswith("this key expired on ")
    assert inactive.status_code == 401
    assert inactive.json()["detail"].startswith("this key's owner, ada, may no longer sign in")


def test_a_keys_last_use_is_noted_at_most_once_a_minute(ada) -> None:
    token, _ = create_token(ada, "t", key=KEY)
    api = api_client(KEY)

    api.get("/api/projects")
    first = ApiToken.objects.get(pk=token.pk).last_used_at
    api.get("/api/projects")
    again = ApiToken.objects.get(pk=token.pk).last_used_at
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=first - dt.timedelta(minutes=2))
    api.get("/api/projects")
    later = ApiToken.objects.get(pk=token.pk).last_used_at

    assert first is not None and again == first
    assert later > first - dt.timedelta(minutes=2)


def test_a_token_cannot_be_made_already_expired(ada) -> None:
    from review.refusals import ActionRefused

    with pytest.raises(ActionRefused, match="expired already"):
        create_token(ada, "t", expires_at=timezone.now() - dt.timedelta(seconds=1))
    assert not ApiToken.objects.exists()


def test_signed_out_the_pages_send_to_sign_in() -> None:
    response = Client().get(reverse("tokens"))

    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
