"""The security log becomes append-only in the database too, as the decision log has been since
0002: triggers refuse UPDATE and DELETE (and TRUNCATE on PostgreSQL) on its table, whichever
door writes. Its actor is now protected: forgetting a removed account would be an UPDATE the
triggers refuse."""

from django.conf import settings
import django.db.models.deletion
from django.db import migrations, models

from review import log_triggers


def install_guard(apps, schema_editor):
    log_triggers.install(schema_editor.connection, log_triggers.SECURITY_LOG)


def remove_guard(apps, schema_editor):
    log_triggers.remove(schema_editor.connection, log_triggers.SECURITY_LOG)


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0029_project_second_factor"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="securityevent",
            name="actor",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(install_guard, remove_guard),
    ]
