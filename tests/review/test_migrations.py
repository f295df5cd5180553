"""The squashed migrations: a new database made by the squash has the schema the unsquashed
chain made (tables, indexes, constraints, triggers, and the groups), and a database made by an
earlier main, at any migration it released, migrates on through the files the squash replaces.

On SQLite the schema is compared with tests/review/schema_sqlite.txt, made from the chain
before the squash (tests/builders/schema.py says how); on PostgreSQL (DATABASE_URL set) with
the chain run again beside the squash, read from the catalog.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db.migrations.loader import MigrationLoader

from tests.builders.schema import (
    AS_OF,
    MIGRATIONS,
    applied,
    empty_database,
    migrate,
    old_chain,
    squashes,
)

SNAPSHOT = Path(__file__).with_name("schema_sqlite.txt")
ON_SQLITE = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
RELEASED = "0013_plan_queue_in_list_index"
LAST = {"0001_squashed_0013_plan_queue_in_list_index", "0015_merge_part14"}


def chain_schema(tmp_path: Path) -> list[str]:
    """The schema of an empty database migrated by the unsquashed chain."""
    if ON_SQLITE:
        return SNAPSHOT.read_text().splitlines()
    with empty_database(tmp_path) as (url, read):
        migrate(url, *AS_OF, env=old_chain(tmp_path))
        return read()


def test_the_squash_replaces_every_released_migration_and_their_files_stay():
    (squash,) = squashes()
    loader = MigrationLoader(None, ignore_no_migrations=True)
    replaced = {name for _, name in loader.disk_migrations["review", squash.stem].replaces}
    files = {path.stem for path in MIGRATIONS.glob("00*.py") if path not in squashes()}
    released = {name for name in files if name <= RELEASED}
    assert replaced == released
    assert "0001_initial" in replaced and RELEASED in replaced


def test_the_squash_imports_none_of_the_files_it_replaces():
    (squash,) = squashes()
    assert not re.search(r"review\.migrations|import_module", squash.read_text())


def test_the_part_14_merge_stays_a_node_a_next_migration_can_depend_on():
    loader = MigrationLoader(None, ignore_no_migrations=True)
    (leaf,) = [node for node in loader.graph.leaf_nodes() if node[0] == "review"]
    assert ("review", "0015_merge_part14") in loader.graph.forwards_plan(leaf)
    parents = {name for _, name in loader.graph.node_map["review", "0014_plan_superseded"].parents}
    assert parents == {squashes()[0].stem}


def test_an_empty_database_migrated_by_the_squash_has_the_chains_schema(tmp_path):
    expected = chain_schema(tmp_path)
    with empty_database(tmp_path) as (url, read):
        out = migrate(url, *AS_OF)
        assert f"Applying review.{squashes()[0].stem}... OK" in out
        assert "0002_groups_and_log_guard" not in out
        assert read() == expected
        assert applied(url) >= LAST


@pytest.mark.parametrize("released", ["0008_merge_review_policy", RELEASED])
def test_a_database_made_by_an_earlier_main_migrates_forward(tmp_path, released):
    expected = chain_schema(tmp_path)
    with empty_database(tmp_path) as (url, read):
        migrate(url, "review", released, env=old_chain(tmp_path))
        out = migrate(url, *AS_OF)
        assert "Applying review.0015_merge_part14... OK" in out
        assert "Applying review.0001_squashed" not in out
        assert read() == expected
        assert applied(url) >= LAST
