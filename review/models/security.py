"""The security log: who signed in, failed to, was locked out, was invited, gained or lost a
role by single sign-on, enrolled a second factor, made or revoked an API token; when, and from
which address. Kept apart from the decision log (it is no decision on an item, and is no
project's), append-only as that one is (in the database too: review.log_triggers), for staff
to read."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class SecurityLogError(Exception):
    pass


REFUSED = "the security log is append-only: rows are never changed or removed"


class SecurityEventQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise SecurityLogError(REFUSED)

    def delete(self):
        raise SecurityLogError(REFUSED)


class SecurityEvent(models.Model):
    class Kind(models.TextChoices):
        SIGN_IN = "sign_in", "Signed in"
        SIGN_IN_FAILED = "sign_in_failed", "Sign-in failed"
        SIGN_OUT = "sign_out", "Signed out"
        LOCKED_OUT = "locked_out", "Locked out"
        LOCKOUT_LIFTED = "lockout_lifted", "Lockout lifted"
        PASSWORD_CHANGED = "password_changed", "Password changed"
        PASSWORD_RESET_ASKED = "password_reset_asked", "Password reset asked for"
        INVITED = "invited", "Invited"
        INVITATION_ACCEPTED = "invitation_accepted", "Invitation accepted"
        INVITATION_WITHDRAWN = "invitation_withdrawn", "Invitation withdrawn"
        INVITATION_RESENT = "invitation_resent", "Invitation resent"
        SSO_ROLES = "sso_roles", "Roles set by single sign-on"
        SECOND_FACTOR = "second_factor", "Second factor"
        SECOND_FACTOR_RESET = "second_factor_reset", "Second factor reset by staff"
        TOKEN_MADE = "token_made", "API token made"
        TOKEN_REVOKED = "token_revoked", "API token revoked"
        SIGNED_OUT_EVERYWHERE = "signed_out_everywhere", "Signed out everywhere"

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    kind = models.CharField(max_length=32, choices=Kind.choices)
    # Whom the event is about, by name: kept as it was, even for a name nobody has (a failed
    # sign-in) or an account since removed.
    username = models.CharField(max_length=150, blank=True, db_index=True)
    # Who did it, when someone else than `username` did (staff revoking a token, a lead
    # inviting someone). Kept, as the decision log keeps who decided: the database refuses
    # to change a row (review.log_triggers), so it could not forget them either.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    address = models.GenericIPAddressField(null=True, blank=True)
    detail = models.CharField(max_length=500, blank=True)

    objects = SecurityEventQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.get_kind_display()} {self.username}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise SecurityLogError(REFUSED)
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise SecurityLogError(REFUSED)
