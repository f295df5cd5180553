from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Grounding Review"

    def ready(self) -> None:
        post_migrate.connect(_reinstall_counter_triggers, sender=self)


def _reinstall_counter_triggers(sender, using, **kwargs) -> None:
    """On SQLite a migration that remakes a counted table (cases, evidence, entries) drops its
    triggers with it; put the counters' triggers back (they are idempotent) whenever their
    tables exist."""
    from django.db import connections

    from review import counter_triggers

    connection = connections[using]
    tables = set(connection.introspection.table_names())
    facets = {counter_triggers.FACETS} | {table for _, table, _ in counter_triggers.COUNTED}
    if facets <= tables:
        counter_triggers.install_facets(connection)
    if {counter_triggers.ENTRIES, counter_triggers.PLANS} <= tables:
        counter_triggers.install_plan_counts(connection)
