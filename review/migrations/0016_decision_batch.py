"""The accept-all batch gets a column of its own instead of living inside the note, where it
was parsed back with a regex. Rows logged before keep their note; their batch is read out of
it once, here, so undoing or counting an earlier accept-all works as before.

The log is append-only in the database too: its triggers are lifted for this migration alone
(on SQLite, adding the column remakes the table, which drops them anyway) and put back."""

import re

from django.db import migrations, models

from review import log_triggers

OLD_NOTE = re.compile(r"accepted with all of .+ \(batch ([0-9a-f]{10})\)")


def lift_guard(apps, schema_editor):
    log_triggers.remove(schema_editor.connection)


def restore_guard(apps, schema_editor):
    log_triggers.install(schema_editor.connection)


def batch_from_note(apps, schema_editor):
    Decision = apps.get_model("review", "Decision")
    batches: dict[str, list[int]] = {}
    accepts = Decision.objects.filter(action="entry.accept", note__contains="(batch ")
    for pk, note in accepts.values_list("pk", "note").iterator():
        match = OLD_NOTE.fullmatch(note)
        if match:
            batches.setdefault(match.group(1), []).append(pk)
    for batch, pks in batches.items():
        Decision.objects.filter(pk__in=pks).update(batch=batch)


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0015_merge_part14"),
    ]

    operations = [
        migrations.RunPython(lift_guard, restore_guard),
        migrations.AddField(
            model_name="decision",
            name="batch",
            field=models.CharField(blank=True, default="", max_length=10),
        ),
        migrations.RunPython(batch_from_note, migrations.RunPython.noop),
        migrations.RunPython(restore_guard, lift_guard),
    ]
