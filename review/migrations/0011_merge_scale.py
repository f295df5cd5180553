# Meets the plans' counters (0009_plan_counters) and the queues' indexes (0009, 0010).
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0009_plan_counters"),
        ("review", "0010_review_stage_indexes"),
    ]

    operations = []
