"""Bearer tokens for the JSON API, and the projects each may act for."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models

from review.models.projects import Project, Roles


class ApiToken(models.Model):
    """A bearer token for the JSON API. Only its SHA-256 is stored. It acts for its owner in
    the projects its grants name, with the roles they name there: never more than the owner
    holds at the time of the request (`review.permissions.token_holder`)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=100)
    key_sha256 = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # None: the key never expires (a command's, by default).
    expires_at = models.DateTimeField(null=True, blank=True)
    # Noted at most once a minute (`USE_NOTED_EVERY`), not at every request.
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    USE_NOTED_EVERY = dt.timedelta(minutes=1)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.user})"

    def refusal(self, now: dt.datetime) -> str:
        """Why the key may not be used at `now` ("" when it may): revoked, or expired."""
        if self.revoked_at is not None:
            by = f" by {self.revoked_by.username}" if self.revoked_by_id else ""
            return f"this key was revoked{by} on {self.revoked_at:%Y-%m-%d %H:%M} UTC"
        if self.expires_at is not None and self.expires_at <= now:
            return f"this key expired on {self.expires_at:%Y-%m-%d %H:%M} UTC"
        return ""

    def note_use(self, now: dt.datetime) -> None:
        if self.last_used_at is None or now - self.last_used_at >= self.USE_NOTED_EVERY:
            ApiToken.objects.filter(pk=self.pk).update(last_used_at=now)
            self.last_used_at = now


class TokenGrant(Roles):
    """One project a token may act for, and the roles it may act with there; a grant with no
    role reads the project and decides nothing."""

    token = models.ForeignKey(ApiToken, on_delete=models.CASCADE, related_name="grants")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["token", "project"]
        constraints = [
            models.UniqueConstraint(fields=["token", "project"], name="token_grant_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.token} in {self.project} ({self.role_label})"
