"""What a project's leads (and staff) do with its webhooks: register an endpoint, disable or
enable it, delete it, and send a delivery again. Each is in the project's decision log; who may
is the view's to ask (`Project.webhooks_managed_by`)."""

from __future__ import annotations

import base64
import secrets

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from review.decisions import ActionRefused, decide, delete_logged, ensure_seen, record_made
from review.models import Decision, Project, WebhookDelivery, WebhookEndpoint
from review.webhooks.addresses import check_url
from review.webhooks.delivery import send_after_commit
from review.webhooks.events import EVENT_TYPES

SECRET_BYTES = 24


def new_secret() -> str:
    """A secret in the specification's form: `whsec_` and the base64 of random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def check_events(events) -> list[str]:
    """The event types asked for, in the order they are listed; refused when none is, or one
    is not an event."""
    unknown = sorted(set(events) - set(EVENT_TYPES))
    if unknown:
        raise ActionRefused(f"Not an event: {', '.join(unknown)}.")
    if not events:
        raise ActionRefused("Choose at least one event to send.")
    return [name for name in EVENT_TYPES if name in events]


def register_endpoint(
    project: Project, *, actor, url: str, events, description: str = ""
) -> tuple[WebhookEndpoint, str]:
    """Register `url` for `events` of `project`; the endpoint and its secret (shown once).
    Refused for an address the guard refuses (`check_url`), and past WEBHOOK_MAX_ENDPOINTS."""
    events = check_events(events)
    check_url(url)
    with transaction.atomic():
        # The project's row locked: two leads registering at once do not both pass the count.
        Project.objects.select_for_update().filter(pk=project.pk).first()
        held = WebhookEndpoint.objects.filter(project=project).count()
        if held >= settings.WEBHOOK_MAX_ENDPOINTS:
            raise ActionRefused(
                f"{project} has {held} webhooks, the most a project may have "
                "(WEBHOOK_MAX_ENDPOINTS); delete one first."
            )
        secret = new_secret()
        endpoint = WebhookEndpoint.objects.create(
            project=project,
            url=url.strip(),
            description=description.strip(),
            events=events,
            secret=secret,
            created_by=actor,
        )
        # The secret is not in the log: the log is read by every member.
        record_made(
            endpoint,
            actor=actor,
            action="webhook.create",
            after={"url": endpoint.url, "events": events},
        )
    return endpoint, secret


def set_endpoint_enabled(
    endpoint: WebhookEndpoint, enabled: bool, *, actor, expected_version: int
) -> Decision:
    """Disable the endpoint (nothing more is sent to it, nor written for it), or enable it
    again (its address checked again first; what was pending goes on in order)."""
    if enabled == endpoint.enabled:
        raise ActionRefused(f"This webhook is already {'enabled' if enabled else 'disabled'}.")
    if enabled:
        check_url(endpoint.url)
        changes = {"enabled": True, "disabled_reason": "", "failing_since": None}
    else:
        when = timezone.now()
        reason = f"Disabled by {actor.username} on {when:%Y-%m-%d %H:%M} UTC."
        changes = {"enabled": False, "disabled_reason": reason}
    with transaction.atomic():
        decision = decide(
            endpoint,
            expected_version=expected_version,
            actor=actor,
            action="webhook.enable" if enabled else "webhook.disable",
            changes=changes,
        )
        if enabled:
            send_after_commit()
    return decision


def delete_endpoint(endpoint: WebhookEndpoint, *, actor, expected_version: int) -> Decision:
    """Delete the endpoint with its deliveries; the events stay (other endpoints' too)."""
    ensure_seen(endpoint, expected_version)
    return delete_logged(
        endpoint,
        actor=actor,
        action="webhook.delete",
        before={"url": endpoint.url, "events": endpoint.events},
        after={},
    )


def redeliver(delivery: WebhookDelivery, *, actor, expected_version: int) -> Decision:
    """Send the delivery again, from its first attempt: with the same `webhook-id`, and in
    event order with the endpoint's other pending deliveries."""
    if delivery.status == WebhookDelivery.Status.PENDING:
        raise ActionRefused("This delivery is waiting to be sent already.")
    if not delivery.endpoint.enabled:
        raise ActionRefused("This webhook is disabled: enable it first.")
    with transaction.atomic():
        decision = decide(
            delivery,
            expected_version=expected_version,
            actor=actor,
            action="webhook.redeliver",
            changes={
                "status": WebhookDelivery.Status.PENDING,
                "attempts": 0,
                "first_attempt_at": None,
                "next_attempt_at": timezone.now(),
            },
        )
        send_after_commit()
    return decision
