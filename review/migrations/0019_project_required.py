"""Every item names its project: the transitional default of 0017 (the project "Default"
for a row whose door named none) is gone, now that every door names one. Only the field's
Python default changes; the column was NOT NULL already."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0017_projects"),
    ]

    operations = [
        migrations.AlterField(
            model_name="answer",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="case",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="decision",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="document",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="job",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="pathcollision",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="plan",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="reviewpolicy",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
    ]
