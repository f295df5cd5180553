"""The cases queue's counters, per project: with a second project's cases the queue grouped the
project's cases and evidence at every request; now the triggers keep each project's counts.
The old triggers are lifted, the counters dropped and counted again from the rows, per
project, and the new triggers installed (`review.counter_triggers`)."""

import django.db.models.deletion
from django.db import migrations, models

from review import counter_triggers


def _emptied(apps, schema_editor):
    apps.get_model("review", "CaseFacet").objects.all().delete()
    if schema_editor.connection.vendor == "postgresql":
        # PostgreSQL alters no table with trigger events still pending on it in the
        # transaction (the deferred checks of the rows just written or removed).
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def lift_whole_counts(apps, schema_editor):
    counter_triggers.remove_facets(schema_editor.connection)
    _emptied(apps, schema_editor)


def count_per_project(apps, schema_editor):
    counter_triggers.recount_facets(schema_editor.connection)
    counter_triggers.install_facets(schema_editor.connection)


def lift_project_counts(apps, schema_editor):
    counter_triggers.remove_facets(schema_editor.connection)
    _emptied(apps, schema_editor)


def count_whole(apps, schema_editor):
    counter_triggers.recount_facets(schema_editor.connection, projected=False)
    counter_triggers.install_facets(schema_editor.connection, projected=False)


class Migration(migrations.Migration):

    dependencies = [
        ('review', '0023_token_grants'),
    ]

    operations = [
        migrations.RunPython(lift_whole_counts, count_whole),
        migrations.RemoveConstraint(
            model_name='casefacet',
            name='case_facet_once',
        ),
        migrations.AddField(
            model_name='casefacet',
            name='project',
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='review.project'),
        ),
        migrations.AlterField(
            model_name='casefacet',
            name='project',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='review.project'),
        ),
        migrations.AlterModelOptions(
            name='casefacet',
            options={'ordering': ['project', 'kind', 'value']},
        ),
        migrations.AddConstraint(
            model_name='casefacet',
            constraint=models.UniqueConstraint(fields=('project', 'kind', 'value'), name='case_facet_once_in_project'),
        ),
        migrations.RunPython(count_per_project, lift_project_counts),
    ]
