"""manage.py send_webhooks: send every webhook delivery that is due now, in this process, as
the worker's sweep does: for a cron beside the worker, or after a database was restored (its
queued tasks may not have come with it)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from review.models import WebhookDelivery
from review.webhooks.delivery import send_webhooks


class Command(BaseCommand):
    help = (
        "Send every due webhook delivery now, each webhook's in event order (what the "
        "worker's sweep does), and say how many were attempted and how many wait."
    )

    def handle(self, *args, **options):
        attempted = send_webhooks.call()
        waiting = WebhookDelivery.objects.filter(status="pending", endpoint__enabled=True)
        self.stdout.write(f"attempted {attempted} deliveries; {waiting.count()} pending")
