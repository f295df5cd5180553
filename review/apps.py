from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = "Grounding Review"

    def ready(self) -> None:
        post_migrate.connect(_reinstall_counter_triggers, sender=self)


def _reinstall_counter_triggers(sender, using, **kwargs) -> None:
    """On SQLite a migration that remakes the cases or evidence table drops its triggers with
    it; put the counters' triggers back (they are idempotent) whenever their tables exist."""
    from django.db import connections

    from review import facet_triggers

    connection = connections[using]
    tables = set(connection.introspection.table_names())
    needed = {facet_triggers.FACETS} | {table for _, table, _ in facet_triggers.COUNTED}
    if needed <= tables:
        facet_triggers.install(connection)
