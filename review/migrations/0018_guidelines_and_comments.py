"""Guidelines per project, versioned; discussion on an item (comments, their earlier texts,
mentions); and each decision's guideline version.

The new column of the decision log is nullable, so no row is updated; but on SQLite adding a
column remakes the table, which drops the log's append-only triggers, so they are lifted
around it and put back, as in 0016."""

import django.db.models.deletion
import django.utils.timezone
import review.models.projects
from django.conf import settings
from django.db import migrations, models

from review import log_triggers


def lift_guard(apps, schema_editor):
    log_triggers.remove(schema_editor.connection)


def restore_guard(apps, schema_editor):
    log_triggers.install(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0017_projects"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(lift_guard, restore_guard),
        migrations.AddField(
            model_name="decision",
            name="guideline_version",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(restore_guard, lift_guard),
        migrations.CreateModel(
            name="Comment",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("text", models.TextField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("edited_at", models.DateTimeField(blank=True, null=True)),
                ("version", models.PositiveIntegerField(default=1)),
                (
                    "answer",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="comments",
                        to="review.answer",
                    ),
                ),
                (
                    "author",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="comments",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "case",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="comments",
                        to="review.case",
                    ),
                ),
                (
                    "entry",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="comments",
                        to="review.entry",
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        default=review.models.projects.default_project_id,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="review.project",
                    ),
                ),
                (
                    "reply_to",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="replies",
                        to="review.comment",
                    ),
                ),
            ],
            options={
                "ordering": ["created_at", "pk"],
            },
        ),
        migrations.CreateModel(
            name="CommentRevision",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("version", models.PositiveIntegerField()),
                ("text", models.TextField()),
                ("replaced_at", models.DateTimeField()),
                (
                    "comment",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="revisions",
                        to="review.comment",
                    ),
                ),
            ],
            options={
                "ordering": ["comment", "version"],
            },
        ),
        migrations.CreateModel(
            name="Guideline",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("version", models.PositiveIntegerField()),
                ("text", models.TextField(blank=True)),
                ("summary", models.CharField(blank=True, max_length=200)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "author",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="guidelines",
                        to="review.project",
                    ),
                ),
            ],
            options={
                "ordering": ["project", "-version"],
            },
        ),
        migrations.CreateModel(
            name="Mention",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("read_at", models.DateTimeField(blank=True, null=True)),
                (
                    "comment",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="mentions",
                        to="review.comment",
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="mentions",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
        ),
        migrations.AddIndex(
            model_name="comment",
            index=models.Index(fields=["entry", "created_at"], name="comment_on_entry"),
        ),
        migrations.AddIndex(
            model_name="comment",
            index=models.Index(fields=["case", "created_at"], name="comment_on_case"),
        ),
        migrations.AddIndex(
            model_name="comment",
            index=models.Index(fields=["answer", "created_at"], name="comment_on_answer"),
        ),
        migrations.AddConstraint(
            model_name="comment",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("answer__isnull", True), ("case__isnull", True), ("entry__isnull", False)
                    ),
                    models.Q(
                        ("answer__isnull", True), ("case__isnull", False), ("entry__isnull", True)
                    ),
                    models.Q(
                        ("answer__isnull", False), ("case__isnull", True), ("entry__isnull", True)
                    ),
                    _connector="OR",
                ),
                name="comment_on_one_item",
            ),
        ),
        migrations.AddConstraint(
            model_name="commentrevision",
            constraint=models.UniqueConstraint(
                fields=("comment", "version"), name="comment_revision_unique"
            ),
        ),
        migrations.AddConstraint(
            model_name="guideline",
            constraint=models.UniqueConstraint(
                fields=("project", "version"), name="guideline_version_unique"
            ),
        ),
        migrations.AddIndex(
            model_name="mention",
            index=models.Index(fields=["user", "read_at"], name="mention_unread"),
        ),
        migrations.AddConstraint(
            model_name="mention",
            constraint=models.UniqueConstraint(fields=("comment", "user"), name="mention_unique"),
        ),
    ]
