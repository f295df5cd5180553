"""Single sign-on: who a provider's subject is here, and which project roles a claim value
(a group the provider puts in its claims) gives. Staff keep the mappings; at every sign-in
through the provider the person's memberships in mapped projects follow their claims
(`review.actions.sign_on`)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from review.models.hooks import DecisionHooks
from review.models.projects import Project, Roles


class SignOnIdentity(models.Model):
    """The account a provider's subject (`sub`, stable and never reused) signs in to. The
    username is made from a claim, and may be changed or suffixed to stay unique, so it
    cannot be what finds the person again."""

    subject = models.CharField(max_length=255, unique=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sign_on_identity"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.subject} → {self.user}"


class ClaimRoleQuerySet(models.QuerySet):
    def roles_for(self, claim_values: set[str]) -> dict[int, dict[str, bool] | None]:
        """Project id -> the roles someone whose claims hold `claim_values` gets there, for
        every project with a mapping: every role any of their values gives, or None (no place
        in it) when none of their values is mapped there."""
        given: dict[int, dict[str, bool] | None] = {}
        for mapping in self:
            held = given.setdefault(mapping.project_id, None)
            if mapping.claim_value in claim_values:
                given[mapping.project_id] = {
                    name: bool(held and held[name]) or getattr(mapping, name)
                    for name, _ in Roles.NAMES
                }
        return given


class ClaimRole(DecisionHooks, Roles):
    """Whoever's claims hold `claim_value` is a member of `project` with these roles (none: a
    reader). Several values may map to one project; a person gets every role any of theirs
    gives."""

    claim_value = models.CharField(max_length=200)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="claim_roles")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ClaimRoleQuerySet.as_manager()

    class Meta:
        ordering = ["project", "claim_value"]
        constraints = [
            # A second "add" of the same value for the same project (a form sent twice) is
            # refused, not stored again.
            models.UniqueConstraint(fields=["claim_value", "project"], name="claim_role_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.claim_value} → {self.project} ({self.role_label})"
