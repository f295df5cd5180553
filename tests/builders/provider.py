"""A real OpenID Connect provider for the single sign-on tests: node's oidc-provider
(tests/oidc_provider/provider.mjs) in a process of its own on a free loopback port, its
packages installed by `npm ci` the first time, its people in a JSON file a test may rewrite
between sign-ins (the provider reads it at each one).

`signed_in_through` walks the authorization-code flow as a browser would, with Django's test
client for the app's side and requests for the provider's: the app's redirect to the
provider, the provider's own sign-in form, its redirect back, and the app's token exchange,
which goes over HTTP to the provider."""

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
from urllib.parse import urljoin

import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
PROVIDER_DIR = ROOT / "tests" / "oidc_provider"
CLIENT_ID = "grounding-review"
CLIENT_SECRET = "grounding-review-test-secret"  # provider.mjs's, known to nobody else
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

    def app_settings(self) -> dict:
        """The app's settings for single sign-on through this provider."""
        return {
            "SSO_ENABLED": True,
            "SSO_PROVIDER_NAME": "the test provider",
            "OIDC_RP_CLIENT_ID": CLIENT_ID,
            "OIDC_RP_CLIENT_SECRET": CLIENT_SECRET,
            "OIDC_RP_SIGN_ALGO": "RS256",
            "OIDC_OP_AUTHORIZATION_ENDPOINT": self.discovery["authorization_endpoint"],
            "OIDC_OP_TOKEN_ENDPOINT": self.discovery["token_endpoint"],
            "OIDC_OP_USER_ENDPOINT": self.discovery["userinfo_endpoint"],
            "OIDC_OP_JWKS_ENDPOINT": self.discovery["jwks_uri"],
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


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def running_provider(directory: Path, redirect_uris: list[str]):
    """The provider, up (its discovery document served) until the block ends."""
    node = _installed()
    port = _free_port()
    accounts = directory / "accounts.json"
    accounts.write_text("{}")
    log_path = directory / "provider.log"
    env = {
        **os.environ,
        "OIDC_TEST_PORT": str(port),
        "OIDC_TEST_REDIRECT_URIS": ",".join(redirect_uris),
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


def signed_in_through(provider: Provider, client, login: str, start: str):
    """Sign `client` in at `start` (the app's sign-on address) as the provider's `login`,
    typed into the provider's own form; the app's last answer (its redirect after the
    callback)."""
    browser = requests.Session()
    answer = client.get(start)
    location = answer["Location"]
    while True:
        if not location.startswith(provider.issuer):
            # Back at the app: its callback, on the test client's host.
            return client.get(location.removeprefix("http://testserver"))
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
