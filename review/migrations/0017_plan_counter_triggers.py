"""A plan's counters are kept by database triggers on its entries, as the cases queue's counts
are (`review.counter_triggers`): whichever door writes entries, not only a decision's hook.
They are counted once here from the entries already stored.

On SQLite the triggers are installed, and the plans counted, when `migrate` ends
(`ReviewConfig.ready`), never in the middle of it: a later migration that remakes the plans'
table would fail on a trigger naming it. Either way they are those the code defines now."""

from django.db import migrations

from review import counter_triggers


def install_plan_counters(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor != "sqlite":
        counter_triggers.install_plan_counts(connection)
        counter_triggers.recount_plans(connection)


def remove_plan_counters(apps, schema_editor):
    counter_triggers.remove_plan_counts(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0016_decision_batch"),
    ]

    operations = [
        migrations.RunPython(install_plan_counters, remove_plan_counters),
    ]
