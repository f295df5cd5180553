"""Indexes in the order of each list and queue, answer search over a stored vector, and
the cases queue's counters kept by triggers.

- Every filter of /cases/ and /answers/ has an index in the list's order, and so have the
  queues' "Next" (cases: proposed, flagged first then the oldest; answers: proposed, the
  oldest; plans: open, the oldest). They replace the single-column indexes they begin with.
- `Answer.search` is a stored generated column (the question and body's tsvector) with a GIN
  index on PostgreSQL, in place of 0003's index on the expression; SQLite leaves it empty.
- `JobOutputPart` keeps an export's file in parts, so the whole log is never in memory.
- `CaseFacet` counts cases per validator reason and evidence per tool, kept by the triggers
  of `review.counter_triggers`, and counted once here from the rows already stored.
"""

import django.contrib.postgres.search
import django.db.models.deletion
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector
from django.db import migrations, models

import review.models
from review import counter_triggers

OLD_SEARCH_INDEX = GinIndex(
    SearchVector("question", "body", config="english"), name="answer_search"
)
SEARCH_INDEX = GinIndex(fields=["search"], name="answer_search")


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


def install_counters(apps, schema_editor):
    counter_triggers.install_facets(schema_editor.connection, projected=False)
    counter_triggers.recount_facets(schema_editor.connection, projected=False)


def remove_counters(apps, schema_editor):
    counter_triggers.remove_facets(schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0008_merge_review_policy"),
    ]

    operations = [
        migrations.CreateModel(
            name="CaseFacet",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "kind",
                    models.CharField(
                        choices=[("reason", "Validator reason"), ("tool", "Evidence tool")],
                        max_length=16,
                    ),
                ),
                ("value", models.CharField(blank=True, max_length=100)),
                ("count", models.BigIntegerField(default=0)),
            ],
            options={
                "ordering": ["kind", "value"],
            },
        ),
        migrations.AlterModelOptions(
            name="answer",
            options={"ordering": ["-created_at", "-pk"]},
        ),
        migrations.AddField(
            model_name="answer",
            name="search",
            field=models.GeneratedField(
                db_persist=True,
                expression=review.models.AnswerSearchVector(),
                output_field=django.contrib.postgres.search.SearchVectorField(),
            ),
        ),
        migrations.AlterField(
            model_name="answer",
            name="changed",
            field=models.BooleanField(default=False),
        ),
        migrations.AlterField(
            model_name="answer",
            name="state",
            field=models.CharField(
                choices=[
                    ("proposed", "Proposed"),
                    ("published", "Published"),
                    ("withdrawn", "Withdrawn"),
                ],
                default="proposed",
                max_length=16,
            ),
        ),
        migrations.AlterField(
            model_name="case",
            name="flagged",
            field=models.BooleanField(default=False),
        ),
        migrations.AlterField(
            model_name="case",
            name="validator_reason",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AlterField(
            model_name="case",
            name="verdict",
            field=models.CharField(
                choices=[
                    ("proposed", "Proposed"),
                    ("upheld", "Upheld"),
                    ("overturned", "Overturned"),
                    ("needs_rewrite", "Needs rewrite"),
                ],
                default="proposed",
                max_length=16,
            ),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(fields=["created_at", "id"], name="answer_list"),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(fields=["state", "created_at", "id"], name="answer_list_by_state"),
        ),
        migrations.AddIndex(
            model_name="answer",
            index=models.Index(
                fields=["changed", "created_at", "id"], name="answer_list_by_changed"
            ),
        ),
        migrations.AddIndex(
            model_name="case",
            index=models.Index(fields=["-flagged", "created_at", "id"], name="case_queue"),
        ),
        migrations.AddIndex(
            model_name="case",
            index=models.Index(
                fields=["validator_reason", "-flagged", "created_at", "id"],
                name="case_queue_by_reason",
            ),
        ),
        migrations.AddIndex(
            model_name="case",
            index=models.Index(
                fields=["verdict", "-flagged", "created_at", "id"], name="case_queue_by_verdict"
            ),
        ),
        migrations.AddIndex(
            model_name="plan",
            index=models.Index(fields=["status", "created_at", "id"], name="plan_queue"),
        ),
        migrations.AddConstraint(
            model_name="casefacet",
            constraint=models.UniqueConstraint(fields=("kind", "value"), name="case_facet_once"),
        ),
        migrations.CreateModel(
            name="JobOutputPart",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("number", models.PositiveIntegerField()),
                ("data", models.BinaryField()),
                (
                    "job",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="output_parts",
                        to="review.job",
                    ),
                ),
            ],
            options={
                "ordering": ["job", "number"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("job", "number"), name="job_output_part_once"
                    )
                ],
            },
        ),
        migrations.RunPython(search_index_on_the_column, search_index_on_the_expression),
        migrations.RunPython(install_counters, remove_counters),
    ]
