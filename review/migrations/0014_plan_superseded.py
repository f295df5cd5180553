"""A plan whose document got a newer revision while it was open is superseded: a status of
its own, so no queue hands it out and nothing of it changes any more.

The plans stored before: every open plan (and open review copy) of a document that has a
newer revision is marked superseded now, as `review.actions.revisions.supersede_plans` marks
one when a revision is stored: its version moves on, a "plan.supersede" row is logged (by
"system": nobody stored a revision just now), and its lease ends.
"""

from django.db import migrations, models
from django.db.models import F
from django.utils import timezone

# The action's name as it stood when superseding came (review.actions.plans keeps it since).
SUPERSEDE = "plan.supersede"


def supersede_existing(apps, schema_editor):
    Plan = apps.get_model("review", "Plan")
    Decision = apps.get_model("review", "Decision")
    Lease = apps.get_model("review", "Lease")
    Document = apps.get_model("review", "Document")
    stale = Plan.objects.filter(status="open", document__revisions__isnull=False)
    rows = list(stale.order_by("pk").values_list("pk", "document_id"))
    following = dict(
        Document.objects.filter(revision_of__in={document for _, document in rows}).values_list(
            "revision_of", "pk"
        )
    )
    revisions = dict(
        Document.objects.filter(pk__in=following.values()).values_list("pk", "revision")
    )
    now = timezone.now()
    # On a later schema too (a test runs this on today's models), where a log row names the
    # project of the plan it is on.
    projects = {}
    if any(field.name == "project" for field in Decision._meta.fields):
        projects = dict(stale.values_list("pk", "project_id"))
    for pk, document in rows:
        Plan.objects.filter(pk=pk).update(status="superseded", version=F("version") + 1)
        revision = following[document]
        in_project = {"project_id": projects[pk]} if projects else {}
        Decision.objects.create(
            **in_project,
            actor=None,
            actor_name="system",
            action=SUPERSEDE,
            object_type="plan",
            object_id=str(pk),
            before={"status": "open"},
            after={"status": "superseded"},
            note=(
                f"superseded by revision {revisions[revision]} (document {revision}), marked "
                "when superseded plans got a status of their own"
            ),
            at=now,
        )
    Lease.objects.filter(queue="plans", item_id__in=[pk for pk, _ in rows]).delete()


def reopen_superseded(apps, schema_editor):
    """Back to open, as they were before the status existed; the log keeps its rows (it is
    append-only)."""
    apps.get_model("review", "Plan").objects.filter(status="superseded").update(status="open")


class Migration(migrations.Migration):

    dependencies = [
        ('review', '0013_plan_queue_in_list_index'),
    ]

    operations = [
        migrations.AlterField(
            model_name='plan',
            name='status',
            field=models.CharField(choices=[('open', 'Open'), ('adjudicated', 'Adjudicated'), ('superseded', 'Superseded')], db_index=True, default='open', max_length=16),
        ),
        migrations.RunPython(supersede_existing, reopen_superseded),
    ]
