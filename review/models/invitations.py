"""Invitations: a lead (or staff) asks someone, by email address, to work in a project with
the roles they choose. The mailed link works once, until it expires, is withdrawn or is
replaced by a resent one; following it, the person makes an account (or uses the one they are
signed in with) and becomes a member."""

from __future__ import annotations

import datetime as dt
import hashlib

from django.conf import settings
from django.db import models

from review.models.projects import Project, Roles


def token_sha256(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class InvitationQuerySet(models.QuerySet):
    def pending(self, now: dt.datetime) -> InvitationQuerySet:
        """Those whose link still works at `now`: the twin of `Invitation.refusal`."""
        return self.filter(accepted_at=None, withdrawn_at=None, expires_at__gt=now)

    def with_token(self, token: str) -> Invitation | None:
        return self.filter(token_sha256=token_sha256(token)).first()


class Invitation(Roles):
    """An address asked into a project with roles. Only the SHA-256 of its link's token is
    kept, as an API token's is: the link is in the mail, and nowhere else."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    # The membership is given in their name when the link is followed: a lead who has since
    # stopped being one can no longer add anyone by it.
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    token_sha256 = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # When a lead or staff made the link stop working: withdrawn, or resent, in which case
    # `replaced_by` is the invitation whose new link was mailed instead.
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    replaced_by = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="replaces"
    )

    objects = InvitationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.email} to {self.project} ({self.role_label})"

    @property
    def roles(self) -> dict[str, bool]:
        return {name: getattr(self, name) for name, _ in self.NAMES}

    def refusal(self, now: dt.datetime) -> str:
        """Why the link no longer works at `now` ("" while it does): used, replaced by a newer
        link, withdrawn, or expired."""
        # Not by whom: whoever holds the link learns no account's name from it.
        if self.accepted_at is not None:
            return f"This invitation was used on {self.accepted_at:%Y-%m-%d %H:%M} UTC."
        if self.replaced_by_id is not None:
            return (
                f"This link was replaced on {self.withdrawn_at:%Y-%m-%d %H:%M} UTC by a new one,"
                " mailed to the same address: follow the link in the newest mail."
            )
        if self.withdrawn_at is not None:
            return f"This invitation was withdrawn on {self.withdrawn_at:%Y-%m-%d %H:%M} UTC."
        if self.expires_at <= now:
            return f"This invitation expired on {self.expires_at:%Y-%m-%d %H:%M} UTC."
        return ""
