"""Making an API token: the projects it acts for, and its roles in each, never more than its
owner holds (`review.permissions.token_holder` holds it to that at every request too)."""

from __future__ import annotations

import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from review.models import ApiToken, Project, TokenGrant
from review.permissions import READER, ROLES, role_names
from review.refusals import ActionRefused
from review.security import Kind, record

# A grant's roles, as a command names them ("reader" alone: read, decide nothing).
GRANTABLE = (*ROLES, READER)


def owners_grants(owner) -> dict[Project, frozenset[str]]:
    """What a token acts for when its maker names nothing: every project its owner works in
    now, with the roles they hold there."""
    return {project: role_names(owner, project) for project in Project.objects.of_member(owner)}


def parse_grant(text: str) -> tuple[str, frozenset[str] | None]:
    """`SLUG` or `SLUG:ROLE,ROLE` as a project's slug and the roles named (None: the owner's
    roles there)."""
    slug, _, roles = text.partition(":")
    named = frozenset(role.strip() for role in roles.split(",") if role.strip())
    unknown = sorted(named - set(GRANTABLE))
    if unknown:
        raise ActionRefused(
            f"{text!r}: no role {', '.join(map(repr, unknown))}; the roles are "
            f"{', '.join(GRANTABLE)}"
        )
    return slug.strip(), (named or None) if roles else None


def create_token(
    owner,
    name: str,
    grants: list[tuple[str, frozenset[str] | None]] | None = None,
    key=None,
    expires_at=None,
    request=None,
) -> tuple[ApiToken, str]:
    """A token named `name` acting for `owner` in the projects `grants` name (slug, roles;
    roles None for the owner's there), or in every project of theirs when `grants` is None;
    and its key, which only its SHA-256 keeps (`key` for a test that must know it). Refused,
    with nothing made, for an inactive owner, a bad name, or a grant beyond what the owner
    holds; or one that expires (`expires_at`) before it is made."""
    if expires_at is not None and expires_at <= timezone.now():
        raise ActionRefused("the token would have expired already: choose a later expiry")
    if not owner.is_active:
        raise ActionRefused(f"user {owner.username!r} is inactive")
    if not name.strip() or len(name) > ApiToken._meta.get_field("name").max_length:
        raise ActionRefused("the token's name must be 1 to 100 characters")
    wanted = owners_grants(owner) if grants is None else _granted(owner, grants)
    if not wanted:
        raise ActionRefused(f"{owner.username} works in no project: the token would act for none")
    key = key or secrets.token_urlsafe(32)
    with transaction.atomic():
        token = ApiToken.objects.create(
            user=owner,
            name=name,
            key_sha256=hashlib.sha256(key.encode()).hexdigest(),
            expires_at=expires_at,
        )
        TokenGrant.objects.bulk_create(
            TokenGrant(token=token, project=project, **{role: role in roles for role in ROLES})
            for project, roles in wanted.items()
        )
        acts_for = "; ".join(
            f"{project.slug}: {', '.join(sorted(roles))}" for project, roles in wanted.items()
        )
        detail = f"{name!r} ({acts_for})"
        record(Kind.TOKEN_MADE, owner.username, request=request, detail=detail)
    return token, key


def _granted(owner, grants) -> dict[Project, frozenset[str]]:
    projects = {p.slug: p for p in Project.objects.of_member(owner)}
    wanted, problems = {}, []
    for slug, roles in grants:
        project = projects.get(slug)
        if project is None:
            problems.append(f"{owner.username} works in no project {slug!r}")
            continue
        held = role_names(owner, project)
        roles = held if roles is None else roles
        if beyond := sorted(roles - held - {READER}):
            problems.append(
                f"{owner.username} is no {', '.join(beyond)} in {slug!r}: a token may not do "
                "more than its owner"
            )
        wanted[project] = roles
    if problems:
        raise ActionRefused("; ".join(problems))
    return wanted


def revoke_token(token: ApiToken, actor, request=None) -> None:
    """Revoke `token` for good: its owner may, and staff may revoke anyone's. Revoking a
    revoked token again changes nothing (the first revocation is what it says)."""
    if actor.pk != token.user_id and not actor.is_staff:
        raise ActionRefused("only its owner and staff revoke a token")
    with transaction.atomic():
        revoked = ApiToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now(), revoked_by=actor
        )
        if revoked:
            detail = repr(token.name)
            record(
                Kind.TOKEN_REVOKED, token.user.username, request=request, actor=actor, detail=detail
            )
