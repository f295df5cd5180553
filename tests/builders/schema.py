"""The schema the migrations leave in an empty database, read back from the catalog, for the
tests of the squashed migrations (tests/review/test_migrations.py).

Each database here is migrated by `manage.py migrate` in a subprocess, so the test's own
database and connection stay as they are. `old_chain` gives the unsquashed migrations alone
(the files a squash replaces, without the squash), as a database made by an earlier main
knew them.

The committed snapshot tests/review/schema_sqlite.txt was made from the unsquashed chain
before the squash, with

    .venv/bin/python -m tests.builders.schema > tests/review/schema_sqlite.txt

(which reads the unsquashed chain still, so it can be made again the same way).
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.builders.databases import database_beside

ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = ROOT / "review" / "migrations"
MIGRATE_SECONDS = 300
# What the schema is compared at: the squash and part 14's migrations after it, so a migration
# added later changes neither side (the other apps are migrated as far as these need).
AS_OF = ("review", "0015_merge_part14")


def squashes() -> list[Path]:
    """The squashed migrations: their names say which they replace (`0001_squashed_...`)."""
    return sorted(MIGRATIONS.glob("*_squashed_*.py"))


def old_chain(into: Path) -> dict[str, str]:
    """Settings that migrate `review` with the unsquashed files only: a copy of the app's
    migrations without the squashes, named by a settings module written into a new folder
    in `into`."""
    into = Path(tempfile.mkdtemp(dir=into))
    package = into / "unsquashed_migrations"
    package.mkdir()
    for path in MIGRATIONS.glob("*.py"):
        if path not in squashes():
            shutil.copy(path, package / path.name)
    (into / "unsquashed_settings.py").write_text(
        "from review.settings import *  # noqa: F403\n"
        'MIGRATION_MODULES = {"review": "unsquashed_migrations"}\n'
    )
    return {
        "DJANGO_SETTINGS_MODULE": "unsquashed_settings",
        "PYTHONPATH": f"{into}{os.pathsep}{ROOT}",
    }


def manage(url: str, *args: str, env: dict[str, str] | None = None) -> str:
    """Run `manage.py` with `args` on the database at `url`; its output."""
    done = subprocess.run(  # noqa: S603 - our own manage.py with arguments we chose
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, "DJANGO_ENV": "demo", "DJANGO_DEBUG": "0", "DATABASE_URL": url}
        | (env or {}),
        capture_output=True,
        text=True,
        timeout=MIGRATE_SECONDS,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def migrate(url: str, *target: str, env: dict[str, str] | None = None) -> str:
    """`manage.py migrate` on the database at `url`, to `target` if given."""
    return manage(url, "migrate", "--noinput", *target, env=env)


def applied(url: str, env: dict[str, str] | None = None) -> set[str]:
    """The `review` migrations the database at `url` records as applied."""
    out = manage(url, "showmigrations", "review", "--list", env=env)
    return {line[5:].split(" ")[0] for line in out.splitlines() if line.startswith(" [X] ")}


def _items(body: str) -> list[str]:
    """The top-level comma-separated items of a CREATE TABLE's parenthesis."""
    items, depth, start = [], 0, 0
    for at, char in enumerate(body):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            items.append(body[start:at].strip())
            start = at + 1
    return [*items, body[start:].strip()]


def _normalised(kind: str, sql: str) -> str:
    """One line per object: whitespace collapsed, and a table's columns and constraints in
    sorted order (SQLite keeps a column added later at the end, in the words it was added
    with, where a table made whole lists it among the others)."""
    sql = re.sub(r"\s+", " ", sql).strip()
    if kind != "table":
        return sql
    head, _, rest = sql.partition("(")
    return f"{head.strip()} ({', '.join(sorted(_items(rest.rstrip()[:-1])))})"


def sqlite_schema(path: Path) -> list[str]:
    """Every table, index and trigger of the SQLite database at `path`, normalised, and the
    groups the migrations make (the rows they write, beside the schema)."""
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL "
            "AND name NOT LIKE 'sqlite_%' ORDER BY type, name"
        ).fetchall()
        groups = db.execute("SELECT name FROM auth_group ORDER BY name").fetchall()
    return [f"{kind} {name}: {_normalised(kind, sql)}" for kind, name, sql in rows] + [
        f"group {name}" for (name,) in groups
    ]


POSTGRES_CATALOG = {
    "column": """SELECT table_name || '.' || column_name, data_type || ' null=' || is_nullable
        || ' default=' || coalesce(column_default, '') || ' generated='
        || coalesce(generation_expression, '')
        FROM information_schema.columns WHERE table_schema = 'public'""",
    "index": """SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'""",
    "constraint": """SELECT conrelid::regclass || '.' || conname, pg_get_constraintdef(oid)
        FROM pg_constraint WHERE connamespace = 'public'::regnamespace""",
    "trigger": """SELECT tgrelid::regclass || '.' || tgname, pg_get_triggerdef(oid)
        FROM pg_trigger WHERE NOT tgisinternal""",
    "function": """SELECT proname, md5(prosrc) FROM pg_proc
        WHERE pronamespace = 'public'::regnamespace""",
    "group": """SELECT name, '' FROM auth_group""",
}


def postgres_schema(cursor) -> list[str]:
    """Every column, index, constraint, trigger and function of the database `cursor` reads,
    and the groups the migrations make."""
    rows = []
    for kind, query in POSTGRES_CATALOG.items():
        cursor.execute(query)
        rows += [f"{kind} {name}: {definition}" for name, definition in cursor.fetchall()]
    return sorted(rows)


def chain_sqlite_schema() -> list[str]:
    """The schema the unsquashed chain leaves in an empty SQLite database."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chain.sqlite3"
        migrate(f"sqlite:///{path}", *AS_OF, env=old_chain(Path(folder)))
        return sqlite_schema(path)


if __name__ == "__main__":
    sys.stdout.write("".join(f"{line}\n" for line in chain_sqlite_schema()))


@contextmanager
def empty_database(tmp_path: Path) -> Iterator[tuple[str, Callable[[], list[str]]]]:
    """A new empty database beside the tests' own (SQLite or PostgreSQL, as the tests run):
    its URL, and a function that reads its schema."""
    with database_beside(tmp_path, "schema") as url:
        if url.startswith("sqlite"):
            yield url, lambda: sqlite_schema(Path(url.removeprefix("sqlite:///")))
            return
        import psycopg

        def read() -> list[str]:
            with psycopg.connect(url) as connection:
                return postgres_schema(connection.cursor())

        yield url, read
