"""The three reviewer groups, and the triggers that keep the decision log append-only."""

from django.db import migrations

from review import log_triggers

GROUPS = ("Editors", "Moderators", "Readers")


def create_groups(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for name in GROUPS:
        Group.objects.get_or_create(name=name)


def install_guard(apps, schema_editor):
    log_triggers.install(schema_editor.connection)


def remove_guard(apps, schema_editor):
    log_triggers.remove(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("review", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(create_groups, migrations.RunPython.noop),
        migrations.RunPython(install_guard, remove_guard),
    ]
