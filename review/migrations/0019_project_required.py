"""Every item names its project: the transitional default of 0017 (the project "Default"
for a row whose door named none) is gone, now that every door names one. Only the field's
Python default changes; the column was NOT NULL already, so the database is left alone.

As a plain AlterField it would remake eight tables on SQLite, the log and the plans among
them; and, this migration being on another branch than 0018_guidelines_and_comments, Django
may unapply it before that one while building the log's table from a state without that
migration's column, which is then missing when 0018 drops it."""

import django.db.models.deletion
from django.db import migrations, models

IN_PROJECT = (
    "answer",
    "case",
    "decision",
    "document",
    "job",
    "pathcollision",
    "plan",
    "reviewpolicy",
)


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0017_projects"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name=model_name,
                    name="project",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="review.project",
                    ),
                )
                for model_name in IN_PROJECT
            ]
        ),
    ]
