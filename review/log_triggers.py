"""Database triggers that make the decision log append-only underneath the ORM.

Installed by migration 0002. The test suite lifts them only to let Django flush the
database between transactional tests, and puts them back before the next test.
"""

from __future__ import annotations

TABLE = "review_decision"
MESSAGE = "the decision log is append-only"

_SQLITE_INSTALL = [
    f"CREATE TRIGGER IF NOT EXISTS {TABLE}_no_update BEFORE UPDATE ON {TABLE} "
    f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END",
    f"CREATE TRIGGER IF NOT EXISTS {TABLE}_no_delete BEFORE DELETE ON {TABLE} "
    f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END",
]
_SQLITE_REMOVE = [
    f"DROP TRIGGER IF EXISTS {TABLE}_no_update",
    f"DROP TRIGGER IF EXISTS {TABLE}_no_delete",
]

_POSTGRES_INSTALL = [
    f"""CREATE OR REPLACE FUNCTION {TABLE}_refuse() RETURNS trigger AS $$
    BEGIN RAISE EXCEPTION '{MESSAGE}'; END; $$ LANGUAGE plpgsql""",
    f"DROP TRIGGER IF EXISTS {TABLE}_no_change ON {TABLE}",
    f"CREATE TRIGGER {TABLE}_no_change BEFORE UPDATE OR DELETE ON {TABLE} "
    f"FOR EACH ROW EXECUTE FUNCTION {TABLE}_refuse()",
    f"DROP TRIGGER IF EXISTS {TABLE}_no_truncate ON {TABLE}",
    f"CREATE TRIGGER {TABLE}_no_truncate BEFORE TRUNCATE ON {TABLE} "
    f"FOR EACH STATEMENT EXECUTE FUNCTION {TABLE}_refuse()",
]
_POSTGRES_REMOVE = [
    f"DROP TRIGGER IF EXISTS {TABLE}_no_change ON {TABLE}",
    f"DROP TRIGGER IF EXISTS {TABLE}_no_truncate ON {TABLE}",
]


def _statements(vendor: str, install: bool) -> list[str]:
    if vendor == "sqlite":
        return _SQLITE_INSTALL if install else _SQLITE_REMOVE
    if vendor == "postgresql":
        return _POSTGRES_INSTALL if install else _POSTGRES_REMOVE
    raise NotImplementedError(f"no append-only guard for the {vendor} database")


def install(connection) -> None:
    with connection.cursor() as cursor:
        for statement in _statements(connection.vendor, install=True):
            cursor.execute(statement)


def remove(connection) -> None:
    with connection.cursor() as cursor:
        for statement in _statements(connection.vendor, install=False):
            cursor.execute(statement)
