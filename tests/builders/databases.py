"""A database of its own for a test that runs `manage.py` in a subprocess beside the tests'
own database: an SQLite file, or a new PostgreSQL database on the server DATABASE_URL names."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def database_beside(tmp_path: Path, prefix: str) -> Iterator[str]:
    """Yields the URL of a new empty database (a PostgreSQL one is dropped after)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        yield f"sqlite:///{tmp_path / f'{prefix}_{uuid.uuid4().hex[:12]}.sqlite3'}"
        return
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    base, _, _ = url.partition("?")[0].rpartition("/")
    # Made from the server's maintenance database: the one DATABASE_URL names may not exist
    # (the suite's own test database is made beside it, too).
    maintenance = f"{base}/postgres"
    with psycopg.connect(maintenance, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(maintenance, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
