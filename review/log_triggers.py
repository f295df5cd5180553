"""Database triggers that make a log append-only underneath the ORM: the decision log
(installed by migration 0002) and the security log (migration 0030). Each log is one
`AppendOnly`; the same statements guard both, with the table and the message changed.

The test suite lifts them only to let Django flush the database between transactional tests,
and puts them back before the next test.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AppendOnly:
    """A table whose rows the database refuses to update or delete, and the refusal's words
    (no quote in them: they are written into the triggers' SQL)."""

    table: str
    message: str

    def sqlite_install(self) -> list[str]:
        table, message = self.table, self.message
        return [
            f"CREATE TRIGGER IF NOT EXISTS {table}_no_update BEFORE UPDATE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{message}'); END",
            f"CREATE TRIGGER IF NOT EXISTS {table}_no_delete BEFORE DELETE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{message}'); END",
        ]

    def sqlite_remove(self) -> list[str]:
        return [
            f"DROP TRIGGER IF EXISTS {self.table}_no_update",
            f"DROP TRIGGER IF EXISTS {self.table}_no_delete",
        ]

    def postgres_install(self) -> list[str]:
        table, message = self.table, self.message
        return [
            f"""CREATE OR REPLACE FUNCTION {table}_refuse() RETURNS trigger AS $$
    BEGIN RAISE EXCEPTION '{message}'; END; $$ LANGUAGE plpgsql""",
            f"DROP TRIGGER IF EXISTS {table}_no_change ON {table}",
            f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {table}_refuse()",
            f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}",
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {table}_refuse()",
        ]

    def postgres_remove(self) -> list[str]:
        return [
            f"DROP TRIGGER IF EXISTS {self.table}_no_change ON {self.table}",
            f"DROP TRIGGER IF EXISTS {self.table}_no_truncate ON {self.table}",
        ]


DECISION_LOG = AppendOnly("review_decision", "the decision log is append-only")
SECURITY_LOG = AppendOnly("review_securityevent", "the security log is append-only")
LOGS = (DECISION_LOG, SECURITY_LOG)


def _statements(log: AppendOnly, vendor: str, install: bool) -> list[str]:
    if vendor == "sqlite":
        return log.sqlite_install() if install else log.sqlite_remove()
    if vendor == "postgresql":
        return log.postgres_install() if install else log.postgres_remove()
    raise NotImplementedError(f"no append-only guard for the {vendor} database")


def install(connection, log: AppendOnly = DECISION_LOG) -> None:
    """Put `log`'s guard in place (the decision log's when none is named: the migrations
    written before the security log had one call it so)."""
    with connection.cursor() as cursor:
        for statement in _statements(log, connection.vendor, install=True):
            cursor.execute(statement)


def remove(connection, log: AppendOnly = DECISION_LOG) -> None:
    with connection.cursor() as cursor:
        for statement in _statements(log, connection.vendor, install=False):
            cursor.execute(statement)
