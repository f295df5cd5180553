"""Webhooks: the endpoints a project's leads register, the events its decisions cause, and one
delivery of each event to each endpoint that wants it (`review.webhooks` sends them)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from review.models.hooks import DecisionHooks
from review.models.projects import InProject


class WebhookEndpoint(DecisionHooks, InProject):
    """An address of a project's that is sent the events it asked for, signed with its secret.

    The secret is kept as it was shown, in the Standard Webhooks `whsec_` form: the app signs
    every delivery with it, so unlike an API key it cannot be stored as a hash."""

    url = models.URLField(max_length=500)
    description = models.CharField(max_length=200, blank=True)
    # The event types wanted (`review.webhooks.events.EVENT_TYPES`).
    events = models.JSONField(default=list)
    secret = models.CharField(max_length=100)
    enabled = models.BooleanField(default=True)
    # Why it was disabled (by a person, or by the worker after a day of failures).
    disabled_reason = models.TextField(blank=True)
    # The first failure since it last answered 2xx; None while it answers.
    failing_since = models.DateTimeField(null=True, blank=True)
    # A worker's lease on sending to this endpoint (one at a time, in event order); a lease
    # that lapsed belongs to a worker that stopped mid-delivery.
    claimed_until = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    version = models.PositiveIntegerField(default=1)

    class Meta:
        ordering = ["project", "pk"]

    def __str__(self) -> str:
        return self.url

    def wants(self, event_type: str) -> bool:
        return self.enabled and event_type in self.events


class WebhookEvent(InProject):
    """Something that happened in a project that an endpoint asked to hear of: written in the
    transaction of the decision that caused it (so it exists exactly when that committed), and
    only when an enabled endpoint of the project wants its type. Its id orders its deliveries
    and, prefixed, is the `webhook-id` every attempt carries."""

    type = models.CharField(max_length=40)
    # The payload's `data`: ids, the actor, the time and where to fetch the whole object.
    data = models.JSONField(default=dict)
    at = models.DateTimeField()

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.type} #{self.pk}"

    @property
    def message_id(self) -> str:
        """The `webhook-id`: the same on every attempt, which is what receivers dedupe on."""
        return f"msg_{self.pk}"


class WebhookDeliveryQuerySet(models.QuerySet):
    def due(self, now) -> WebhookDeliveryQuerySet:
        """Pending deliveries whose next attempt is due, to enabled endpoints."""
        return self.filter(
            status=WebhookDelivery.Status.PENDING, next_attempt_at__lte=now, endpoint__enabled=True
        )

    def unclaimed_at(self, now) -> WebhookDeliveryQuerySet:
        """Those whose endpoint no worker is sending to."""
        return self.filter(
            Q(endpoint__claimed_until__isnull=True) | Q(endpoint__claimed_until__lt=now)
        )


class WebhookDelivery(DecisionHooks, models.Model):
    """One event to one endpoint: its status and its latest attempt (the delivery log)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed"

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    # When this try of the delivery began: a redelivery starts the day of retries again.
    first_attempt_at = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    response_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    # Bumped by people's decisions (a redelivery), not by the worker's attempts.
    version = models.PositiveIntegerField(default=1)

    objects = WebhookDeliveryQuerySet.as_manager()

    class Meta:
        ordering = ["-event_id", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event"], name="webhook_delivery_unique"),
        ]
        indexes = [
            # An endpoint's oldest pending delivery: what it is sent next.
            models.Index(fields=["endpoint", "status", "event"], name="webhook_delivery_queue"),
            models.Index(fields=["status", "next_attempt_at"], name="webhook_delivery_due"),
        ]

    def __str__(self) -> str:
        return f"{self.event} to {self.endpoint}"

    @property
    def decision_project_id(self) -> int:
        return self.endpoint.project_id
