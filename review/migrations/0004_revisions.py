"""Revisions: a document names the revision it follows, a plan the plan it was carried from,
and an entry what it carried (see review.actions.revisions)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('review', '0003_answer_search_index'),
    ]

    operations = [
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
    ]
