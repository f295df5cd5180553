"""Single sign-on's changes: staff mapping a claim value to roles in a project (and taking a
mapping away), and, at every sign-in through the provider, the person's memberships in the
mapped projects set from their claims. Each is logged: the mappings and memberships in the
project's decision log, what a sign-in changed in the security log too."""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction

from review import security
from review.actions.projects import ROLE_FIELDS, ProjectRefused, set_membership_by_sign_on
from review.decisions import ActionRefused, delete_logged, record_made
from review.models import ClaimRole, Decision, Membership, Project

MAX_VALUE_CHARS = ClaimRole._meta.get_field("claim_value").max_length


def check_staff(actor) -> None:
    if not actor.is_staff:
        raise ActionRefused("Only staff map sign-on claims to roles.")


def map_claim(*, actor, claim_value: str, project: Project, roles: dict[str, bool]) -> Decision:
    """Whoever's claims hold `claim_value` gets `roles` in `project` from their next sign-in
    ("claim_role.add"). The same value mapped twice to one project is refused. Staff only."""
    check_staff(actor)
    value = claim_value.strip()
    if not value or len(value) > MAX_VALUE_CHARS:
        raise ProjectRefused(
            "claim_value", f"Give a claim value of 1 to {MAX_VALUE_CHARS} characters."
        )
    held = {name: bool(roles.get(name)) for name in ROLE_FIELDS}
    refusal = f"“{value}” is already mapped in {project}: remove that mapping first."
    try:
        with transaction.atomic():
            mapping = ClaimRole.objects.create(claim_value=value, project=project, **held)
            return record_made(
                mapping,
                actor=actor,
                action="claim_role.add",
                after={"claim_value": value, "project": project.slug, **held},
            )
    except IntegrityError:
        raise ProjectRefused("claim_value", refusal) from None


def unmap_claim(mapping: ClaimRole, *, actor) -> Decision:
    """Take a mapping away ("claim_role.remove"); those it gave roles lose them at their next
    sign-in, unless another of their values gives them. Staff only."""
    check_staff(actor)
    before = {
        "claim_value": mapping.claim_value,
        "project": mapping.project.slug,
        **{name: getattr(mapping, name) for name in ROLE_FIELDS},
    }
    return delete_logged(mapping, actor=actor, action="claim_role.remove", before=before, after={})


def claim_values(claims: dict) -> set[str]:
    """The values of the roles claim (settings.SSO_ROLES_CLAIM): a list, or one string as
    some providers send a single group."""
    value = claims.get(settings.SSO_ROLES_CLAIM) or []
    if isinstance(value, str):
        value = [value]
    return {item for item in value if isinstance(item, str)} if isinstance(value, list) else set()


def apply_claims(user, claims: dict, *, request=None) -> list[str]:
    """Set `user`'s memberships from their claims, in every project that has a mapping, and
    say what changed ("codes: Reader → Editor"), also in the security log (SSO_ROLES).

    In a mapped project the claims are the whole truth for whoever signs in by the provider:
    a role no value of theirs gives any more is taken away, and so is a place there that none
    gives, even one a lead gave by hand. A project without mappings is left as its leads
    keep it: single sign-on never touches its memberships."""
    given = ClaimRole.objects.roles_for(claim_values(claims))
    changes = []
    with transaction.atomic():
        for project in Project.objects.filter(pk__in=given).order_by("slug"):
            before = project.memberships.filter(user=user).first()
            roles = given[project.pk]
            if set_membership_by_sign_on(project, user, roles) is None:
                continue
            was = before.role_label if before else "not a member"
            # An unsaved membership only to name the roles as the members page does.
            now = Membership(**roles).role_label if roles is not None else "not a member"
            changes.append(f"{project.slug}: {was} → {now}")
        if changes:
            detail = "; ".join(changes)
            security.record(
                security.Kind.SSO_ROLES, user.get_username(), request=request, detail=detail
            )
    return changes
