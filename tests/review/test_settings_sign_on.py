"""What single sign-on's settings let the app start with: the issuer (its endpoints then
discovered at the first sign-in, so the app starts while the provider is down), or all four
endpoints by hand; with neither, it does not start, and says what is missing. Settings are
read once per process, so each case runs `manage.py check` in a fresh Python."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.builders.provider import free_port

ROOT = Path(__file__).resolve().parents[2]
ENDPOINTS = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "https://id.example.org/auth",
    "OIDC_OP_TOKEN_ENDPOINT": "https://id.example.org/token",
    "OIDC_OP_USER_ENDPOINT": "https://id.example.org/userinfo",
    "OIDC_OP_JWKS_ENDPOINT": "https://id.example.org/jwks",
}


def check(**sign_on: str) -> subprocess.CompletedProcess:
    inherited = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DJANGO_", "OIDC_", "REVIEW_")) and name != "DATABASE_URL"
    }
    env = {**inherited, "OIDC_RP_CLIENT_ID": "grounding-review", **sign_on}
    return subprocess.run(  # noqa: S603 - our own manage.py with arguments we chose
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_an_issuer_whose_provider_is_down_still_lets_the_app_start() -> None:
    started = check(OIDC_RP_CLIENT_SECRET="s", OIDC_ISSUER=f"http://127.0.0.1:{free_port()}")

    assert started.returncode == 0, started.stderr


def test_all_four_endpoints_by_hand_and_no_issuer_let_the_app_start() -> None:
    started = check(OIDC_RP_CLIENT_SECRET="s", **ENDPOINTS)

    assert started.returncode == 0, started.stderr


def test_without_the_issuer_and_with_some_endpoints_the_app_names_what_is_missing() -> None:
    some = {name: ENDPOINTS[name] for name in ("OIDC_OP_TOKEN_ENDPOINT", "OIDC_OP_JWKS_ENDPOINT")}

    refused = check(OIDC_RP_CLIENT_SECRET="s", **some)

    assert refused.returncode != 0
    assert (
        "ImproperlyConfigured: OIDC_ISSUER is not set, nor OIDC_OP_AUTHORIZATION_ENDPOINT,"
        " OIDC_OP_USER_ENDPOINT."
    ) in refused.stderr


def test_without_the_secret_the_app_does_not_start() -> None:
    refused = check(OIDC_ISSUER="https://id.example.org")

    assert refused.returncode != 0
    assert "ImproperlyConfigured: OIDC_RP_CLIENT_SECRET is not set." in refused.stderr
