"""Database triggers that keep the cases queue's counts (`CaseFacet`): cases per validator
reason, evidence items per tool.

The database keeps them, in the transaction of every insert, update or delete, whichever
door wrote the rows (an import's bulk insert, the admin, a migration), so the queue reads a
few counter rows instead of grouping 700k evidence rows per request. A verdict changes
neither column, so deciding never touches a counter row.

On PostgreSQL the triggers are per statement, over its transition tables: a bulk insert of
5,000 rows adds one grouped upsert, not 5,000. Upserts run in the order of the value, so two
imports touching the same counters wait for each other rather than deadlock. SQLite has only
row triggers; its instances are small.

Installed by migration 0009 and again after every `migrate` (see `ReviewConfig.ready`): on
SQLite, a later migration that remakes a table drops its triggers with it.

A plan's counters are not kept this way: they move with a decision, whose hook
(`Entry.on_decision`) updates the plan's row before the entry's, which is also the locked
re-check that the plan is still open; a trigger on the entry would take the entry's row
first, the opposite order to adjudication's (plan, then entries).
"""

from __future__ import annotations

FACETS = "review_casefacet"
# (facet, table, column): what each counter counts.
COUNTED = [("reason", "review_case", "validator_reason"), ("tool", "review_evidence", "tool")]


def _sqlite(facet: str, table: str, column: str) -> list[str]:
    # Every name in these statements is one of this module's constants.
    def add(row: str) -> str:
        upsert = "ON CONFLICT (kind, value) DO UPDATE SET count = count + 1"
        return f"INSERT INTO {FACETS} (kind, value, count) VALUES ('{facet}', {row}.{column}, 1) {upsert};"  # noqa: E501, S608

    def take(row: str) -> str:
        where = f"kind = '{facet}' AND value = {row}.{column}"
        return f"UPDATE {FACETS} SET count = count - 1 WHERE {where};"  # noqa: S608

    name = f"{table}_{facet}_facet"
    return [
        f"CREATE TRIGGER IF NOT EXISTS {name}_insert AFTER INSERT ON {table} "
        f"BEGIN {add('NEW')} END",
        f"CREATE TRIGGER IF NOT EXISTS {name}_delete AFTER DELETE ON {table} "
        f"BEGIN {take('OLD')} END",
        f"CREATE TRIGGER IF NOT EXISTS {name}_update AFTER UPDATE OF {column} ON {table} "
        f"WHEN OLD.{column} IS NOT NEW.{column} BEGIN {take('OLD')} {add('NEW')} END",
    ]


def _postgres(facet: str, table: str, column: str) -> list[str]:
    name = f"{table}_{facet}_facet"
    # What each kind of statement adds to the counters, as (value, delta) rows.
    deltas = {
        "insert": f"SELECT {column} AS value, 1 AS n FROM new_rows",  # noqa: S608
        "delete": f"SELECT {column} AS value, -1 AS n FROM old_rows",  # noqa: S608
        # Only rows whose value changed: a verdict's UPDATE of a case adds nothing.
        "update": f"""SELECT new_rows.{column} AS value, 1 AS n
              FROM new_rows JOIN old_rows USING (id)
              WHERE new_rows.{column} IS DISTINCT FROM old_rows.{column}
            UNION ALL
            SELECT old_rows.{column}, -1
              FROM new_rows JOIN old_rows USING (id)
              WHERE new_rows.{column} IS DISTINCT FROM old_rows.{column}""",  # noqa: S608
    }
    tables = {
        "insert": "NEW TABLE AS new_rows",
        "delete": "OLD TABLE AS old_rows",
        "update": "OLD TABLE AS old_rows NEW TABLE AS new_rows",
    }
    statements = []
    for event, delta in deltas.items():
        function = f"{name}_{event}"
        statements += [
            f"""CREATE OR REPLACE FUNCTION {function}() RETURNS trigger AS $$
            BEGIN
              INSERT INTO {FACETS} (kind, value, count)
              SELECT '{facet}', value, sum(n) FROM ({delta}) AS delta
              GROUP BY value HAVING sum(n) <> 0 ORDER BY value
              ON CONFLICT (kind, value) DO UPDATE SET count = {FACETS}.count + EXCLUDED.count;
              RETURN NULL;
            END; $$ LANGUAGE plpgsql""",  # noqa: S608
            f"DROP TRIGGER IF EXISTS {function} ON {table}",
            f"CREATE TRIGGER {function} AFTER {event.upper()} ON {table} "
            f"REFERENCING {tables[event]} FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
        ]
    return statements


def _remove(vendor: str, facet: str, table: str) -> list[str]:
    name = f"{table}_{facet}_facet"
    events = ("insert", "delete", "update")
    if vendor == "sqlite":
        return [f"DROP TRIGGER IF EXISTS {name}_{event}" for event in events]
    return [f"DROP TRIGGER IF EXISTS {name}_{event} ON {table}" for event in events] + [
        f"DROP FUNCTION IF EXISTS {name}_{event}()" for event in events
    ]


def _install(vendor: str) -> list[str]:
    if vendor == "sqlite":
        return [sql for counted in COUNTED for sql in _sqlite(*counted)]
    if vendor == "postgresql":
        return [sql for counted in COUNTED for sql in _postgres(*counted)]
    raise NotImplementedError(f"no counter triggers for the {vendor} database")


def install(connection) -> None:
    with connection.cursor() as cursor:
        for statement in _install(connection.vendor):
            cursor.execute(statement)


def remove(connection) -> None:
    with connection.cursor() as cursor:
        for facet, table, _ in COUNTED:
            for statement in _remove(connection.vendor, facet, table):
                cursor.execute(statement)


def recount(connection) -> None:
    """Set every counter from the rows themselves (when the triggers are first installed)."""
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {FACETS}")  # noqa: S608
        for facet, table, column in COUNTED:
            counted = f"SELECT '{facet}', {column}, COUNT(*) FROM {table} GROUP BY {column}"  # noqa: S608
            cursor.execute(f"INSERT INTO {FACETS} (kind, value, count) {counted}")
