"""A real server in a subprocess, on its own database, for the test of many reviewers pressing
"Next" at once. pytest-django's live server shares one connection among its threads on
SQLite, which would hide the very races the test is for; a subprocess has one per request.

Run as a module inside the subprocess's environment to seed it:
`python -m tests.builders.queue_server REVIEWERS CASES` prints the reviewers' session keys.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from tests.builders.databases import database_beside

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def queue_server(tmp_path: Path, *, reviewers: int, cases: int):
    """Yields (base URL, session keys of `reviewers` moderators) with `cases` cases waiting."""
    with database_beside(tmp_path, "queue_race") as url:
        env = os.environ | {"DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "review.settings"}
        run = {"env": env, "cwd": ROOT, "check": True, "capture_output": True, "text": True}
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], **run)
        seeded = subprocess.run(  # noqa: S603 - our own module, with numbers
            [sys.executable, "-m", "tests.builders.queue_server", str(reviewers), str(cases)], **run
        )
        sessions = json.loads(seeded.stdout)
        port = _free_port()
        server = subprocess.Popen(  # noqa: S603 - our own manage.py
            [
                sys.executable,
                "manage.py",
                "runserver",
                "--noreload",
                "--nostatic",
                f"127.0.0.1:{port}",
            ],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(base)
            yield base, sessions
        finally:
            server.terminate()
            server.wait(timeout=20)


def _wait_until_up(base: str) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{base}/accounts/login/", timeout=2)  # noqa: S310 - http://127.0.0.1
            return
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.2)
    raise RuntimeError(f"the server at {base} did not start within {START_SECONDS} s")


def _seed(reviewers: int, cases: int) -> list[str]:
    import django

    django.setup()
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.auth.models import User
    from django.contrib.sessions.backends.db import SessionStore

    from tests.builders.cases_answers import make_case
    from tests.builders.users import member

    for number in range(cases):
        make_case(f"c-{number + 1}")
    keys = []
    for number in range(reviewers):
        user = User.objects.create_user(f"moderator{number + 1}")
        member(user, None, "moderator")
        # Signed in without a login request: the test is about Next, not about passwords.
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "review.backends.PasswordBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        keys.append(session.session_key)
    return keys


if __name__ == "__main__":
    print(json.dumps(_seed(int(sys.argv[1]), int(sys.argv[2]))))
