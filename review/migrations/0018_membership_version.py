"""A membership's roles change as decisions do: the form says which version it showed, and a
change made meanwhile by someone else is refused rather than overwritten."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0017_projects"),
    ]

    operations = [
        migrations.AddField(
            model_name="membership",
            name="version",
            field=models.PositiveIntegerField(default=1),
        ),
    ]
