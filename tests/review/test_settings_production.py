"""Production settings: what the app refuses to start without, that the deployment check is clean,
that whitenoise serves hashed static files with DEBUG off, the security headers, and gunicorn
with the project's config serving all that.

Settings are read once per process, so each production case runs in a fresh Python with the
environment a deployment would give it.
"""

from __future__ import annotations

import http.client
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from review import settings as demo_settings

ROOT = Path(__file__).resolve().parents[2]

# What a page looks like from outside, asked through Django's test client in the child process.
FETCH = """
import json, sys
import django
django.setup()
from django.test import Client
client = Client(HTTP_HOST="review.example.org")
answers = []
for path, secure in json.loads(sys.argv[1]):
    response = client.get(path, secure=secure)
    body = b"".join(response) if response.streaming else response.content
    answers.append({"status": response.status_code, "headers": dict(response.headers),
                    "body": body.decode("utf-8", "replace"),
                    "cookies": {name: bool(c["secure"]) for name, c in response.cookies.items()}})
print(json.dumps(answers))
"""


@pytest.fixture
def production(tmp_path) -> dict[str, str]:
    """The environment of a deployment: its own key, host name and database."""
    inherited = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("DJANGO_") and name != "DATABASE_URL"
    }
    return {
        **inherited,
        "DJANGO_ENV": "production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "review.example.org",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'review.sqlite3'}",
        "DJANGO_STATIC_ROOT": str(tmp_path / "static"),
    }


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603 - our own manage.py with arguments we chose
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def fetch(env: dict[str, str], *requests: tuple[str, bool]) -> list[dict]:
    """Each (path, over HTTPS) as the server answers it; pages need `collectstatic` first."""
    finished = subprocess.run(  # noqa: S603 - our own snippet, run with this Python
        [sys.executable, "-c", FETCH, json.dumps(requests)],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "review.settings"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    return json.loads(finished.stdout)


@pytest.fixture
def collected(production) -> dict[str, str]:
    """A deployment whose static files `make serve` has collected."""
    finished = manage(production, "collectstatic", "--noinput")
    assert finished.returncode == 0, finished.stderr
    return production


def test_the_deployment_check_is_clean_under_production_settings(production):
    finished = manage(production, "check", "--deploy", "--fail-level", "WARNING")

    assert finished.returncode == 0, finished.stderr
    assert "no issues" in finished.stdout


def test_the_deployment_check_flags_the_demo_key_and_debug_in_the_demo(production):
    demo = {**production, "DJANGO_ENV": "demo", "DJANGO_SECRET_KEY": ""}

    finished = manage(demo, "check", "--deploy", "--fail-level", "WARNING")

    assert finished.returncode != 0
    assert "security.W009" in finished.stderr  # the published demo key
    assert "security.W018" in finished.stderr  # DEBUG on


@pytest.mark.parametrize("name", ["DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL"])
def test_production_refuses_to_start_without_what_it_needs_and_names_it(production, name):
    del production[name]

    finished = manage(production, "check")

    assert finished.returncode != 0
    assert f"ImproperlyConfigured: {name} is not set." in finished.stderr


def test_production_refuses_the_published_demo_key(production):
    production["DJANGO_SECRET_KEY"] = demo_settings.DEMO_SECRET_KEY

    finished = manage(production, "check")

    assert finished.returncode != 0
    assert "DJANGO_SECRET_KEY is the demo key" in finished.stderr


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DJANGO_DEBUG", "1", "DJANGO_DEBUG=1 is refused with DJANGO_ENV=production"),
        ("DJANGO_ENV", "staging", "DJANGO_ENV must be one of demo, production, not 'staging'"),
        ("DJANGO_SECURE_SSL_REDIRECT", "yes", "DJANGO_SECURE_SSL_REDIRECT must be 0 or 1"),
        ("DJANGO_SECURE_HSTS_SECONDS", "-1", "DJANGO_SECURE_HSTS_SECONDS must be a whole number"),
        ("DJANGO_SECURE_HSTS_SECONDS", "99999999999", "from 0 to 63072000"),
        # A limit of 0 would refuse every sign-in, a cool-off of 0 none.
        ("REVIEW_SIGN_IN_FAILURE_LIMIT", "0", "must be a whole number from 1 to 1000"),
        ("REVIEW_SIGN_IN_COOLOFF_SECONDS", "0", "of seconds from 1 to 86400"),
        ("REVIEW_SITE_URL", "review.example.org", "REVIEW_SITE_URL must start with https://"),
        ("REVIEW_WEBHOOK_ALLOWED_NETWORKS", "10.0.0.0/33", "'10.0.0.0/33' is not a network"),
        (
            "REVIEW_WEBHOOK_RETRY_SECONDS",
            "60,soon",
            "REVIEW_WEBHOOK_RETRY_SECONDS must be up to 50",
        ),
        ("REVIEW_WEBHOOK_TIMEOUT_SECONDS", "0", "of seconds from 1 to 60"),
    ],
)
def test_a_bad_setting_in_the_environment_is_refused_by_name(production, name, value, message):
    production[name] = value

    finished = manage(production, "check")

    assert finished.returncode != 0
    assert message in finished.stderr


def test_whitenoise_serves_a_hashed_static_file_with_debug_off(collected):
    (login,) = fetch(collected, ("/accounts/login/", True))
    (stylesheet,) = [
        line.split('href="/', 1)[1].split('"', 1)[0]
        for line in login["body"].splitlines()
        if "stylesheet" in line
    ]
    (served,) = fetch(collected, ("/" + stylesheet, True))

    assert stylesheet != "static/review/app.css"
    assert stylesheet.startswith("static/review/app.") and stylesheet.endswith(".css")
    assert served["status"] == 200
    assert "immutable" in served["headers"]["Cache-Control"]
    assert served["body"] == (ROOT / "static" / "review" / "app.css").read_text()


def test_production_sends_csp_permissions_policy_and_hsts_and_redirects_plain_http(collected):
    login = "/accounts/login/"
    over_https, over_http = fetch(collected, (login, True), (login, False))

    headers = over_https["headers"]
    directives = headers["Content-Security-Policy"].split(";")
    policy = dict(directive.strip().split(" ", 1) for directive in directives)
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'"
    assert "unsafe" not in headers["Content-Security-Policy"]
    assert "camera=()" in headers["Permissions-Policy"]
    assert "geolocation=()" in headers["Permissions-Policy"]
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    assert headers["X-Frame-Options"] == "DENY"
    assert over_https["cookies"] == {"csrftoken": True}  # sent over HTTPS only
    assert over_http["status"] == 301
    assert over_http["headers"]["Location"] == "https://review.example.org/accounts/login/"


def test_the_demo_sends_the_same_policy_but_no_hsts(client, db):
    response = client.get("/accounts/login/")

    assert "default-src 'none'" in response.headers["Content-Security-Policy"]
    assert "camera=()" in response.headers["Permissions-Policy"]
    assert "Strict-Transport-Security" not in response.headers


def test_no_password_reset_page_is_served_when_no_mail_is_configured(client, db):
    # Without mail, a reset page would promise a message nobody sends.
    for name in (
        "password_reset",
        "password_reset/done",
        "reset/MQ/set-password",
        "password_change",
    ):
        assert client.get(f"/accounts/{name}/").status_code == 404, name


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ask(port: int, path: str, headers: dict[str, str]) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path, headers={"Host": "review.example.org", **headers})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def wait_until_listening(server: subprocess.Popen, port: int) -> None:
    for _ in range(300):  # up to about 30 s for the workers to boot
        assert server.poll() is None, server.stderr.read()
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    pytest.fail("gunicorn did not start listening")


def test_gunicorn_with_the_projects_config_serves_production_behind_an_https_proxy(collected):
    port = free_port()
    env = {**collected, "HOST": "127.0.0.1", "PORT": str(port), "WEB_CONCURRENCY": "2"}
    del env["DJANGO_ENV"]  # the config file chooses production by itself
    server = subprocess.Popen(  # noqa: S603 - the project's gunicorn and config
        [str(Path(sys.executable).with_name("gunicorn")), "--config", "gunicorn.conf.py"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_until_listening(server, port)
        plain = ask(port, "/accounts/login/", {})
        proxied = ask(port, "/accounts/login/", {"X-Forwarded-Proto": "https"})
    finally:
        server.terminate()
        server.communicate(timeout=30)

    assert plain.status == 301
    assert plain.getheader("Location") == "https://review.example.org/accounts/login/"
    assert proxied.status == 200
    assert proxied.getheader("Strict-Transport-Security").startswith("max-age=31536000")
    assert "default-src 'none'" in proxied.getheader("Content-Security-Policy")


CHECK_PASSWORD = """
import sys
import django
django.setup()
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
try:
    validate_password(sys.argv[1])
except ValidationError as refused:
    print(" ".join(refused.messages))
    raise SystemExit(1)
"""


def check_password(env: dict[str, str], password: str) -> subprocess.CompletedProcess:
    return subprocess.run(  # noqa: S603 - our own snippet, run with this Python
        [sys.executable, "-c", CHECK_PASSWORD, password],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "review.settings"},
        capture_output=True,
        text=True,
        check=False,
    )


def test_production_refuses_a_weak_password_and_takes_a_strong_one(production):
    weak = check_password(production, "demo")
    strong = check_password(production, secrets.token_urlsafe(16))

    assert weak.returncode == 1, weak.stderr
    assert "too short" in weak.stdout and "too common" in weak.stdout
    assert strong.returncode == 0, strong.stdout + strong.stderr


def test_the_demo_takes_its_shared_password(production):
    demo = {**production, "DJANGO_ENV": "demo", "DJANGO_SECRET_KEY": ""}

    assert check_password(demo, "demo").returncode == 0
