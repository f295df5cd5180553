"""Single sign-on against a real OpenID Connect provider (node's oidc-provider, in a process
of its own): the authorization-code flow walked end to end, the app's test client on one
side, HTTP to the provider on the other, the provider's own sign-in form between. The
discovery document, the token exchange, the ID token's signature (its published keys) and
the userinfo are the provider's real answers; so is its sign-out page."""

from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
import requests
from django.core.exceptions import SuspiciousOperation
from django.urls import reverse

from review.actions.sign_on import map_claim
from review.backends import SignOnBackend
from review.models import Membership, SecurityEvent
from tests.builders.pages import policy_of
from tests.builders.provider import (
    CLIENT_ID,
    OTHER_CLIENT_ID,
    free_port,
    id_token_of,
    running_provider,
    signed_in_through,
)
from tests.builders.users import make_project

pytestmark = pytest.mark.django_db


def on_the_test_server(name: str) -> str:
    return f"http://testserver{reverse(name)}"


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    directory = tmp_path_factory.mktemp("provider")
    callback, sign_in_page = on_the_test_server("sign-on-callback"), on_the_test_server("login")
    with running_provider(directory, [callback], [sign_in_page]) as provider:
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


def test_endpoints_set_by_hand_and_no_issuer_sign_in_as_well(
    provider, settings, codes, client, django_user_model
) -> None:
    for name, value in provider.app_settings(discovery=False).items():
        setattr(settings, name, value)
    provider.set_account("di-1", preferred_username="di", groups=["codes-editors"])

    answer = sign_in(provider, client, "di-1")

    assert (answer.status_code, answer["Location"]) == (302, "/")
    di = django_user_model.objects.get(sign_on_identity__subject="di-1")
    assert Membership.objects.get(project=codes, user=di).role_names == {"editor"}


def unavailable_page_after(client, answer) -> str:
    assert (answer.status_code, answer["Location"]) == (302, "/accounts/login/?sign_on=unavailable")
    page = client.get(answer["Location"])
    assert page.status_code == 200
    return " ".join(page.content.decode().split())


def test_a_discovery_document_for_another_issuer_is_refused_and_the_sign_in_page_says_so(
    sign_on, settings, client, caplog
) -> None:
    # The same document (its address drops the slash), whose issuer has none.
    settings.OIDC_ISSUER = f"{sign_on.issuer}/"

    answer = client.get(reverse("sign-on-start"))

    page = unavailable_page_after(client, answer)
    assert "Signing in with the test provider is not possible just now" in page
    assert f"names the issuer '{sign_on.issuer}', not OIDC_ISSUER" in caplog.text
    assert "oidc_states" not in client.session


def test_a_provider_that_cannot_be_reached_is_said_so_on_the_sign_in_page(
    sign_on, settings, client, caplog
) -> None:
    settings.OIDC_ISSUER = f"http://127.0.0.1:{free_port()}"

    answer = client.get(reverse("sign-on-start"))

    unavailable_page_after(client, answer)
    assert "openid-configuration could not be fetched" in caplog.text


def test_a_token_endpoint_that_cannot_be_reached_at_the_callback_is_said_so_too(
    sign_on, settings, client, caplog
) -> None:
    settings.OIDC_OP_TOKEN_ENDPOINT = f"http://127.0.0.1:{free_port()}/token"
    sign_on.set_account("ed-1", preferred_username="ed")

    answer = sign_in(sign_on, client, "ed-1")

    unavailable_page_after(client, answer)
    assert "The provider could not be reached" in caplog.text
    assert "_auth_user_id" not in client.session


def test_an_id_token_from_another_issuer_is_a_failed_sign_in(
    provider, settings, client, django_user_model
) -> None:
    # The endpoints by hand, so nothing is discovered, and an issuer the provider is not.
    for name, value in provider.app_settings(discovery=False).items():
        setattr(settings, name, value)
    settings.OIDC_ISSUER = "https://id.example.org"
    provider.set_account("fay-1", preferred_username="fay")

    answer = sign_in(provider, client, "fay-1")

    assert (answer.status_code, answer["Location"]) == (302, "/accounts/login/?sign_on=failed")
    assert not django_user_model.objects.filter(sign_on_identity__subject="fay-1").exists()
    assert SecurityEvent.objects.filter(kind=SecurityEvent.Kind.SIGN_IN_FAILED).count() == 1
    assert "_auth_user_id" not in client.session


def test_a_token_endpoint_that_refuses_the_app_is_a_failed_sign_in(
    sign_on, settings, client, caplog
) -> None:
    settings.OIDC_RP_CLIENT_SECRET = "not-the-secret"
    sign_on.set_account("flo-1", preferred_username="flo")

    answer = sign_in(sign_on, client, "flo-1")

    assert (answer.status_code, answer["Location"]) == (302, "/accounts/login/?sign_on=failed")
    assert SecurityEvent.objects.filter(kind=SecurityEvent.Kind.SIGN_IN_FAILED).count() == 1
    assert "refused by the provider" in caplog.text


def test_an_id_token_the_provider_issued_to_another_of_its_clients_is_refused(sign_on) -> None:
    sign_on.set_account("gus-1", preferred_username="gus")
    callback = on_the_test_server("sign-on-callback")
    token = id_token_of(sign_on, OTHER_CLIENT_ID, "gus-1", callback)
    ours = id_token_of(sign_on, CLIENT_ID, "gus-1", callback)
    backend = SignOnBackend()
    backend.OIDC_OP_JWKS_ENDPOINT = sign_on.discovery["jwks_uri"]

    assert backend.verify_token(ours, nonce="n")["sub"] == "gus-1"
    with pytest.raises(SuspiciousOperation, match="is for 'another-app', not 'grounding-review'"):
        backend.verify_token(token, nonce="n")


LOGOUT_FORM = re.compile(r'<form[^>]*action="([^"]+)"[^>]*>.*?name="xsrf" value="([^"]+)"', re.S)


def test_signing_out_signs_out_of_the_provider_too_and_comes_back_to_the_sign_in_page(
    sign_on, client
) -> None:
    sign_on.set_account("hal-1", preferred_username="hal")
    browser = requests.Session()
    signed_in_through(sign_on, client, "hal-1", reverse("sign-on-start"), browser)
    id_token = client.session["oidc_id_token"]

    answer = client.post(reverse("logout"))

    assert answer.status_code == 302
    address = urlsplit(answer["Location"])
    assert (
        f"{address.scheme}://{address.netloc}{address.path}"
        == (sign_on.discovery["end_session_endpoint"])
    )
    assert parse_qs(address.query) == {
        "id_token_hint": [id_token],
        "client_id": [CLIENT_ID],
        "post_logout_redirect_uri": [on_the_test_server("login")],
    }
    assert "_auth_user_id" not in client.session
    # The provider asks whether to sign out; yes sends the person back to the sign-in page.
    confirm = browser.get(answer["Location"], timeout=10)
    action, xsrf = LOGOUT_FORM.search(confirm.text).groups()
    back = browser.post(
        urljoin(answer["Location"], unescape(action)),
        data={"xsrf": xsrf, "logout": "yes"},
        allow_redirects=False,
        timeout=10,
    )
    assert back.headers["Location"] == on_the_test_server("login")
    # Signed out there too: signing in again asks for the login once more.
    again = browser.get(client.get(reverse("sign-on-start"))["Location"], timeout=10)
    assert 'name="login"' in again.text


def test_signing_out_of_the_provider_can_be_turned_off(sign_on, settings, client) -> None:
    settings.SSO_SIGN_OUT_OF_PROVIDER = False
    sign_on.set_account("ivy-1", preferred_username="ivy")
    sign_in(sign_on, client, "ivy-1")

    answer = client.post(reverse("logout"))

    assert (answer.status_code, answer["Location"]) == (302, "/accounts/login/")


def test_someone_signed_in_with_a_password_signs_out_of_the_app_only(
    sign_on, client, django_user_model
) -> None:
    django_user_model.objects.create_user("jo", password="pw")
    client.post(reverse("login"), {"username": "jo", "password": "pw"})

    answer = client.post(reverse("logout"))

    assert (answer.status_code, answer["Location"]) == (302, "/accounts/login/")


def test_only_the_pages_of_someone_signed_in_through_the_provider_let_forms_reach_it(
    sign_on, client, django_user_model
) -> None:
    sign_on.set_account("kit-1", preferred_username="kit")
    sign_in(sign_on, client, "kit-1")
    signed_on = policy_of(client.get(reverse("dashboard")))
    client.post(reverse("logout"))
    django_user_model.objects.create_user("lu", password="pw")
    client.post(reverse("login"), {"username": "lu", "password": "pw"})

    with_password = policy_of(client.get(reverse("dashboard")))

    assert signed_on["form-action"] == f"'self' {sign_on.issuer}"
    assert with_password["form-action"] == "'self'"
