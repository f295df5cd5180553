"""For the tests of the task worker: the database backend's settings, and `manage.py
db_worker` run in a subprocess on the tests' own database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
WORKER_SECONDS = 120


def worker_env() -> dict[str, str]:
    """The environment of a process that uses the tests' database (committed data only: the
    test must be transactional)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        url = f"sqlite:///{db['NAME']}"
    else:
        login = quote(db["USER"]) + (f":{quote(db['PASSWORD'])}" if db["PASSWORD"] else "")
        url = f"postgres://{login}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    return {**os.environ, "DATABASE_URL": url, "DJANGO_ENV": "demo", "DJANGO_DEBUG": "0"}


def run_worker() -> subprocess.CompletedProcess:
    """Run every queued task, then exit."""
    return subprocess.run(  # noqa: S603 - our own manage.py with arguments we chose
        [sys.executable, "manage.py", "db_worker", "--batch", "--no-startup-delay", "--no-reload"],
        cwd=ROOT,
        env=worker_env(),
        capture_output=True,
        text=True,
        timeout=WORKER_SECONDS,
        check=True,
    )
