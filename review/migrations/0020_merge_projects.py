"""The projects work (0017_projects to 0019, guidelines and discussion, memberships with versions) meets the counters' triggers (0017_plan_counter_triggers)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('review', '0017_plan_counter_triggers'),
        ('review', '0018_guidelines_and_comments'),
        ('review', '0018_membership_version'),
        ('review', '0019_project_required'),
    ]

    operations = [
    ]
