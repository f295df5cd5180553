"""Double review: each queue's review policy, the two opinions on cases and answers, each
editor's own copy of a double-reviewed plan, and the Curators group, who settle differences."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def create_curators(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name="Curators")


def opinion_fields(model_name):
    def user():
        return models.ForeignKey(
            blank=True,
            null=True,
            on_delete=django.db.models.deletion.PROTECT,
            related_name="+",
            to=settings.AUTH_USER_MODEL,
        )

    return [
        migrations.AddField(model_name, "first_opinion", models.CharField(blank=True, max_length=16)),
        migrations.AddField(model_name, "first_by", user()),
        migrations.AddField(model_name, "first_note", models.TextField(blank=True)),
        migrations.AddField(model_name, "second_opinion", models.CharField(blank=True, max_length=16)),
        migrations.AddField(model_name, "second_by", user()),
        migrations.AddField(model_name, "second_note", models.TextField(blank=True)),
    ]


class Migration(migrations.Migration):
    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("review", "0004_answer_change_kinds"),
    ]

    operations = [
        *opinion_fields("case"),
        *opinion_fields("answer"),
        migrations.CreateModel(
            name="ReviewPolicy",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("decided_at", models.DateTimeField(blank=True, null=True)),
                ("note", models.TextField(blank=True)),
                ("version", models.PositiveIntegerField(default=1)),
                (
                    "queue",
                    models.CharField(
                        choices=[("plans", "Plans"), ("cases", "Cases"), ("answers", "Answers")],
                        max_length=16,
                        unique=True,
                    ),
                ),
                (
                    "mode",
                    models.CharField(
                        choices=[("single", "Single review"), ("double", "Double review")],
                        default="single",
                        max_length=16,
                    ),
                ),
                ("share_percent", models.PositiveSmallIntegerField(default=0)),
                ("seed", models.CharField(blank=True, max_length=64)),
                ("reasons", models.JSONField(blank=True, default=list)),
                ("rules", models.JSONField(blank=True, default=list)),
                ("on_overturn", models.BooleanField(default=False)),
                (
                    "decided_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={"verbose_name_plural": "review policies"},
        ),
        migrations.AddField(
            "plan",
            "review_of",
            models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="review_copies",
                to="review.plan",
            ),
        ),
        migrations.AddField(
            "plan",
            "reviewer",
            models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(create_curators, migrations.RunPython.noop),
    ]
