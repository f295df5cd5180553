# Part 14's two migrations were made side by side; they touch different tables.
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0014_job_heartbeat"),
        ("review", "0014_plan_superseded"),
    ]

    operations = []
