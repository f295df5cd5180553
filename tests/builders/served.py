"""A real server for the suites that reach the app only over HTTP (the trust suite, the
client's): gunicorn on a free loopback port, DEBUG off, on a database of its own (PostgreSQL
when DATABASE_URL points at it, else a SQLite file), migrated, optionally loaded with the demo
data and with the task worker beside it, its people signed up by `manage.py shell`.

The server is a subprocess, so the tests that use it reach it only over HTTP, as a reviewer or
a pipeline would; they do not use pytest-django's database.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import requests

ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 60
STOP_SECONDS = 30

# Run inside `manage.py shell`: the people of a served suite, each with a key and a session
# made here (signing fifty people in over HTTP would spend a minute hashing passwords).
SIGN_UP = """
import hashlib, json
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from review.actions.tokens import create_token
from review.models import ApiToken, Project
from tests.builders.users import ROLE_OF, member
sessions = {{}}
for name, group, staff, slug in json.loads('{people}'):
    user = User.objects.create_user(name, is_staff=staff)
    role = ROLE_OF[group or None]
    member(user, Project.objects.get(slug=slug), *([role] if role else []))
    create_token(user, "trust", key=f"key-{{name}}")
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "review.backends.PasswordBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    sessions[name] = session.session_key
print(json.dumps(sessions))
"""


@dataclass
class Server:
    url: str
    env: dict
    # username -> session key: each reviewer signs in with a session of their own.
    sessions: dict[str, str]

    def key(self, username: str) -> str:
        return f"key-{username}"

    def manage(self, *args: str, stdin: str | None = None) -> str:
        return manage(self.env, *args, stdin=stdin)


def manage(env: dict, *args: str, stdin: str | None = None) -> str:
    finished = subprocess.run(  # noqa: S603 - our own manage.py with arguments we chose
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if finished.returncode != 0:
        raise AssertionError(f"manage.py {' '.join(args)} failed:\n{finished.stderr[-3000:]}")
    return finished.stdout


def is_postgres() -> bool:
    return os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _maintenance(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/postgres"))


def _create_database(tmp: Path) -> tuple[str, callable]:
    """A database URL of the suite's own, and how to drop it afterwards."""
    if not is_postgres():
        return f"sqlite:///{tmp / 'served.sqlite3'}", lambda: None
    import psycopg

    base = os.environ["DATABASE_URL"]
    name = f"trust_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_maintenance(base), autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(_maintenance(base), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return urlunsplit(urlsplit(base)._replace(path=f"/{name}")), drop


def people(editors: int, moderators: int) -> list[tuple[str, str, bool, str]]:
    """(username, old group, staff?, the slug of the project they work in): the demo reviews
    its plans in "default" and its cases in "moderation"."""
    return (
        [(f"editor-{n}", "Editors", False, "default") for n in range(editors)]
        + [(f"moderator-{n}", "Moderators", False, "moderation") for n in range(moderators)]
        + [("pipeline", "", True, "default"), ("reader-0", "Readers", False, "default")]
    )


@contextmanager
def served(
    tmp: Path,
    who: list[tuple[str, str, bool, str]],
    *,
    demo: bool = True,
    worker: bool = False,
    settings: dict[str, str] | None = None,
) -> Iterator[Server]:
    """gunicorn serving a database of its own with `who` signed up (see `people`); with
    `demo`, the demo data loaded first; with `worker`, `manage.py db_worker` running beside
    it, as `make serve` runs it; `settings` adds environment variables to both."""
    database_url, drop = _create_database(tmp)
    # Production settings, as `make serve` runs them (gunicorn reads gunicorn.conf.py from the
    # working directory), less what needs HTTPS: the suite talks plain HTTP on loopback.
    env = {
        **os.environ,
        "DJANGO_ENV": "production",
        "DATABASE_URL": database_url,
        "DJANGO_SECRET_KEY": "trust-suite-" + uuid.uuid4().hex,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_SECURE_COOKIES": "0",
        "DJANGO_STATIC_ROOT": str(tmp / "static"),
        **(settings or {}),
    }
    processes: list[subprocess.Popen] = []
    try:
        manage(env, "collectstatic", "--noinput", "--verbosity", "0")
        manage(env, "migrate", "--noinput")
        if demo:
            manage(env, "demo")
        sessions = json.loads(
            manage(env, "shell", "--no-imports", stdin=SIGN_UP.format(people=json.dumps(who)))
        )
        port = free_port()
        log = (tmp / "gunicorn.log").open("w")
        processes.append(subprocess.Popen(  # noqa: S603 - gunicorn with arguments we chose
            [
                sys.executable, "-m", "gunicorn", "review.wsgi:application",
                "--bind", f"127.0.0.1:{port}",
                "--workers", "3", "--worker-class", "gthread", "--threads", "8",
                "--timeout", "60", "--no-control-socket",
            ],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        ))  # fmt: skip
        if worker:
            worker_log = (tmp / "worker.log").open("w")
            processes.append(subprocess.Popen(  # noqa: S603 - our own manage.py
                [sys.executable, "manage.py", "db_worker", "--no-reload", "--no-startup-delay"],
                cwd=ROOT, env=env, stdout=worker_log, stderr=subprocess.STDOUT,
            ))  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        _wait_until_up(url, processes[0], tmp / "gunicorn.log")
        yield Server(url=url, env=env, sessions=sessions)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
        drop()


def _wait_until_up(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited:\n{log.read_text()[-3000:]}")
        try:
            if requests.get(f"{url}/api/openapi.json", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.3)
    raise AssertionError(f"the server did not answer in {STARTUP_SECONDS} s")
