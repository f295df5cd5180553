"""The ID token's checks (OpenID Connect Core 3.1.3.7) on tokens this test signs with a key
of its own, for what a real provider will not issue: several audiences, another authorized
party, an expired token, none at all, a clock a little off. The refusals a real provider can
show (another issuer, another client's token) are in test_sign_on_flow.py."""

from __future__ import annotations

import time

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.core.exceptions import SuspiciousOperation

from review.backends import CLOCK_SKEW_SECONDS, SignOnBackend

ISSUER = "https://id.example.org"
CLIENT_ID = "grounding-review"


def private_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def key():
    return private_key()


@pytest.fixture
def backend(key, settings):
    settings.OIDC_ISSUER = ISSUER
    settings.OIDC_RP_CLIENT_ID = CLIENT_ID
    settings.OIDC_RP_CLIENT_SECRET = "secret"
    settings.OIDC_RP_SIGN_ALGO = "RS256"
    # The provider's key given by hand: the library checks the signature against it.
    settings.OIDC_RP_IDP_SIGN_KEY = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return SignOnBackend()


def token(key, **claims) -> str:
    now = int(time.time())
    payload = {"iss": ISSUER, "aud": CLIENT_ID, "sub": "ada-1", "nonce": "n"}
    payload |= {"iat": now, "exp": now + 300} | claims
    return jwt.encode({k: v for k, v in payload.items() if v is not None}, key, algorithm="RS256")


def refusal(backend, id_token: str) -> str:
    with pytest.raises(SuspiciousOperation) as refused:
        backend.verify_token(id_token, nonce="n")
    return str(refused.value)


def test_a_token_of_the_issuer_for_this_app_is_accepted(backend, key) -> None:
    assert backend.verify_token(token(key), nonce="n")["sub"] == "ada-1"


def test_a_token_of_another_issuer_is_refused(backend, key) -> None:
    reason = refusal(backend, token(key, iss="https://id.example.org/other"))

    assert "issuer 'https://id.example.org/other' is not OIDC_ISSUER" in reason


def test_without_an_issuer_configured_the_tokens_issuer_is_not_compared(
    backend, key, settings
) -> None:
    settings.OIDC_ISSUER = ""

    assert backend.verify_token(token(key, iss="https://anyone"), nonce="n")["sub"] == "ada-1"


@pytest.mark.parametrize("audience", ["another-app", ["another-app"], None, 7])
def test_a_token_for_another_audience_or_none_is_refused(backend, key, audience) -> None:
    reason = refusal(backend, token(key, aud=audience))

    assert f"is for {audience!r}, not 'grounding-review'" in reason


def test_with_several_audiences_the_authorized_party_must_be_this_app(backend, key) -> None:
    both = ["another-app", CLIENT_ID]

    assert "issued to None" in refusal(backend, token(key, aud=both))
    assert "issued to 'another-app'" in refusal(backend, token(key, aud=both, azp="another-app"))
    assert backend.verify_token(token(key, aud=both, azp=CLIENT_ID), nonce="n")["aud"] == both


def test_an_authorized_party_other_than_this_app_is_refused_with_one_audience(backend, key):
    assert "issued to 'another-app'" in refusal(backend, token(key, azp="another-app"))


def test_an_expired_token_is_refused_and_one_without_an_expiry_too(backend, key) -> None:
    past = int(time.time()) - CLOCK_SKEW_SECONDS - 10

    assert "Signature has expired" in refusal(backend, token(key, exp=past))
    assert "no expiry" in refusal(backend, token(key, exp=None))


def test_a_clock_a_little_off_either_way_is_allowed(backend, key) -> None:
    now = int(time.time())
    just_expired = token(key, exp=now - CLOCK_SKEW_SECONDS // 2)
    from_a_clock_ahead = token(key, iat=now + CLOCK_SKEW_SECONDS // 2)

    assert backend.verify_token(just_expired, nonce="n")["sub"] == "ada-1"
    assert backend.verify_token(from_a_clock_ahead, nonce="n")["sub"] == "ada-1"
    assert "not yet valid" in refusal(backend, token(key, iat=now + CLOCK_SKEW_SECONDS + 60))


def test_a_token_signed_with_another_key_or_algorithm_is_refused(backend, key) -> None:
    assert "Signature verification failed" in refusal(backend, token(private_key()))
    other_algorithm = jwt.encode({"sub": "ada-1"}, "x" * 32, algorithm="HS256")
    assert "signed with 'HS256', not OIDC_RP_SIGN_ALGO" in refusal(backend, other_algorithm)
    assert "refused" in refusal(backend, "not.a.token")
