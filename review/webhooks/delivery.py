"""Sending the outbox: the worker's task that delivers each pending delivery, signed as the
Standard Webhooks specification says, and retries what failed.

Guarantees, per endpoint:
- **In event order, one at a time.** Only an endpoint's oldest pending delivery (by event id)
  is ever sent; a later event waits while an earlier one is pending or waiting for its retry.
  One worker at a time sends to an endpoint, holding its lease (`claimed_until`).
- **At least once.** A worker killed mid-send leaves the delivery pending; once the lease
  lapses (four timeouts and five seconds) the next run sends it again, with the same
  `webhook-id` (`msg_<event id>`), which is what a receiver dedupes on.
- **Retried for a day.** A failed attempt (an answer other than 2xx, a redirect, a timeout, a
  refused connection, an address the guard refuses) is tried again after each wait of
  WEBHOOK_RETRY_SECONDS; after the last, the delivery has failed and the endpoint is disabled,
  saying why, for its leads to see.

The task is queued after each commit that wrote deliveries (`send_after_commit`) and, while
anything is pending, queues its own next run WEBHOOK_SWEEP_SECONDS on: that sweep is what sends
a retry when it falls due, and a delivery whose task was lost (its worker killed).
"""

from __future__ import annotations

import json
import time
from datetime import timedelta

import httpx
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import task
from standardwebhooks import Webhook

from review.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from review.webhooks.addresses import AddressRefused, check_url

USER_AGENT = "Grounding-Review-Webhooks/1"


def body_of(event: WebhookEvent) -> str:
    """The JSON sent for `event`, as the specification's payloads are: type, timestamp, data."""
    data = dict(event.data)
    path = data.pop("path", "")
    data = {"event": event.pk, **data, "url": f"{settings.SITE_URL}{path}" if path else None}
    payload = {"type": event.type, "timestamp": event.at.isoformat(), "data": data}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def signed_headers(secret: str, message_id: str, body: str, at) -> dict[str, str]:
    """The three headers of the specification, signed with the endpoint's `whsec_` secret."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(at.timestamp())),
        "webhook-signature": Webhook(secret).sign(message_id, at, body),
    }


# --- queueing ---------------------------------------------------------------------------------


def send_after_commit() -> None:
    """Queue a run of the task once the current transaction commits (once per transaction,
    however many events it wrote): the worker must find the rows it is told of."""
    connection = transaction.get_connection()
    if any(callback is _queue_send for _, callback, _ in connection.run_on_commit):
        return
    transaction.on_commit(_queue_send)


def _queue_send() -> None:
    send_webhooks.enqueue()


def _sweep_later() -> None:
    """Make sure a run is queued within WEBHOOK_SWEEP_SECONDS while anything is pending, so
    retries fall due and lost tasks are made up for. Asked first thing in each run, so that a
    worker killed mid-send leaves its successor queued."""
    backend = send_webhooks.get_backend()
    pending = WebhookDelivery.objects.filter(status="pending", endpoint__enabled=True)
    if not backend.supports_defer or not pending.exists():
        return
    from django_tasks_db.models import DBTaskResult, get_date_max

    soon = timezone.now() + timedelta(seconds=settings.WEBHOOK_SWEEP_SECONDS)
    queued = DBTaskResult.objects.filter(status="READY", task_path=send_webhooks.module_path)
    if queued.filter(Q(run_after__lte=soon) | Q(run_after=get_date_max())).exists():
        return
    send_webhooks.using(run_after=soon).enqueue()


# --- sending ----------------------------------------------------------------------------------


@task()
def send_webhooks() -> int:
    """The worker's entry: send every due delivery, each endpoint's in event order, up to
    WEBHOOK_MAX_BATCH of them (then queue another run); say how many were attempted."""
    _sweep_later()
    attempted, passed_over = 0, set()
    while attempted < settings.WEBHOOK_MAX_BATCH:
        now = timezone.now()
        candidate = (
            WebhookDelivery.objects.due(now)
            .unclaimed_at(now)
            .exclude(endpoint_id__in=passed_over)
            .order_by("event_id")
            .values_list("endpoint_id", flat=True)
            .first()
        )
        if candidate is None:
            return attempted
        passed_over.add(candidate)
        attempted += _send_to(candidate, settings.WEBHOOK_MAX_BATCH - attempted)
    _queue_send()
    return attempted


def _send_to(endpoint_id: int, most: int) -> int:
    """Send `endpoint_id`'s due deliveries in event order while they succeed, holding its
    lease; say how many were attempted."""
    attempted = 0
    held_until = _claim(endpoint_id)
    if held_until is None:
        return 0
    try:
        while attempted < most:
            held_until = _renew(endpoint_id)
            delivery = _head(endpoint_id)
            if delivery is None or delivery.next_attempt_at > timezone.now():
                break
            attempted += 1
            if not attempt(delivery):
                break
    finally:
        # Only the lease this worker holds: never one another worker took after it lapsed.
        WebhookEndpoint.objects.filter(pk=endpoint_id, claimed_until=held_until).update(
            claimed_until=None
        )
    return attempted


def lease() -> timedelta:
    """How long a worker holds an endpoint for one attempt: longer than any attempt lasts (a
    connect, a write and two reads, each within the timeout)."""
    return timedelta(seconds=4 * settings.WEBHOOK_TIMEOUT_SECONDS + 5)


def _claim(endpoint_id: int):
    """Take the lease on sending to the endpoint, if no other worker holds it, and say until
    when (None: another holds it). One conditional UPDATE, so two workers never send to one
    endpoint at once."""
    now = timezone.now()
    free = Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    until = now + lease()
    taken = WebhookEndpoint.objects.filter(free, pk=endpoint_id, enabled=True).update(
        claimed_until=until
    )
    return until if taken else None


def _renew(endpoint_id: int):
    """Hold the lease for one more attempt (each lasts less than a lease); until when."""
    until = timezone.now() + lease()
    WebhookEndpoint.objects.filter(pk=endpoint_id).update(claimed_until=until)
    return until


def _head(endpoint_id: int) -> WebhookDelivery | None:
    """The endpoint's oldest pending delivery: the only one it may be sent now."""
    return (
        WebhookDelivery.objects.filter(
            endpoint_id=endpoint_id, status="pending", endpoint__enabled=True
        )
        .select_related("event", "endpoint")
        .order_by("event_id")
        .first()
    )


def attempt(delivery: WebhookDelivery) -> bool:
    """Send `delivery` once and record how it went; whether it was delivered. The attempt is
    counted before it is made, so one a killed worker left is counted too."""
    now = timezone.now()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        attempts=delivery.attempts + 1,
        last_attempt_at=now,
        first_attempt_at=delivery.first_attempt_at or now,
    )
    delivery.attempts += 1
    delivery.first_attempt_at = delivery.first_attempt_at or now
    code, error = _post(delivery, now)
    _record(delivery, code, error)
    return error == ""


def _post(delivery: WebhookDelivery, now) -> tuple[int | None, str]:
    """POST the delivery; the answer's status code (None without one) and what was wrong
    ("" for a 2xx)."""
    endpoint, event = delivery.endpoint, delivery.event
    try:
        target = check_url(endpoint.url)
    except AddressRefused as refused:
        return None, str(refused)
    body = body_of(event)
    headers = {
        **signed_headers(endpoint.secret, event.message_id, body, now),
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "host": target.host_header,
    }
    # Sent to the address the guard checked (not a second look-up DNS could answer
    # differently); TLS still checks the certificate against the host. No proxy from the
    # environment, no redirects: either would send it elsewhere.
    try:
        with (
            httpx.Client(timeout=settings.WEBHOOK_TIMEOUT_SECONDS, trust_env=False) as client,
            client.stream(
                "POST",
                target.url_by_address,
                content=body.encode(),
                headers=headers,
                extensions={"sni_hostname": target.host},
            ) as response,
        ):
            # A 2xx says all there is to say; a failure's body says why, in the log.
            start = "" if response.is_success else _read_start(response)
    except httpx.HTTPError as error:
        return None, f"{type(error).__name__}: {error}"[:500]
    if 200 <= response.status_code < 300:
        return response.status_code, ""
    if response.is_redirect:
        return response.status_code, "answered with a redirect, which is not followed"
    return response.status_code, f"answered {response.status_code}: {start}"[:500]


def _read_start(response: httpx.Response) -> str:
    """The start of the answer's body: at most WEBHOOK_MAX_RESPONSE_BYTES of it, read for at
    most one timeout (a receiver dripping a byte at a time must not outlast the lease)."""
    read, deadline = b"", time.monotonic() + settings.WEBHOOK_TIMEOUT_SECONDS
    for chunk in response.iter_raw():
        read += chunk
        if len(read) >= settings.WEBHOOK_MAX_RESPONSE_BYTES or time.monotonic() > deadline:
            break
    return read[: settings.WEBHOOK_MAX_RESPONSE_BYTES].decode("utf-8", "replace").strip()


def _record(delivery: WebhookDelivery, code: int | None, error: str) -> None:
    """Write the attempt's outcome: delivered; or the next attempt's time; or, when the day of
    retries is spent, failed, with the endpoint disabled saying why."""
    now = timezone.now()
    schedule = settings.WEBHOOK_RETRY_SECONDS
    changes: dict = {"response_code": code, "last_error": error}
    with transaction.atomic():
        endpoint = (
            WebhookEndpoint.objects.select_for_update().filter(pk=delivery.endpoint_id).first()
        )
        if endpoint is None:
            return  # deleted meanwhile, with its deliveries
        if not error:
            changes.update(status=WebhookDelivery.Status.DELIVERED, delivered_at=now)
            endpoint.failing_since = None
        elif delivery.attempts <= len(schedule):
            wait = schedule[delivery.attempts - 1]
            changes["next_attempt_at"] = now + timedelta(seconds=wait)
            endpoint.failing_since = endpoint.failing_since or delivery.first_attempt_at
        else:
            changes["status"] = WebhookDelivery.Status.FAILED
            endpoint.enabled = False
            # A page showing it enabled is out of date now: its buttons get a 409.
            endpoint.version = F("version") + 1
            endpoint.disabled_reason = (
                f"Disabled by the worker on {now:%Y-%m-%d %H:%M} UTC: event {delivery.event_id} "
                f"failed {delivery.attempts} attempts since "
                f"{delivery.first_attempt_at:%Y-%m-%d %H:%M} UTC; the last: {error}"
            )[:1000]
        WebhookDelivery.objects.filter(pk=delivery.pk).update(**changes)
        endpoint.save(update_fields=["failing_since", "enabled", "disabled_reason", "version"])
