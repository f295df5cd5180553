"""Bearer tokens for the JSON API, and the projects each may act for."""

from __future__ import annotations

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

    def __str__(self) -> str:
        return f"{self.name} ({self.user})"


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
