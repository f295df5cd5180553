"""The provider's discovery document (review/sign_on_provider.py) served by a small HTTP
server of the test's own, which counts what it is asked: fetched once and kept for a bounded
time, refused when it is not the issuer's or not usable, never fetched for an endpoint set
by hand. Sign-ins through a real provider's document are in test_sign_on_flow.py."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.urls import reverse

from review import sign_on_provider
from review.sign_on_provider import (
    DISCOVERY_SECONDS,
    DOCUMENT_MAX_BYTES,
    ProviderUnavailable,
    end_session_endpoint,
    endpoint,
)


class Issuer:
    """An issuer at a loopback address, answering its discovery document (`body`)."""

    def __init__(self):
        issuer = self
        self.asked = 0

        class Answer(BaseHTTPRequestHandler):
            def do_GET(self):
                issuer.asked += 1
                status, body = (200, issuer.body) if self.path == issuer.path else (404, b"")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.path = "/.well-known/openid-configuration"
        self.document(issuer=self.url)

    def document(self, **fields) -> None:
        base = {
            "authorization_endpoint": f"{self.url}/auth",
            "token_endpoint": f"{self.url}/token",
            "userinfo_endpoint": f"{self.url}/me",
            "jwks_uri": f"{self.url}/jwks",
        }
        self.body = json.dumps({k: v for k, v in (base | fields).items() if v is not None})
        self.body = self.body.encode()


@pytest.fixture
def issuer(settings):
    issuer = Issuer()
    thread = threading.Thread(target=issuer.server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    settings.OIDC_ISSUER = issuer.url
    for name in sign_on_provider.ENDPOINT_FIELDS:
        setattr(settings, name, "")
    yield issuer
    issuer.server.shutdown()
    issuer.server.server_close()


def test_the_endpoints_come_from_the_document_fetched_once_for_a_bounded_time(
    issuer, monkeypatch
) -> None:
    clock = [1000.0]
    monkeypatch.setattr(sign_on_provider, "monotonic", lambda: clock[0])

    assert endpoint("OIDC_OP_TOKEN_ENDPOINT") == f"{issuer.url}/token"
    assert endpoint("OIDC_OP_JWKS_ENDPOINT") == f"{issuer.url}/jwks"
    clock[0] += DISCOVERY_SECONDS
    issuer.document(issuer=issuer.url, token_endpoint=f"{issuer.url}/token/v2")
    assert endpoint("OIDC_OP_TOKEN_ENDPOINT") == f"{issuer.url}/token"
    assert issuer.asked == 1

    clock[0] += 1
    assert endpoint("OIDC_OP_TOKEN_ENDPOINT") == f"{issuer.url}/token/v2"
    assert issuer.asked == 2


def test_an_endpoint_set_by_hand_wins_and_is_not_discovered(issuer, settings) -> None:
    settings.OIDC_OP_USER_ENDPOINT = "https://elsewhere.example.org/userinfo"

    assert endpoint("OIDC_OP_USER_ENDPOINT") == "https://elsewhere.example.org/userinfo"
    assert issuer.asked == 0
    assert endpoint("OIDC_OP_AUTHORIZATION_ENDPOINT") == f"{issuer.url}/auth"


def test_a_document_naming_another_issuer_is_refused(issuer) -> None:
    issuer.document(issuer=f"{issuer.url}/")

    with pytest.raises(ProviderUnavailable, match=f"names the issuer '{issuer.url}/'"):
        endpoint("OIDC_OP_TOKEN_ENDPOINT")


def test_a_refused_document_is_not_kept_and_the_next_sign_in_tries_again(issuer) -> None:
    issuer.document(issuer="https://impostor.example.org")
    with pytest.raises(ProviderUnavailable):
        endpoint("OIDC_OP_TOKEN_ENDPOINT")

    issuer.document(issuer=issuer.url)

    assert endpoint("OIDC_OP_TOKEN_ENDPOINT") == f"{issuer.url}/token"
    assert issuer.asked == 2


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"<html>down for maintenance</html>", "is not JSON"),
        (b"[]", "is not a JSON object"),
        (b" " * (DOCUMENT_MAX_BYTES + 1), f"is over {DOCUMENT_MAX_BYTES} bytes"),
    ],
)
def test_a_body_that_is_no_document_is_refused(issuer, body, reason) -> None:
    issuer.body = body

    with pytest.raises(ProviderUnavailable, match=reason):
        endpoint("OIDC_OP_TOKEN_ENDPOINT")


def test_an_endpoint_the_document_lacks_or_garbles_names_the_setting_to_set(issuer) -> None:
    issuer.document(issuer=issuer.url, userinfo_endpoint=None, jwks_uri="/jwks")

    with pytest.raises(ProviderUnavailable, match="names no userinfo_endpoint .*OIDC_OP_USER_"):
        endpoint("OIDC_OP_USER_ENDPOINT")
    with pytest.raises(ProviderUnavailable, match="names no jwks_uri"):
        endpoint("OIDC_OP_JWKS_ENDPOINT")


def test_an_issuer_whose_address_answers_no_document_is_unavailable(issuer) -> None:
    issuer.path = "/elsewhere"

    with pytest.raises(ProviderUnavailable, match="404"):
        endpoint("OIDC_OP_TOKEN_ENDPOINT")


@pytest.mark.parametrize(
    ("path", "named"), [("/session/end", True), ("https://else.example.org/logout", False)]
)
def test_the_end_session_endpoint_is_named_only_on_the_issuers_origin(
    issuer, settings, path, named
) -> None:
    address = path if "//" in path else f"{issuer.url}{path}"
    issuer.document(issuer=issuer.url, end_session_endpoint=address)

    assert end_session_endpoint() == (address if named else None)
    settings.OIDC_ISSUER = ""
    assert end_session_endpoint() is None


@pytest.mark.django_db
def test_a_password_sign_in_never_asks_the_provider(
    issuer, settings, client, django_user_model
) -> None:
    settings.SSO_ENABLED = True
    settings.OIDC_RP_CLIENT_ID, settings.OIDC_RP_CLIENT_SECRET = "grounding-review", "s"
    settings.AUTHENTICATION_BACKENDS = [
        "review.backends.PasswordBackend",
        "review.backends.SignOnBackend",
    ]
    django_user_model.objects.create_user("ada", password="pw")

    answer = client.post(reverse("login"), {"username": "ada", "password": "pw"})
    client.get(reverse("dashboard"))

    assert answer.status_code == 302
    assert issuer.asked == 0
