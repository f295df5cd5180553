"""Migrations 0001 to 0013 squashed into one (`manage.py squashmigrations review
0013_plan_queue_in_list_index`): a new database runs this one file; a database made by an
earlier main, with any of 0001-0013 applied, goes on through the files it replaces, which stay
until every database has passed 0013 (Django applies a squash only when none or all of what it
replaces is applied). The operations are the chain's, in the chain's order (the optimizer
found none to fold across the chain's RunPython steps), but for one change made by hand: in one
migration the indexes of CreateModel's db_index fields are made at its very end, after the
AlterFields of 0009_queue_indexes that dropped five of them in the chain (answers' changed and
state, cases' flagged, validator_reason and verdict, replaced by the lists' own indexes); so
those fields are made here without db_index and the five AlterFields are left out.

The RunPython steps are the replaced files' own, copied here so this file imports none of
them: the five groups, the decision log's append-only triggers (review.log_triggers), the
answer search index on PostgreSQL, the case facets' counting triggers (review.counter_triggers).
The two that fill columns of rows already stored (answers' change kinds, plans' counters) find
no rows in the empty database a squash is applied to; they are carried as they were, marked
elidable so a later squash may drop them.
"""

import django.contrib.postgres.search
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector
from django.db import migrations, models
from django.db.models import Count, Q

import review.models
from grounding.citations import Finalization
from review import counter_triggers, log_triggers

# 0002, 0004_leases, 0005_review_policy: the groups.
GROUPS = ("Editors", "Moderators", "Readers")


def create_groups(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for name in GROUPS:
        Group.objects.get_or_create(name=name)


def create_leads(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name="Leads")


def create_curators(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name="Curators")


# 0002: the decision log's append-only triggers.
def install_guard(apps, schema_editor):
    log_triggers.install(schema_editor.connection)


def remove_guard(apps, schema_editor):
    log_triggers.remove(schema_editor.connection)


# 0003 and 0009_queue_indexes: the answer search index on PostgreSQL, first on the expression,
# then on the stored column.
OLD_SEARCH_INDEX = GinIndex(
    SearchVector("question", "body", config="english"), name="answer_search"
)
SEARCH_INDEX = GinIndex(fields=["search"], name="answer_search")


def create_expression_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.add_index(apps.get_model("review", "Answer"), OLD_SEARCH_INDEX)


def drop_expression_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.remove_index(apps.get_model("review", "Answer"), OLD_SEARCH_INDEX)


def search_index_on_the_column(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        answer = apps.get_model("review", "Answer")
        schema_editor.remove_index(answer, OLD_SEARCH_INDEX)
        schema_editor.add_index(answer, SEARCH_INDEX)


def search_index_on_the_expression(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        answer = apps.get_model("review", "Answer")
        schema_editor.remove_index(answer, SEARCH_INDEX)
        schema_editor.add_index(answer, OLD_SEARCH_INDEX)


# 0009_queue_indexes: the case facets' counting triggers.
def install_counters(apps, schema_editor):
    counter_triggers.install_facets(schema_editor.connection, projected=False)
    counter_triggers.recount_facets(schema_editor.connection, projected=False)


def remove_counters(apps, schema_editor):
    counter_triggers.remove_facets(schema_editor.connection)


# 0004_answer_change_kinds: answers stored before the columns existed.
def fill_change_kinds(apps, schema_editor):
    """Answers imported before the columns existed: read the kinds from their stored record."""
    Answer = apps.get_model("review", "Answer")
    for answer in Answer.objects.exclude(changes={}).iterator(chunk_size=500):
        kinds = Finalization.from_dict(answer.changes).change_kinds
        if kinds:
            Answer.objects.filter(pk=answer.pk).update(**{f"change_{k}": True for k in kinds})


# 0009_plan_counters: plans stored before their counters were kept, with the rules as they
# stood when the counters came (review.models.Entry keeps them since).
DOUBTFUL_ANCHORS = ("fuzzy", "ambiguous", "orphaned")
ANCHOR_SETTLING_STATES = ("edited", "rejected")
STATES = ("proposed", "accepted", "edited", "merged", "rejected")


def count_existing(apps, schema_editor):
    """The counters and collisions of plans stored before they were kept."""
    Plan = apps.get_model("review", "Plan")
    Entry = apps.get_model("review", "Entry")
    PathCollision = apps.get_model("review", "PathCollision")
    unsettled = Q(anchor_status__in=DOUBTFUL_ANCHORS, anchor_confirmed=False) & ~Q(
        state__in=ANCHOR_SETTLING_STATES
    )
    aggregates = {"total": Count("pk"), "unsettled_anchors": Count("pk", filter=unsettled)}
    aggregates |= {state: Count("pk", filter=Q(state=state)) for state in STATES}
    aggregates["need_you"] = Count("pk", filter=Q(state="proposed") | unsettled)
    for row in Entry.objects.order_by().values("plan_id").annotate(**aggregates):
        plan_id = row.pop("plan_id")
        Plan.objects.filter(pk=plan_id).update(**{f"count_{k}": v for k, v in row.items()})
    live = Entry.objects.exclude(state="rejected").filter(plan__document__revisions__isnull=True)
    shared = (
        live.order_by()
        .values("path")
        .annotate(documents=Count("plan__document", distinct=True))
        .filter(documents__gt=1)
        .values("path")
    )
    pairs = live.filter(path__in=shared).order_by().values_list("path", "plan__document").distinct()
    PathCollision.objects.bulk_create(
        (PathCollision(path=path, document_id=document) for path, document in pairs),
        batch_size=2000,
    )


class Migration(migrations.Migration):

    replaces = [('review', '0001_initial'), ('review', '0002_groups_and_log_guard'), ('review', '0003_answer_search_index'), ('review', '0004_revisions'), ('review', '0004_answer_change_kinds'), ('review', '0005_merge_change_kinds_revisions'), ('review', '0004_leases'), ('review', '0006_merge_leases'), ('review', '0005_jobs'), ('review', '0007_merge_jobs'), ('review', '0005_review_policy'), ('review', '0008_merge_review_policy'), ('review', '0009_queue_indexes'), ('review', '0010_review_stage_indexes'), ('review', '0009_plan_counters'), ('review', '0011_merge_scale'), ('review', '0012_decision_by_actor'), ('review', '0013_plan_queue_in_list_index')]

    initial = True

    dependencies = [
        ('auth', '0012_alter_user_first_name_max_length'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Document',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=255)),
                ('media_type', models.CharField(choices=[('markdown', 'Markdown'), ('text', 'Plain text'), ('pdf', 'PDF')], max_length=16)),
                ('data', models.BinaryField()),
                ('sha256', models.CharField(max_length=64, unique=True)),
                ('text', models.TextField()),
                ('extractor_id', models.CharField(max_length=100)),
                ('extractor_version', models.CharField(max_length=50)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
            ],
            options={
                'ordering': ['name', 'pk'],
            },
        ),
        migrations.CreateModel(
            name='Answer',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('answer_id', models.CharField(max_length=100, unique=True)),
                ('question', models.TextField()),
                ('raw_text', models.TextField()),
                ('body', models.TextField()),
                ('model', models.CharField(blank=True, max_length=200)),
                ('sources', models.JSONField(default=list)),
                ('changes', models.JSONField(default=dict)),
                ('changed', models.BooleanField(default=False)),
                ('source_sha256', models.CharField(max_length=64)),
                ('state', models.CharField(choices=[('proposed', 'Proposed'), ('published', 'Published'), ('withdrawn', 'Withdrawn')], default='proposed', max_length=16)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('note', models.TextField(blank=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at', 'pk'],
            },
        ),
        migrations.CreateModel(
            name='ApiToken',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100)),
                ('key_sha256', models.CharField(max_length=64, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='Case',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('case_id', models.CharField(max_length=100, unique=True)),
                ('content_text', models.TextField()),
                ('author', models.CharField(blank=True, max_length=200)),
                ('community', models.CharField(blank=True, max_length=200)),
                ('report_reason', models.CharField(blank=True, max_length=200)),
                ('rationale_text', models.TextField()),
                ('declared_ids', models.JSONField(blank=True, null=True)),
                ('recommended_action', models.CharField(blank=True, max_length=100)),
                ('model', models.CharField(blank=True, max_length=200)),
                ('report', models.JSONField(default=dict)),
                ('flagged', models.BooleanField(default=False)),
                ('validator_reason', models.CharField(blank=True, max_length=64)),
                ('source_sha256', models.CharField(max_length=64)),
                ('verdict', models.CharField(choices=[('proposed', 'Proposed'), ('upheld', 'Upheld'), ('overturned', 'Overturned'), ('needs_rewrite', 'Needs rewrite')], default='proposed', max_length=16)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('note', models.TextField(blank=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-flagged', 'created_at', 'pk'],
            },
        ),
        migrations.CreateModel(
            name='Plan',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('source_sha256', models.CharField(max_length=64)),
                ('extractor_id', models.CharField(max_length=100)),
                ('extractor_version', models.CharField(max_length=50)),
                ('proposed_by', models.CharField(max_length=200)),
                ('options', models.JSONField(blank=True, default=dict)),
                ('original_payload', models.TextField()),
                ('status', models.CharField(choices=[('open', 'Open'), ('adjudicated', 'Adjudicated')], db_index=True, default='open', max_length=16)),
                ('adjudicated_payload', models.TextField(blank=True)),
                ('adjudicated_at', models.DateTimeField(blank=True, null=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('adjudicated_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('document', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='plans', to='review.document')),
            ],
            options={
                'ordering': ['-created_at', '-pk'],
            },
        ),
        migrations.CreateModel(
            name='AnswerReference',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveIntegerField()),
                ('original_number', models.PositiveIntegerField()),
                ('title', models.TextField()),
                ('authors', models.JSONField(blank=True, default=list)),
                ('year', models.IntegerField(blank=True, null=True)),
                ('url', models.TextField(blank=True)),
                ('venue', models.TextField(blank=True)),
                ('doi', models.CharField(blank=True, max_length=200)),
                ('snippet', models.TextField(blank=True)),
                ('answer', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='references', to='review.answer')),
            ],
            options={
                'ordering': ['answer', 'number'],
                'constraints': [models.UniqueConstraint(fields=('answer', 'number'), name='reference_number_unique')],
            },
        ),
        migrations.CreateModel(
            name='Decision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('actor_name', models.CharField(max_length=150)),
                ('action', models.CharField(db_index=True, max_length=50)),
                ('object_type', models.CharField(max_length=20)),
                ('object_id', models.CharField(max_length=50)),
                ('before', models.JSONField(default=dict)),
                ('after', models.JSONField(default=dict)),
                ('note', models.TextField(blank=True)),
                ('at', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                ('actor', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('undoes', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='undone_by', to='review.decision')),
            ],
            options={
                'ordering': ['at', 'pk'],
                'indexes': [models.Index(fields=['object_type', 'object_id', 'at'], name='review_deci_object__10b226_idx')],
            },
        ),
        migrations.CreateModel(
            name='Evidence',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveIntegerField()),
                ('ev_id', models.CharField(max_length=20)),
                ('tool', models.CharField(db_index=True, max_length=100)),
                ('status', models.CharField(choices=[('success', 'Success'), ('failure', 'Failure'), ('timeout', 'Timeout'), ('skipped', 'Skipped')], db_index=True, max_length=16)),
                ('summary', models.TextField(blank=True)),
                ('latency_ms', models.PositiveIntegerField(blank=True, null=True)),
                ('data', models.JSONField(blank=True, default=dict)),
                ('case', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='evidence', to='review.case')),
            ],
            options={
                'verbose_name_plural': 'evidence',
                'ordering': ['case', 'position'],
                'constraints': [models.UniqueConstraint(fields=('case', 'ev_id'), name='evidence_id_unique')],
            },
        ),
        migrations.CreateModel(
            name='Entry',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('position', models.PositiveIntegerField()),
                ('path', models.CharField(max_length=500)),
                ('title', models.CharField(max_length=500)),
                ('span_start', models.PositiveIntegerField()),
                ('span_end', models.PositiveIntegerField()),
                ('quote', models.TextField()),
                ('prefix', models.TextField(blank=True)),
                ('suffix', models.TextField(blank=True)),
                ('rules', models.JSONField(default=list)),
                ('proposed', models.JSONField(default=dict)),
                ('anchor_status', models.CharField(choices=[('exact', 'Exact'), ('moved', 'Moved'), ('fuzzy', 'Fuzzy'), ('ambiguous', 'Ambiguous'), ('orphaned', 'Orphaned')], max_length=16)),
                ('anchor_score', models.FloatField(default=1.0)),
                ('anchor_confirmed', models.BooleanField(default=False)),
                ('state', models.CharField(choices=[('proposed', 'Proposed'), ('accepted', 'Accepted'), ('edited', 'Edited'), ('merged', 'Merged'), ('rejected', 'Rejected')], db_index=True, default='proposed', max_length=16)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('note', models.TextField(blank=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('plan', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='entries', to='review.plan')),
            ],
            options={
                'verbose_name_plural': 'entries',
                'ordering': ['plan', 'position'],
                'constraints': [models.UniqueConstraint(fields=('plan', 'position'), name='entry_position_unique')],
            },
        ),
        migrations.RunPython(
            code=create_groups,
            reverse_code=migrations.RunPython.noop,
        ),
        migrations.RunPython(
            code=install_guard,
            reverse_code=remove_guard,
        ),
        migrations.RunPython(
            code=create_expression_index,
            reverse_code=drop_expression_index,
        ),
        migrations.AddField(
            model_name='document',
            name='revision',
            field=models.PositiveIntegerField(default=1),
        ),
        migrations.AddField(
            model_name='document',
            name='revision_of',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='revisions', to='review.document'),
        ),
        migrations.AddField(
            model_name='entry',
            name='carried',
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name='plan',
            name='carried_from',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='carried_into', to='review.plan'),
        ),
        migrations.AddConstraint(
            model_name='document',
            constraint=models.UniqueConstraint(fields=('revision_of',), name='document_one_next_revision'),
        ),
        migrations.AddField(
            model_name='answer',
            name='change_backfilled',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='answer',
            name='change_dropped',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='answer',
            name='change_renumbered',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='answer',
            name='change_replaced',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='answer',
            name='change_rewritten',
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(
            code=fill_change_kinds,
            reverse_code=migrations.RunPython.noop,
            elidable=True,
        ),
        migrations.CreateModel(
            name='ConflictMet',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('object_type', models.CharField(max_length=20)),
                ('object_id', models.CharField(max_length=50)),
                ('at', models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='ReviewerSettings',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('stay_after_deciding', models.BooleanField(default=False)),
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='review_settings', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name_plural': 'reviewer settings',
            },
        ),
        migrations.CreateModel(
            name='Lease',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('queue', models.CharField(choices=[('plans', 'Plans'), ('cases', 'Cases'), ('answers', 'Answers')], max_length=16)),
                ('item_id', models.PositiveBigIntegerField()),
                ('taken_at', models.DateTimeField()),
                ('expires_at', models.DateTimeField(db_index=True)),
                ('holder', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='leases', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['queue', 'item_id'],
                'constraints': [models.UniqueConstraint(fields=('queue', 'item_id'), name='lease_one_holder')],
            },
        ),
        migrations.CreateModel(
            name='Presence',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('queue', models.CharField(choices=[('plans', 'Plans'), ('cases', 'Cases'), ('answers', 'Answers')], max_length=16)),
                ('item_id', models.PositiveBigIntegerField()),
                ('seen_at', models.DateTimeField(db_index=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'constraints': [models.UniqueConstraint(fields=('queue', 'item_id', 'user'), name='presence_once')],
            },
        ),
        migrations.RunPython(
            code=create_leads,
            reverse_code=migrations.RunPython.noop,
        ),
        migrations.CreateModel(
            name='Job',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('propose', 'Propose a plan'), ('import_cases', 'Import cases'), ('import_answers', 'Import answers'), ('export_decisions', 'Export the decision log')], max_length=32)),
                ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='queued', max_length=16)),
                ('progress', models.PositiveIntegerField(default=0)),
                ('total', models.PositiveIntegerField(default=0)),
                ('input_name', models.CharField(blank=True, max_length=255)),
                ('input_data', models.BinaryField(default=b'')),
                ('options', models.JSONField(default=dict)),
                ('result', models.JSONField(default=dict)),
                ('output', models.BinaryField(default=b'')),
                ('error', models.TextField(blank=True)),
                ('problems', models.JSONField(default=list)),
                ('attempts', models.PositiveIntegerField(default=0)),
                ('task_id', models.CharField(blank=True, max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('created_by', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-created_at', '-pk'],
            },
        ),
        migrations.AddField(
            model_name='case',
            name='first_opinion',
            field=models.CharField(blank=True, max_length=16),
        ),
        migrations.AddField(
            model_name='case',
            name='first_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='case',
            name='first_note',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='case',
            name='second_opinion',
            field=models.CharField(blank=True, max_length=16),
        ),
        migrations.AddField(
            model_name='case',
            name='second_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='case',
            name='second_note',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='answer',
            name='first_opinion',
            field=models.CharField(blank=True, max_length=16),
        ),
        migrations.AddField(
            model_name='answer',
            name='first_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='answer',
            name='first_note',
            field=models.TextField(blank=True),
        ),
        migrations.AddField(
            model_name='answer',
            name='second_opinion',
            field=models.CharField(blank=True, max_length=16),
        ),
        migrations.AddField(
            model_name='answer',
            name='second_by',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='answer',
            name='second_note',
            field=models.TextField(blank=True),
        ),
        migrations.CreateModel(
            name='ReviewPolicy',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('note', models.TextField(blank=True)),
                ('version', models.PositiveIntegerField(default=1)),
                ('queue', models.CharField(choices=[('plans', 'Plans'), ('cases', 'Cases'), ('answers', 'Answers')], max_length=16, unique=True)),
                ('mode', models.CharField(choices=[('single', 'Single review'), ('double', 'Double review')], default='single', max_length=16)),
                ('share_percent', models.PositiveSmallIntegerField(default=0)),
                ('seed', models.CharField(blank=True, max_length=64)),
                ('reasons', models.JSONField(blank=True, default=list)),
                ('rules', models.JSONField(blank=True, default=list)),
                ('on_overturn', models.BooleanField(default=False)),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name_plural': 'review policies',
            },
        ),
        migrations.AddField(
            model_name='plan',
            name='review_of',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='review_copies', to='review.plan'),
        ),
        migrations.AddField(
            model_name='plan',
            name='reviewer',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.RunPython(
            code=create_curators,
            reverse_code=migrations.RunPython.noop,
        ),
        migrations.CreateModel(
            name='CaseFacet',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('reason', 'Validator reason'), ('tool', 'Evidence tool')], max_length=16)),
                ('value', models.CharField(blank=True, max_length=100)),
                ('count', models.BigIntegerField(default=0)),
            ],
            options={
                'ordering': ['kind', 'value'],
            },
        ),
        migrations.AlterModelOptions(
            name='answer',
            options={'ordering': ['-created_at', '-pk']},
        ),
        migrations.AddField(
            model_name='answer',
            name='search',
            field=models.GeneratedField(db_persist=True, expression=review.models.AnswerSearchVector(), output_field=django.contrib.postgres.search.SearchVectorField()),
        ),
        migrations.AddIndex(
            model_name='answer',
            index=models.Index(fields=['created_at', 'id'], name='answer_list'),
        ),
        migrations.AddIndex(
            model_name='answer',
            index=models.Index(fields=['state', 'created_at', 'id'], name='answer_list_by_state'),
        ),
        migrations.AddIndex(
            model_name='answer',
            index=models.Index(fields=['changed', 'created_at', 'id'], name='answer_list_by_changed'),
        ),
        migrations.AddIndex(
            model_name='case',
            index=models.Index(fields=['-flagged', 'created_at', 'id'], name='case_queue'),
        ),
        migrations.AddIndex(
            model_name='case',
            index=models.Index(fields=['validator_reason', '-flagged', 'created_at', 'id'], name='case_queue_by_reason'),
        ),
        migrations.AddIndex(
            model_name='case',
            index=models.Index(fields=['verdict', '-flagged', 'created_at', 'id'], name='case_queue_by_verdict'),
        ),
        migrations.AddIndex(
            model_name='plan',
            index=models.Index(fields=['status', 'created_at', 'id'], name='plan_queue'),
        ),
        migrations.AddConstraint(
            model_name='casefacet',
            constraint=models.UniqueConstraint(fields=('kind', 'value'), name='case_facet_once'),
        ),
        migrations.CreateModel(
            name='JobOutputPart',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveIntegerField()),
                ('data', models.BinaryField()),
                ('job', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='output_parts', to='review.job')),
            ],
            options={
                'ordering': ['job', 'number'],
                'constraints': [models.UniqueConstraint(fields=('job', 'number'), name='job_output_part_once')],
            },
        ),
        migrations.RunPython(
            code=search_index_on_the_column,
            reverse_code=search_index_on_the_expression,
        ),
        migrations.RunPython(
            code=install_counters,
            reverse_code=remove_counters,
        ),
        migrations.AddIndex(
            model_name='answer',
            index=models.Index(condition=models.Q(models.Q(('first_opinion', ''), _negated=True), ('second_opinion', '')), fields=['created_at', 'id'], name='answer_awaiting_second'),
        ),
        migrations.AddIndex(
            model_name='answer',
            index=models.Index(condition=models.Q(models.Q(('first_opinion', ''), _negated=True), models.Q(('second_opinion', ''), _negated=True), ('state', 'proposed')), fields=['created_at', 'id'], name='answer_both_opinions'),
        ),
        migrations.AddIndex(
            model_name='case',
            index=models.Index(condition=models.Q(models.Q(('first_opinion', ''), _negated=True), ('second_opinion', '')), fields=['-flagged', 'created_at', 'id'], name='case_awaiting_second'),
        ),
        migrations.AddIndex(
            model_name='case',
            index=models.Index(condition=models.Q(models.Q(('first_opinion', ''), _negated=True), models.Q(('second_opinion', ''), _negated=True), ('verdict', 'proposed')), fields=['-flagged', 'created_at', 'id'], name='case_both_opinions'),
        ),
        migrations.CreateModel(
            name='PathCollision',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('path', models.CharField(max_length=500)),
            ],
            options={
                'ordering': ['path', 'document'],
            },
        ),
        migrations.AddField(
            model_name='plan',
            name='count_accepted',
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name='plan',
            name='count_edited',
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name='plan',
            name='count_merged',
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name='plan',
            name='count_need_you',
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name='plan',
            name='count_proposed',
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name='plan',
            name='count_rejected',
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name='plan',
            name='count_total',
            field=models.IntegerField(default=0),
        ),
        migrations.AddField(
            model_name='plan',
            name='count_unsettled_anchors',
            field=models.IntegerField(default=0),
        ),
        migrations.AddIndex(
            model_name='entry',
            index=models.Index(fields=['path'], name='entry_path'),
        ),
        migrations.AddIndex(
            model_name='plan',
            index=models.Index(models.OrderBy(models.F('created_at'), descending=True), models.OrderBy(models.F('id'), descending=True), condition=models.Q(('review_of__isnull', True)), name='plan_list_order'),
        ),
        migrations.AddIndex(
            model_name='plan',
            index=models.Index(models.F('status'), models.OrderBy(models.F('created_at'), descending=True), models.OrderBy(models.F('id'), descending=True), condition=models.Q(('review_of__isnull', True)), name='plan_list_status_order'),
        ),
        migrations.AddField(
            model_name='pathcollision',
            name='document',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='review.document'),
        ),
        migrations.AddConstraint(
            model_name='pathcollision',
            constraint=models.UniqueConstraint(fields=('path', 'document'), name='path_collision_once'),
        ),
        migrations.RunPython(
            code=count_existing,
            reverse_code=migrations.RunPython.noop,
            elidable=True,
        ),
        migrations.AddIndex(
            model_name='decision',
            index=models.Index(fields=['actor', 'at'], name='decision_by_actor'),
        ),
        migrations.RemoveIndex(
            model_name='plan',
            name='plan_queue',
        ),
    ]
