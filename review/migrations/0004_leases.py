"""Queue leases, who has a page open, conflicts met, reviewers' own settings, and the Leads group."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def create_leads(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name="Leads")


class Migration(migrations.Migration):

    dependencies = [
        ('review', '0003_answer_search_index'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
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
        migrations.RunPython(create_leads, migrations.RunPython.noop),
    ]
