from django.apps import AppConfig
from django.db.models.signals import post_migrate, pre_migrate

# The migration that gives the plans' counters their triggers: before it, they are not kept so.
PLAN_COUNTERS_MIGRATION = ("review", "0017_plan_counter_triggers")


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Grounding Review"

    def ready(self) -> None:
        pre_migrate.connect(_lift_plan_counter_triggers, sender=self)
        post_migrate.connect(_reinstall_counter_triggers, sender=self)
        # The security log's receivers of the sign-in signals.
        from review import security  # noqa: F401


def _lift_plan_counter_triggers(sender, using, **kwargs) -> None:
    """On SQLite a migration that remakes the plans' table (drop, then rename a copy) fails
    while a trigger on the entries names it; the plans' counter triggers are lifted for the
    migrations and put back, with a recount, after them."""
    from django.db import connections

    from review import counter_triggers

    connection = connections[using]
    if connection.vendor == "sqlite":
        counter_triggers.remove_plan_counts(connection)


def _reinstall_counter_triggers(sender, using, **kwargs) -> None:
    """On SQLite a migration that remakes a counted table (cases, evidence, entries) drops its
    triggers with it; put the counters' triggers back (they are idempotent) whenever their
    tables exist, and the plans' once their migration is applied."""
    from django.db import connections
    from django.db.migrations.recorder import MigrationRecorder

    from review import counter_triggers

    connection = connections[using]
    tables = set(connection.introspection.table_names())
    applied = MigrationRecorder(connection).applied_migrations()
    facets = {counter_triggers.FACETS} | {table for _, table, *_ in counter_triggers.COUNTED}
    if facets <= tables:
        # Per project once their migration is applied; before it, as the schema then had them.
        projected = counter_triggers.PROJECT_FACETS_MIGRATION in applied
        counter_triggers.install_facets(connection, projected=projected)
    if PLAN_COUNTERS_MIGRATION in applied:
        counter_triggers.install_plan_counts(connection)
        if connection.vendor == "sqlite":
            counter_triggers.recount_plans(connection)
