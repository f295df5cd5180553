"""manage.py recount: rebuild every plan's stored counters and the recorded path collisions
from the entries, in set-based SQL (after rows were inserted in bulk, or to check them)."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand
from django.db import transaction

from review.models import PathCollision, Plan


class Command(BaseCommand):
    help = (
        "Rebuild every plan's stored entry counters and the recorded path collisions from "
        "the entries (the decisions keep them; this is for rows inserted in bulk)."
    )

    def handle(self, *args, **options):
        started = time.perf_counter()
        with transaction.atomic():
            plans = Plan.objects.all().recount()
            PathCollision.objects.refresh()
        paths = PathCollision.objects.values("path").distinct().count()
        self.stdout.write(
            f"recounted {plans} plans; {paths} colliding paths recorded "
            f"({time.perf_counter() - started:.2f} s)"
        )
