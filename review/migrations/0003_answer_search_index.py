"""A full-text index for the answers search, on PostgreSQL only.

The expression is the one `review.views.answers.search_answers` searches with
(SearchVector("question", "body", config="english")); PostgreSQL uses the index only
when the two match. SQLite has no full-text index of this kind; its search is a
substring match and this migration does nothing there.
"""

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector
from django.db import migrations

INDEX = GinIndex(SearchVector("question", "body", config="english"), name="answer_search")


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.add_index(apps.get_model("review", "Answer"), INDEX)


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.remove_index(apps.get_model("review", "Answer"), INDEX)


class Migration(migrations.Migration):
    dependencies = [("review", "0002_groups_and_log_guard")]

    operations = [migrations.RunPython(create_index, drop_index)]
