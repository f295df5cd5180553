"""Single sign-on against a real OpenID Connect provider (node's oidc-provider, in a process
of its own): the authorization-code flow walked end to end, the app's test client on one
side, HTTP to the provider on the other, the provider's own sign-in form between. The token
exchange, the ID token's signature (its published keys) and the userinfo are the provider's
real answers."""

from __future__ import annotations

import pytest
from django.urls import reverse

from review.actions.sign_on import map_claim
from review.models import Membership, SecurityEvent
from tests.builders.provider import running_provider, signed_in_through
from tests.builders.users import make_project

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    callback = f"http://testserver{reverse('sign-on-callback')}"
    with running_provider(tmp_path_factory.mktemp("provider"), [callback]) as provider:
        yield provider


@pytest.fixture
def sign_on(provider, settings):
    for name, value in provider.app_settings().items():
        setattr(settings, name, value)
    return provider


@pytest.fixture
def codes(django_user_model):
    """The project "codes", whose editors are the provider's group "codes-editors"."""
    project = make_project("codes")
    staff = django_user_model.objects.create_user("root", is_staff=True)
    map_claim(actor=staff, claim_value="codes-editors", project=project, roles={"editor": True})
    return project


def sign_in(sign_on, client, account: str):
    return signed_in_through(sign_on, client, account, reverse("sign-on-start"))


def test_a_first_sign_in_makes_an_account_with_the_roles_its_groups_map_to(
    sign_on, codes, client, django_user_model
) -> None:
    sign_on.set_account(
        "ada-1", preferred_username="ada", email="ada@example.org", groups=["codes-editors"]
    )

    answer = sign_in(sign_on, client, "ada-1")

    assert (answer.status_code, answer["Location"]) == (302, "/")
    ada = django_user_model.objects.get(sign_on_identity__subject="ada-1")
    assert (ada.username, ada.email, ada.has_usable_password()) == ("ada", "ada@example.org", False)
    assert Membership.objects.get(project=codes, user=ada).role_names == {"editor"}
    assert client.get(reverse("plans", kwargs={"project": "codes"})).status_code == 200
    kinds = set(SecurityEvent.objects.filter(username="ada").values_list("kind", flat=True))
    assert kinds == {SecurityEvent.Kind.SIGN_IN, SecurityEvent.Kind.SSO_ROLES}


def test_a_group_the_provider_no_longer_gives_takes_its_role_away_at_the_next_sign_in(
    sign_on, codes, client, django_user_model
) -> None:
    sign_on.set_account("bo-1", preferred_username="bo", groups=["codes-editors"])
    sign_in(sign_on, client, "bo-1")
    client.post(reverse("logout"))
    sign_on.set_account("bo-1", preferred_username="bo", groups=["somewhere-else"])

    sign_in(sign_on, client, "bo-1")

    assert not Membership.objects.filter(project=codes, user__username="bo").exists()
    assert client.get(reverse("plans", kwargs={"project": "codes"})).status_code == 404
    latest = SecurityEvent.objects.filter(kind=SecurityEvent.Kind.SSO_ROLES).first()
    assert latest.detail == "codes: Editor → not a member"


def test_the_provider_naming_someone_after_an_existing_account_gets_an_account_of_their_own(
    sign_on, codes, client, django_user_model
) -> None:
    glass = django_user_model.objects.create_user("ada", password="x", is_staff=True)
    sign_on.set_account("ada-2", preferred_username="ada", groups=["codes-editors"])

    sign_in(sign_on, client, "ada-2")

    newcomer = django_user_model.objects.get(sign_on_identity__subject="ada-2")
    assert newcomer.username == "ada-2"
    assert newcomer.pk != glass.pk
    assert client.get(reverse("dashboard")).wsgi_request.user == newcomer


def test_the_same_subject_signs_in_to_the_same_account_again(
    sign_on, codes, client, django_user_model
) -> None:
    sign_on.set_account("cy-1", preferred_username="cy", groups=["codes-editors"])
    sign_in(sign_on, client, "cy-1")
    client.post(reverse("logout"))
    sign_on.set_account("cy-1", preferred_username="cy-renamed", groups=["codes-editors"])

    sign_in(sign_on, client, "cy-1")

    accounts = django_user_model.objects.filter(sign_on_identity__subject="cy-1")
    assert list(accounts.values_list("username", flat=True)) == ["cy"]
    assert client.get(reverse("dashboard")).wsgi_request.user.username == "cy"
