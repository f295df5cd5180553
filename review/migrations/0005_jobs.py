# Long work run in the background (review.jobs), with its progress and its input kept.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0004_answer_change_kinds"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Job",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("kind", models.CharField(choices=[("propose", "Propose a plan"), ("import_cases", "Import cases"), ("import_answers", "Import answers"), ("export_decisions", "Export the decision log")], max_length=32)),
                ("status", models.CharField(choices=[("queued", "Queued"), ("running", "Running"), ("succeeded", "Succeeded"), ("failed", "Failed")], default="queued", max_length=16)),
                ("progress", models.PositiveIntegerField(default=0)),
                ("total", models.PositiveIntegerField(default=0)),
                ("input_name", models.CharField(blank=True, max_length=255)),
                ("input_data", models.BinaryField(default=b"")),
                ("options", models.JSONField(default=dict)),
                ("result", models.JSONField(default=dict)),
                ("output", models.BinaryField(default=b"")),
                ("error", models.TextField(blank=True)),
                ("problems", models.JSONField(default=list)),
                ("attempts", models.PositiveIntegerField(default=0)),
                ("task_id", models.CharField(blank=True, max_length=64)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("created_by", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL)),
            ],
            options={"ordering": ["-created_at", "-pk"]},
        ),
    ]
