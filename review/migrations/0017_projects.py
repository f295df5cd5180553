"""Projects: today's data moves into one project named "Default", and today's people become
its members, the global groups becoming the roles of their membership (a member of none is
a reader there). Every list and queue index now begins with the project.

The decision log is append-only in the database too: its triggers are lifted while its rows
are given their project, and put back (on SQLite, adding the column remakes the table, which
drops them anyway)."""

import django.db.models.deletion
import review.models.projects
from django.conf import settings
from django.db import migrations, models

from review import log_triggers


# The groups of parts 1 to 15, and the role each becomes; Readers become members with none.
ROLE_OF_GROUP = {
    "Editors": "editor",
    "Moderators": "moderator",
    "Curators": "curator",
    "Leads": "lead",
}
IN_PROJECT = (
    "Document",
    "Plan",
    "Case",
    "Answer",
    "ReviewPolicy",
    "Job",
    "Decision",
    "PathCollision",
)


def lift_guard(apps, schema_editor):
    log_triggers.remove(schema_editor.connection)


def restore_guard(apps, schema_editor):
    log_triggers.install(schema_editor.connection)


def into_default(apps, schema_editor):
    Project = apps.get_model("review", "Project")
    Membership = apps.get_model("review", "Membership")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    default, _ = Project.objects.get_or_create(
        slug="default",
        defaults={"name": "Default", "description": "Everything made before projects."},
    )
    for name in IN_PROJECT:
        apps.get_model("review", name).objects.filter(project__isnull=True).update(project=default)
    # Today anyone signed in reads every item: each person becomes a member, with a role for
    # each group they were in.
    for user in User.objects.prefetch_related("groups"):
        roles = {ROLE_OF_GROUP[g.name]: True for g in user.groups.all() if g.name in ROLE_OF_GROUP}
        Membership.objects.get_or_create(project=default, user=user, defaults=roles)


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0016_decision_batch"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Membership",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("editor", models.BooleanField(default=False)),
                ("moderator", models.BooleanField(default=False)),
                ("curator", models.BooleanField(default=False)),
                ("lead", models.BooleanField(default=False)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["project", "user"],
            },
        ),
        migrations.CreateModel(
            name="Project",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=200)),
                ("slug", models.SlugField(unique=True)),
                ("description", models.TextField(blank=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["name", "pk"],
            },
        ),
        migrations.RemoveIndex(
            model_name="answer",
            name="answer_list",
        ),
        migrations.RemoveIndex(
            model_name="answer",
            name="answer_list_by_state",
        ),
        migrations.RemoveIndex(
            model_name="answer",
            name="answer_list_by_changed",
        ),
        migrations.RemoveIndex(
            model_name="answer",
            name="answer_awaiting_second",
        ),
        migrations.RemoveIndex(
            model_name="answer",
            name="answer_both_opinions",
        ),
        migrations.RemoveIndex(
            model_name="case",
            name="case_queue",
        ),
        migrations.RemoveIndex(
            model_name="case",
            name="case_queue_by_reason",
        ),
        migrations.RemoveIndex(
            model_name="case",
            name="case_queue_by_verdict",
        ),
        migrations.RemoveIndex(
            model_name="case",
            name="case_awaiting_second",
        ),
        migrations.RemoveIndex(
            model_name="case",
            name="case_both_opinions",
        ),
        migrations.RemoveIndex(
            model_name="plan",
            name="plan_list_order",
        ),
        migrations.RemoveIndex(
            model_name="plan",
            name="plan_list_status_order",
        ),
        migrations.AlterField(
            model_name="answer",
            name="answer_id",
            field=models.CharField(max_length=100),
        ),
        migrations.AlterField(
            model_name="case",
            name="case_id",
            field=models.CharField(max_length=100),
        ),
        migrations.AlterField(
            model_name="document",
            name="sha256",
            field=models.CharField(max_length=64),
        ),
        migrations.AlterField(
            model_name="reviewpolicy",
            name="queue",
            field=models.CharField(
                choices=[("plans", "Plans"), ("cases", "Cases"), ("answers", "Answers")],
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="membership",
            name="user",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="memberships",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="membership",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="memberships",
                to="review.project",
            ),
        ),
        migrations.AddField(
            model_name="answer",
            name="project",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AddField(
            model_name="case",
            name="project",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AddField(
            model_name="decision",
            name="project",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AddField(
            model_name="document",
            name="project",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AddField(
            model_name="job",
            name="project",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AddField(
            model_name="pathcollision",
            name="project",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AddField(
            model_name="plan",
            name="project",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AddField(
            model_name="reviewpolicy",
            name="project",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.RunPython(lift_guard, restore_guard),
        migrations.RunPython(into_default, migrations.RunPython.noop),
        migrations.RunPython(restore_guard, lift_guard),
        migrations.AlterField(
            model_name="answer",
            name="project",
            field=models.ForeignKey(
                default=review.models.projects.default_project_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="case",
            name="project",
            field=models.ForeignKey(
                default=review.models.projects.default_project_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="decision",
            name="project",
            field=models.ForeignKey(
                default=review.models.projects.default_project_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="document",
            name="project",
            field=models.ForeignKey(
                default=review.models.projects.default_project_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="job",
            name="project",
            field=models.ForeignKey(
                default=review.models.projects.default_project_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="pathcollision",
            name="project",
            field=models.ForeignKey(
                default=review.models.projects.default_project_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="plan",
            name="project",
            field=models.ForeignKey(
                default=review.models.projects.default_project_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AlterField(
            model_name="reviewpolicy",
            name="project",
            field=models.ForeignKey(
                default=review.models.projects.default_project_id,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="review.project",
            ),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(fields=["project", "created_at", "id"], name="answer_list"),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(
                fields=["project", "state", "created_at", "id"], name="answer_list_by_state"
            ),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(
                fields=["project", "changed", "created_at", "id"], name="answer_list_by_changed"
            ),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(
                condition=models.Q(
                    models.Q(("first_opinion", ""), _negated=True), ("second_opinion", "")
                ),
                fields=["project", "created_at", "id"],
                name="answer_awaiting_second",
            ),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(
                condition=models.Q(
                    models.Q(("first_opinion", ""), _negated=True),
                    models.Q(("second_opinion", ""), _negated=True),
                    ("state", "proposed"),
                ),
                fields=["project", "created_at", "id"],
                name="answer_both_opinions",
            ),
        ),
        migrations.AddIndex(
            model_name="case",
            index=models.Index(
                fields=["project", "-flagged", "created_at", "id"], name="case_queue"
            ),
        ),
        migrations.AddIndex(
            model_name="case",
            index=models.Index(
                fields=["project", "validator_reason", "-flagged", "created_at", "id"],
                name="case_queue_by_reason",
            ),
        ),
        migrations.AddIndex(
            model_name="case",
            index=models.Index(
                fields=["project", "verdict", "-flagged", "created_at", "id"],
                name="case_queue_by_verdict",
            ),
        ),
        migrations.AddIndex(
            model_name="case",
            index=models.Index(
                condition=models.Q(
                    models.Q(("first_opinion", ""), _negated=True), ("second_opinion", "")
                ),
                fields=["project", "-flagged", "created_at", "id"],
                name="case_awaiting_second",
            ),
        ),
        migrations.AddIndex(
            model_name="case",
            index=models.Index(
                condition=models.Q(
                    models.Q(("first_opinion", ""), _negated=True),
                    models.Q(("second_opinion", ""), _negated=True),
                    ("verdict", "proposed"),
                ),
                fields=["project", "-flagged", "created_at", "id"],
                name="case_both_opinions",
            ),
        ),
        migrations.AddIndex(
            model_name="plan",
            index=models.Index(
                models.F("project"),
                models.OrderBy(models.F("created_at"), descending=True),
                models.OrderBy(models.F("id"), descending=True),
                condition=models.Q(("review_of__isnull", True)),
                name="plan_list_order",
            ),
        ),
        migrations.AddIndex(
            model_name="plan",
            index=models.Index(
                models.F("project"),
                models.F("status"),
                models.OrderBy(models.F("created_at"), descending=True),
                models.OrderBy(models.F("id"), descending=True),
                condition=models.Q(("review_of__isnull", True)),
                name="plan_list_status_order",
            ),
        ),
        migrations.AddConstraint(
            model_name="answer",
            constraint=models.UniqueConstraint(
                fields=("project", "answer_id"), name="answer_id_per_project"
            ),
        ),
        migrations.AddConstraint(
            model_name="case",
            constraint=models.UniqueConstraint(
                fields=("project", "case_id"), name="case_id_per_project"
            ),
        ),
        migrations.AddConstraint(
            model_name="document",
            constraint=models.UniqueConstraint(
                fields=("project", "sha256"), name="document_once_per_project"
            ),
        ),
        migrations.AddConstraint(
            model_name="reviewpolicy",
            constraint=models.UniqueConstraint(
                fields=("project", "queue"), name="policy_per_project_queue"
            ),
        ),
        migrations.AddConstraint(
            model_name="membership",
            constraint=models.UniqueConstraint(
                fields=("project", "user"), name="membership_unique"
            ),
        ),
    ]
