"""A real OpenID Connect provider for the single sign-on tests: node's oidc-provider
(tests/oidc_provider/provider.mjs) in a process of its own on a free loopback port, its
packages installed by `npm ci` the first time, its people in a JSON file a test may rewrite
between sign-ins (the provider reads it at each one).

`signed_in_through` walks the authorization-code flow as a browser would, with Django's test
client for the app's side and requests for the provider's: the app's redirect to the
provider, the provider's own sign-in form, its redirect back, and the app's token exchange,
which goes over HTTP to the provider. `id_token_of` has the provider issue an ID token to
another of its clients, for the app to refuse."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
import requests

from review.sign_on_provider import ENDPOINT_FIELDS

ROOT = Path(__file__).resolve().parents[2]
PROVIDER_DIR = ROOT / "tests" / "oidc_provider"
CLIENT_ID = "grounding-review"
CLIENT_SECRET = "grounding-review-test-secret"  # provider.mjs's, known to nobody else
# provider.mjs's other client, another app of the same organization.
OTHER_CLIENT_ID = "another-app"
STARTUP_SECONDS = 30
FORM_ACTION = re.compile(r'<form[^>]*action="([^"]+)"')


@dataclass
class Provider:
    issuer: str
    discovery: dict
    accounts_file: Path

    def set_account(self, account_id: str, **claims) -> None:
        """Give the provider a person (`sub` is `account_id`), or change their claims."""
        accounts = json.loads(self.accounts_file.read_text())
        accounts[account_id] = claims
        self.accounts_file.write_text(json.dumps(accounts))

    def app_settings(self, *, discovery: bool = True) -> dict:
        """The app's settings for single sign-on through this provider: its issuer, whose
        discovery document names the endpoints, or (`discovery=False`) the endpoints set by
        hand and no issuer."""
        if discovery:
            issuer, endpoints = self.issuer, dict.fromkeys(ENDPOINT_FIELDS, "")
        else:
            issuer = ""
            endpoints = {name: self.discovery[field] for name, field in ENDPOINT_FIELDS.items()}
        return {
            "SSO_ENABLED": True,
            "SSO_PROVIDER_NAME": "the test provider",
            "OIDC_RP_CLIENT_ID": CLIENT_ID,
            "OIDC_RP_CLIENT_SECRET": CLIENT_SECRET,
            "OIDC_RP_SIGN_ALGO": "RS256",
            "OIDC_ISSUER": issuer,
            **endpoints,
            "AUTHENTICATION_BACKENDS": [
                "review.backends.PasswordBackend",
                "review.backends.SignOnBackend",
            ],
        }


def _installed() -> str:
    """The path of node, with the provider's packages installed (`npm ci`) if missing."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        message = "node and npm are needed for the single sign-on tests' provider"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    if not (PROVIDER_DIR / "node_modules" / "oidc-provider").is_dir():
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=PROVIDER_DIR, check=True, timeout=300,
        )  # fmt: skip
    return node


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running_provider(
    directory: Path, redirect_uris: list[str], post_logout_redirect_uris: list[str] = ()
):
    """The provider, up (its discovery document served) until the block ends."""
    node = _installed()
    port = free_port()
    accounts = directory / "accounts.json"
    accounts.write_text("{}")
    log_path = directory / "provider.log"
    env = {
        **os.environ,
        "OIDC_TEST_PORT": str(port),
        "OIDC_TEST_REDIRECT_URIS": ",".join(redirect_uris),
        "OIDC_TEST_POST_LOGOUT_REDIRECT_URIS": ",".join(post_logout_redirect_uris),
        "OIDC_TEST_ACCOUNTS": str(accounts),
    }
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [node, "provider.mjs"], cwd=PROVIDER_DIR, env=env, stdout=log, stderr=log
        )
    try:
        issuer = f"http://127.0.0.1:{port}"
        discovery = _discovery(issuer, process, log_path)
        yield Provider(issuer=issuer, discovery=discovery, accounts_file=accounts)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def _discovery(issuer: str, process: subprocess.Popen, log: Path) -> dict:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the provider exited:\n{log.read_text()[-3000:]}")
        try:
            answer = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=2)
            if answer.status_code == 200:
                return answer.json()
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the provider did not answer in {STARTUP_SECONDS} s")


def signed_in_through(provider: Provider, client, login: str, start: str, browser=None):
    """Sign `client` in at `start` (the app's sign-on address) as the provider's `login`,
    typed into the provider's own form (in `browser`, a requests session, when given: its
    cookies are the provider's session); the app's last answer (its redirect after the
    callback)."""
    browser = browser or requests.Session()
    location = client.get(start)["Location"]
    location = _through_the_provider(provider, browser, location, login)
    # Back at the app: its callback, on the test client's host.
    return client.get(location.removeprefix("http://testserver"))


def _through_the_provider(provider: Provider, browser, location: str, login: str) -> str:
    """Follow the provider's redirects from `location`, signing in as `login` on its form,
    until one leads away from it; that address."""
    while location.startswith(provider.issuer):
        reply = browser.get(location, allow_redirects=False, timeout=10)
        if reply.status_code == 200:
            action = unescape(FORM_ACTION.search(reply.text).group(1))
            reply = browser.post(
                urljoin(location, action),
                data={"prompt": "login", "login": login, "password": "any"},
                allow_redirects=False,
                timeout=10,
            )
        assert reply.is_redirect, reply.text[:500]
        location = urljoin(location, reply.headers["Location"])
    return location


def id_token_of(provider: Provider, client_id: str, login: str, redirect_uri: str) -> str:
    """An ID token the provider issues to its client `client_id` for `login` (nonce "n"),
    through the authorization-code flow walked with that client's own credentials."""
    query = {
        "client_id": client_id,
        "redirect_uri": redirect_uri,
        "response_type": "code",
        "scope": "openid",
        "nonce": "n",
        "state": "s",
    }
    start = requests.Request("GET", provider.discovery["authorization_endpoint"], params=query)
    back = _through_the_provider(provider, requests.Session(), start.prepare().url, login)
    code = parse_qs(urlsplit(back).query)["code"][0]
    tokens = requests.post(
        provider.discovery["token_endpoint"],
        data={"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri},
        auth=(client_id, f"{client_id}-test-secret"),
        timeout=10,
    )
    tokens.raise_for_status()
    return tokens.json()["id_token"]
