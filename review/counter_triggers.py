"""Database triggers that keep every stored counter: the cases queue's (`CaseFacet`: cases per
validator reason, evidence items per tool) and each plan's (`Plan.count_<key>`: its entries
per state, anchors to settle, entries that need a person).

One mechanism for both, the database's: the counters move in the transaction of every insert,
update or delete, whichever door wrote the rows (a decision, a proposal's, an import's or a
revision's bulk insert, a queryset update, the admin, a migration), so no page groups rows to
show a count and no door has to remember to recount. `manage.py recount` stays, as a repair.

On PostgreSQL the triggers are per statement, over its transition tables: a bulk insert of
5,000 rows adds one grouped statement per counter table, not 5,000. SQLite has only row
triggers; its instances are small.

Lock order. Facet upserts run in the order of the value, and a statement's plans are locked in
the order of their ids, so two statements touching the same counters wait for each other
rather than deadlock. A plan's counters move after its entry's row is written; a decision
takes the plan's row first (`Entry.on_decision`, which is also the locked re-check that the
plan is still open), as adjudication does (the plan, then its entries), so the trigger's
UPDATE finds the plan's row already held and the two take rows in one order.

What each plan counter counts has one home, `count_aggregates`: each of its counts' filters is
compiled by the ORM into what one entry row adds (1 or 0), which a trigger adds for the rows a
statement wrote and takes away for the rows it replaced or deleted. SQLite's row trigger does
that in one UPDATE of the plan's row, and fires only when a column the counters read changed;
a grouped count over a one-row subquery instead made an accept-all of 600 entries take twice
as long (`bench_plan_views`' plan, accepted by rule).

Installed by migrations (0009 the facets, 0017 the plans') and again after every `migrate` (see
`ReviewConfig.ready`): on SQLite, a later migration that remakes a table drops its triggers
with it, and one that remakes the plans' table fails while a trigger on the entries names it,
so there the plans' triggers are lifted for the migrations and put back, with a recount, after
them. Benchmarks: `bench_scale` (the cases queue at 200,000 cases), `bench_plan_views` (an
Accept and an Undo on a 600-entry plan).
"""

from __future__ import annotations

import re

FACETS = "review_casefacet"
# (facet, table, column, via): what each facet counter counts, in each project: a case's own,
# or for a row that has none (evidence), its case's, through the column `via` names.
COUNTED = [
    ("reason", "review_case", "validator_reason", None),
    ("tool", "review_evidence", "tool", "case_id"),
]
CASES = "review_case"
# The migration from which the counters are kept per project; those before it (0009 and the
# squashed 0001) install them as they were then, one count for the whole installation, since
# at their point of the schema the counters have no project.
PROJECT_FACETS_MIGRATION = ("review", "0024_case_facet_project")

ENTRIES, PLANS = "review_entry", "review_plan"
PLAN_COUNTS = f"{ENTRIES}_plan_counts"
# The rows whose tallies each kind of statement adds to (+1) or takes from (-1) their plans.
SIGNED_ROWS = {
    "insert": ((1, "new"),),
    "delete": ((-1, "old"),),
    "update": ((1, "new"), (-1, "old")),
}


# --- the cases queue's facets --------------------------------------------------------------


def _facet_sqlite(facet: str, table: str, column: str, via, projected: bool) -> list[str]:
    # Every name in these statements is one of this module's constants.
    def project(row: str) -> str:
        if via is None:
            return f"{row}.project_id"
        return f"(SELECT project_id FROM {CASES} WHERE id = {row}.{via})"  # noqa: S608

    keys = "project_id, kind, value" if projected else "kind, value"

    def add(row: str) -> str:
        upsert = f"ON CONFLICT ({keys}) DO UPDATE SET count = count + 1"
        values = f"{project(row)}, '{facet}'" if projected else f"'{facet}'"
        return (
            f"INSERT INTO {FACETS} ({keys}, count) VALUES ({values}, {row}.{column}, 1) {upsert};"  # noqa: E501, S608
        )

    def take(row: str) -> str:
        where = f"kind = '{facet}' AND value = {row}.{column}"
        if projected:
            where = f"project_id = {project(row)} AND {where}"
        return f"UPDATE {FACETS} SET count = count - 1 WHERE {where};"  # noqa: S608

    name = f"{table}_{facet}_facet"
    # A case that moved to another project moves its count (its evidence does not move).
    watched, changed = column, f"OLD.{column} IS NOT NEW.{column}"
    if projected and via is None:
        watched, changed = (
            f"{column}, project_id",
            f"{changed} OR OLD.project_id IS NOT NEW.project_id",
        )
    return [
        f"CREATE TRIGGER IF NOT EXISTS {name}_insert AFTER INSERT ON {table} "
        f"BEGIN {add('NEW')} END",
        f"CREATE TRIGGER IF NOT EXISTS {name}_delete AFTER DELETE ON {table} "
        f"BEGIN {take('OLD')} END",
        f"CREATE TRIGGER IF NOT EXISTS {name}_update AFTER UPDATE OF {watched} ON {table} "
        f"WHEN {changed} BEGIN {take('OLD')} {add('NEW')} END",
    ]


def _facet_postgres(facet: str, table: str, column: str, via, projected: bool) -> list[str]:
    name = f"{table}_{facet}_facet"
    # The statement's rows written (`added`) and replaced or deleted (`gone`); not aliased
    # new and old, which PL/pgSQL would read as its row variables.
    alias = {"new": "added", "old": "gone"}

    def rows(which: str) -> str:
        """The transition table `which`, with `project` the project each row counts in."""
        named = alias[which]
        if not projected:
            return f"{which}_rows AS {named}"
        if via is None:
            return f"(SELECT *, project_id AS project FROM {which}_rows) AS {named}"  # noqa: S608
        return (
            f"(SELECT r.*, c.project_id AS project FROM {which}_rows r "  # noqa: S608
            f"JOIN {CASES} c ON c.id = r.{via}) AS {named}"
        )

    def keyed(which: str) -> str:
        """What a row adds to: ([its project,] its value)."""
        named = alias[which]
        return f"{named}.project, {named}.{column}" if projected else f"{named}.{column}"

    moved = f"added.{column} IS DISTINCT FROM gone.{column}"
    if projected:
        moved += " OR added.project IS DISTINCT FROM gone.project"
    both = f"{rows('new')} JOIN {rows('old')} USING (id)"
    # What each kind of statement adds to the counters, as ([project,] value, delta) rows.
    deltas = {
        "insert": f"SELECT {keyed('new')}, 1 FROM {rows('new')}",  # noqa: S608
        "delete": f"SELECT {keyed('old')}, -1 FROM {rows('old')}",  # noqa: S608
        # Only rows whose value (or project) changed: a verdict's UPDATE of a case adds nothing.
        "update": f"SELECT {keyed('new')}, 1 FROM {both} WHERE {moved} "  # noqa: S608
        f"UNION ALL SELECT {keyed('old')}, -1 FROM {both} WHERE {moved}",
    }
    columns = "project, value, n" if projected else "value, n"
    group = "project, value" if projected else "value"
    keys = "project_id, kind, value" if projected else "kind, value"
    project = "project, " if projected else ""
    statements = []
    for event, delta in deltas.items():
        function = f"{name}_{event}"
        body = f"""INSERT INTO {FACETS} ({keys}, count)
              SELECT {project}'{facet}', value, sum(n) FROM ({delta}) AS delta ({columns})
              GROUP BY {group} HAVING sum(n) <> 0 ORDER BY {group}
              ON CONFLICT ({keys}) DO UPDATE SET count = {FACETS}.count + EXCLUDED.count"""  # noqa: S608
        statements += _postgres_trigger(function, table, event, body)
    return statements


def _facet_remove(vendor: str, facet: str, table: str) -> list[str]:
    return _remove(vendor, f"{table}_{facet}_facet", table)


def install_facets(connection, *, projected: bool = True) -> None:
    """The facet counters' triggers: per project, or (`projected` False, for the migrations
    before `PROJECT_FACETS_MIGRATION`) one count for the installation."""
    build = _facet_sqlite if connection.vendor == "sqlite" else _facet_postgres
    _run(connection, [sql for counted in COUNTED for sql in build(*counted, projected)])


def remove_facets(connection) -> None:
    vendor = connection.vendor
    _run(
        connection,
        [sql for facet, table, *_ in COUNTED for sql in _facet_remove(vendor, facet, table)],
    )


def recount_facets(connection, *, projected: bool = True) -> None:
    """Set every facet counter from the rows themselves (when the triggers are first
    installed)."""
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {FACETS}")  # noqa: S608
        for facet, table, column, via in COUNTED:
            rows = f"{table} r" if via is None else f"{table} r JOIN {CASES} c ON c.id = r.{via}"
            if projected:
                owner = "r.project_id" if via is None else "c.project_id"
                counted = f"SELECT {owner}, '{facet}', r.{column}, COUNT(*) FROM {rows} GROUP BY {owner}, r.{column}"  # noqa: E501, S608
                cursor.execute(f"INSERT INTO {FACETS} (project_id, kind, value, count) {counted}")  # noqa: S608
            else:
                counted = (
                    f"SELECT '{facet}', r.{column}, COUNT(*) FROM {table} r GROUP BY r.{column}"  # noqa: E501, S608
                )
                cursor.execute(f"INSERT INTO {FACETS} (kind, value, count) {counted}")  # noqa: S608


# --- a plan's counters ---------------------------------------------------------------------


def _literal(value) -> str:
    """A value the ORM would bind, written into a trigger's SQL (a trigger has no parameters);
    only the kinds `count_aggregates` uses."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return "'" + str(value).replace("'", "''") + "'"
    raise TypeError(f"a counter trigger cannot write {value!r} into its SQL")


def _counted(connection, row: str) -> dict[str, str]:
    """Counter key -> the SQL of what one entry row adds to it (1 where `count_aggregates`
    counts the row, else 0), its columns read from `row` (NEW, OLD, or a table's alias)."""
    from django.db.models import Count

    from review.models import Entry, count_aggregates

    table = connection.ops.quote_name(ENTRIES)
    counted = {}
    for key, aggregate in count_aggregates().items():
        if not isinstance(aggregate, Count) or aggregate.distinct:
            raise TypeError(f"a counter trigger adds rows one by one; {key} is not a count")
        if aggregate.filter is None:
            counted[key] = "1"
            continue
        query = Entry.objects.filter(aggregate.filter).query
        if len(query.alias_map) != 1:
            raise TypeError(f"a counter trigger reads the entry's row alone; {key} joins")
        sql, params = query.where.as_sql(query.get_compiler(connection=connection), connection)
        sql = (sql % tuple(_literal(value) for value in params)).replace(f"{table}.", f"{row}.")
        counted[key] = f"(CASE WHEN {sql} THEN 1 ELSE 0 END)"
    return counted


def _columns_read(connection) -> list[str]:
    """The entry columns the counters read, quoted: a change to any other moves no counter."""
    read = " ".join(_counted(connection, "ROW").values())
    return sorted({connection.ops.quote_name("plan_id"), *re.findall(r'ROW\.("\w+")', read)})


def _plan_counts_sqlite(connection) -> list[str]:
    from review.models.entries import counter_column

    quote = connection.ops.quote_name
    plans_id = f"{quote(PLANS)}.{quote('id')}"
    changed = " OR ".join(
        f"OLD.{column} IS NOT NEW.{column}" for column in _columns_read(connection)
    )
    statements = []
    for event, signed in SIGNED_ROWS.items():
        sides = {side.upper(): _counted(connection, side.upper()) for _, side in signed}
        assignments = []
        for key in sides[next(iter(sides))]:
            column = quote(counter_column(key))
            terms = [
                # On an update that moves the entry to another plan, each plan gets its side.
                f"{'+' if sign > 0 else '-'} CASE WHEN {plans_id} = {side.upper()}.plan_id "
                f"THEN {sides[side.upper()][key]} ELSE 0 END"
                for sign, side in signed
            ]
            assignments.append(f"{column} = {column} {' '.join(terms)}")
        touched = ", ".join(f"{side}.plan_id" for side in sides)
        name = f"{PLAN_COUNTS}_{event}"
        when = f" WHEN {changed}" if event == "update" else ""
        # Dropped first: the rule may have changed since (IF NOT EXISTS would keep the old one).
        statements += [
            f"DROP TRIGGER IF EXISTS {name}",
            f"CREATE TRIGGER {name} AFTER {event.upper()} ON {ENTRIES}{when} BEGIN "  # noqa: S608
            f"UPDATE {quote(PLANS)} SET {', '.join(assignments)} "
            f"WHERE {plans_id} IN ({touched}); END",
        ]
    return statements


def _plan_counts_postgres(connection) -> list[str]:
    from review.models.entries import counter_column

    quote = connection.ops.quote_name
    table, rows = quote(ENTRIES), {"new": "new_rows", "old": "old_rows"}
    counted = _counted(connection, table)
    keys = [quote(key) for key in counted]
    statements = []
    for event, signed in SIGNED_ROWS.items():
        # Names are the models' own; the counted expressions' values are the rule's constants.
        parts = [
            "SELECT plan_id, "  # noqa: S608
            + ", ".join(f"{sign} * {sql} AS {quote(key)}" for key, sql in counted.items())
            + f" FROM {rows[side]} AS {table}"
            for sign, side in signed
        ]
        sums = ", ".join(f"SUM({key}) AS {key}" for key in keys)
        moved = (
            f"SELECT plan_id, {sums} FROM ({' UNION ALL '.join(parts)}) AS moved GROUP BY plan_id"  # noqa: E501, S608
        )
        assignments = ", ".join(
            f"{quote(counter_column(key))} = {quote(counter_column(key))} + delta.{quote(key)}"
            for key in counted
        )
        # An update that changes nothing counted (a title, a note) writes no plan row.
        changed = " OR ".join(f"delta.{key} <> 0" for key in keys)
        touched = " UNION ".join(f"SELECT plan_id FROM {rows[side]}" for _, side in signed)  # noqa: S608
        body = (
            # The plans' rows in the order of their ids, before any is written.
            f"PERFORM 1 FROM {PLANS} WHERE id IN ({touched}) ORDER BY id FOR NO KEY UPDATE;\n"  # noqa: S608
            f"UPDATE {PLANS} SET {assignments} FROM ({moved}) AS delta "  # noqa: S608
            f"WHERE {PLANS}.id = delta.plan_id AND ({changed})"
        )
        statements += _postgres_trigger(f"{PLAN_COUNTS}_{event}", ENTRIES, event, body)
    return statements


def install_plan_counts(connection) -> None:
    if connection.vendor == "sqlite":
        _run(connection, _plan_counts_sqlite(connection))
    else:
        _run(connection, _plan_counts_postgres(connection))


def remove_plan_counts(connection) -> None:
    _run(connection, _remove(connection.vendor, PLAN_COUNTS, ENTRIES))


def recount_plans(connection) -> None:
    """Set every plan's counters from its entries (when the triggers are first installed)."""
    from review.models import Plan

    Plan.objects.using(connection.alias).recount()


# --- both ----------------------------------------------------------------------------------


def install(connection) -> None:
    """Every counter's triggers (they are idempotent)."""
    install_facets(connection)
    install_plan_counts(connection)


def _postgres_trigger(function: str, table: str, event: str, body: str) -> list[str]:
    tables = {
        "insert": "NEW TABLE AS new_rows",
        "delete": "OLD TABLE AS old_rows",
        "update": "OLD TABLE AS old_rows NEW TABLE AS new_rows",
    }
    return [
        f"""CREATE OR REPLACE FUNCTION {function}() RETURNS trigger AS $$
        BEGIN
          {body};
          RETURN NULL;
        END; $$ LANGUAGE plpgsql""",
        f"DROP TRIGGER IF EXISTS {function} ON {table}",
        f"CREATE TRIGGER {function} AFTER {event.upper()} ON {table} "
        f"REFERENCING {tables[event]} FOR EACH STATEMENT EXECUTE FUNCTION {function}()",
    ]


def _remove(vendor: str, name: str, table: str) -> list[str]:
    events = ("insert", "delete", "update")
    if vendor == "sqlite":
        return [f"DROP TRIGGER IF EXISTS {name}_{event}" for event in events]
    return [f"DROP TRIGGER IF EXISTS {name}_{event} ON {table}" for event in events] + [
        f"DROP FUNCTION IF EXISTS {name}_{event}()" for event in events
    ]


def _run(connection, statements: list[str]) -> None:
    if connection.vendor not in ("sqlite", "postgresql"):
        raise NotImplementedError(f"no counter triggers for the {connection.vendor} database")
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)
