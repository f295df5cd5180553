"""Builders for the tests of webhooks: an endpoint registered through its action, with the
receiver's loopback address allowed (as a test setting: the default refuses it), and a
decision that is an event (an entry accepted)."""

from __future__ import annotations

import ipaddress

from django.db import transaction

from review.actions.entries import accept_entry
from review.actions.webhooks import register_endpoint
from review.models import Entry, WebhookEndpoint
from review.webhooks.events import ENTRY_DECIDED

LOOPBACK = [ipaddress.ip_network("127.0.0.0/8")]


def allow_loopback(settings) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = LOOPBACK


def endpoint_to(url: str, project, actor, events=(ENTRY_DECIDED,)) -> tuple[WebhookEndpoint, str]:
    """An endpoint of `project` registered by `actor`, and its secret."""
    return register_endpoint(project, actor=actor, url=url, events=list(events))


def accept(entry: Entry, actor):
    """Accept `entry` as an editor would, in a transaction of its own (as a request's)."""
    fresh = Entry.objects.select_related("plan").get(pk=entry.pk)
    with transaction.atomic():
        return accept_entry(fresh, actor=actor, expected_version=fresh.version)
