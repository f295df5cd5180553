"""Inviting someone into a project by email, withdrawing or resending the invitation, and their
accepting. Each is in the security log; the membership it gives is made by
`review.actions.projects.set_membership`, in the inviter's name, so it is in the project's
decision log as every other membership is."""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Callable
from smtplib import SMTPException

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from review.actions.projects import ROLE_FIELDS, ProjectRefused, check_manager, set_membership
from review.models import Invitation, Membership, Project
from review.models.invitations import token_sha256
from review.refusals import ActionRefused
from review.security import Kind, record


class InvitationGone(ActionRefused):
    """The link no longer gives a membership: used, expired, withdrawn, replaced by a resent
    one, or its inviter may no longer add members. Its page says which (410)."""


def invite(
    project: Project,
    email: str,
    *,
    actor,
    roles: dict[str, bool],
    link_for: Callable[[str], str],
    request=None,
    mail_connection=None,
) -> Invitation:
    """Invite `email` into `project` with `roles` (those not named are not held) and mail the
    link, `link_for(token)`. A mail the server refuses or cannot take is refused here with its
    reason (ProjectRefused on "email"), and nothing is kept. Staff and the project's leads.
    `mail_connection`: where the mail goes, if not the settings' backend (the demo's console)."""
    check_manager(project, actor)
    unknown = set(roles) - set(ROLE_FIELDS)
    if unknown:
        raise ActionRefused(f"No such role: {', '.join(sorted(unknown))}.")
    email = get_user_model().objects.normalize_email(email.strip())
    now = timezone.now()
    if project.invitations.pending(now).filter(email__iexact=email).exists():
        raise ProjectRefused("email", f"An invitation of {email} to {project} is waiting already.")
    if project.memberships.filter(user__email__iexact=email).exists():
        raise ProjectRefused("email", f"A member of {project} already has the address {email}.")
    invitation, token = _made(project, email, actor=actor, roles=roles, now=now)
    try:
        _mail(invitation, link_for(token), mail_connection)
    except (SMTPException, OSError) as failed:
        # A link nobody received must not wait for a mail that never comes.
        invitation.delete()
        raise ProjectRefused(
            "email", f"The mail to {email} could not be sent ({failed}); nothing was kept."
        ) from None
    record(
        Kind.INVITED,
        email,
        request=request,
        actor=actor,
        detail=f"to {project.slug} as {invitation.role_label}",
    )
    return invitation


def _made(project: Project, email: str, *, actor, roles: dict[str, bool], now) -> tuple:
    """A new invitation row and its link's token (only the token's hash is kept)."""
    token = secrets.token_urlsafe(32)
    invitation = Invitation.objects.create(
        project=project,
        email=email,
        invited_by=actor,
        token_sha256=token_sha256(token),
        expires_at=now + dt.timedelta(seconds=settings.INVITATION_EXPIRY_SECONDS),
        **{name: bool(roles.get(name)) for name in ROLE_FIELDS},
    )
    return invitation, token


def _pending_locked(invitation: Invitation, now) -> Invitation:
    """The invitation's row, locked for the change, while its link still works; else
    InvitationGone with the reason (someone used, withdrew or resent it meanwhile)."""
    current = (
        # Only the invitation's row is locked: its inviter may be gone (a nullable join,
        # which PostgreSQL will not lock).
        Invitation.objects.select_for_update(of=("self",))
        .select_related("project", "invited_by")
        .get(pk=invitation.pk)
    )
    if reason := current.refusal(now):
        raise InvitationGone(reason)
    return current


def _sent(invitation: Invitation) -> str:
    by = invitation.invited_by.username if invitation.invited_by else "an account since removed"
    return f"sent by {by} on {invitation.created_at:%Y-%m-%d %H:%M} UTC"


def withdraw_invitation(invitation: Invitation, *, actor, request=None) -> Invitation:
    """Make a waiting invitation's link stop working (its page then says it was withdrawn).
    Staff and the project's leads. Refused with InvitationGone when it was used, withdrawn,
    resent or expired meanwhile."""
    check_manager(invitation.project, actor)
    now = timezone.now()
    with transaction.atomic():
        current = _pending_locked(invitation, now)
        current.withdrawn_at, current.withdrawn_by = now, actor
        current.save(update_fields=["withdrawn_at", "withdrawn_by"])
        record(
            Kind.INVITATION_WITHDRAWN,
            current.email,
            request=request,
            actor=actor,
            detail=f"to {current.project.slug} as {current.role_label}, {_sent(current)}",
        )
    return current


def resend_invitation(
    invitation: Invitation,
    *,
    actor,
    link_for: Callable[[str], str],
    request=None,
    mail_connection=None,
) -> Invitation:
    """Mail a new link for a waiting invitation, with the same address and roles and a full
    expiry from now, and make the old link stop working (its page then points to the newest
    mail). The new one is `actor`'s: the membership is given in their name. Returns it.
    Staff and the project's leads. Refused with InvitationGone as `withdraw_invitation` is;
    with ProjectRefused on "email" when the mail cannot be sent (then the old link still
    works, and nothing new is kept)."""
    check_manager(invitation.project, actor)
    now = timezone.now()
    # The rows change first and the mail goes after, outside the transaction: a slow SMTP
    # server must not hold the database's write lock (SQLite has one for everyone).
    with transaction.atomic():
        old = _pending_locked(invitation, now)
        new, token = _made(old.project, old.email, actor=actor, roles=old.roles, now=now)
        old.withdrawn_at, old.withdrawn_by, old.replaced_by = now, actor, new
        old.save(update_fields=["withdrawn_at", "withdrawn_by", "replaced_by"])
    try:
        _mail(new, link_for(token), mail_connection)
    except (SMTPException, OSError) as failed:
        with transaction.atomic():
            # As if nothing was asked: the old link works again, the new one is gone.
            old.withdrawn_at = old.withdrawn_by = old.replaced_by = None
            old.save(update_fields=["withdrawn_at", "withdrawn_by", "replaced_by"])
            new.delete()
        raise ProjectRefused(
            "email",
            f"The mail to {old.email} could not be sent ({failed}); the link sent before"
            " still works.",
        ) from None
    record(
        Kind.INVITATION_RESENT,
        new.email,
        request=request,
        actor=actor,
        detail=f"to {new.project.slug} as {new.role_label}, a new link until"
        f" {new.expires_at:%Y-%m-%d %H:%M} UTC; the one {_sent(old)} no longer works",
    )
    return new


def _mail(invitation: Invitation, link: str, connection=None) -> None:
    context = {"invitation": invitation, "link": link, "days": _days_left(invitation)}
    subject = f"You are invited to {invitation.project.name} on Grounding Review"
    send_mail(
        # A header holds one line: a project's name could hold more.
        " ".join(subject.splitlines()),
        render_to_string("review/invitations/mail.txt", context),
        None,
        [invitation.email],
        connection=connection,
    )


def _days_left(invitation: Invitation) -> int:
    return max(1, round((invitation.expires_at - timezone.now()) / dt.timedelta(days=1)))


def accept_invitation(invitation: Invitation, user, *, request=None) -> Membership:
    """Make `user` a member of the invitation's project with its roles, in the name of who
    invited them, and use the invitation up. Refused with InvitationGone when it was used or
    expired in the meantime, or its inviter may no longer add members; with ActionRefused when
    `user` is a member already (the invitation then stays unused)."""
    with transaction.atomic():
        current = _pending_locked(invitation, timezone.now())
        project, inviter = current.project, current.invited_by
        if inviter is None or not project.members_managed_by(inviter):
            raise InvitationGone(
                f"Whoever sent this invitation can no longer add members to {project}: ask one"
                " of its leads for a new one."
            )
        if Membership.objects.filter(project=project, user=user).exists():
            raise ActionRefused(f"{user.username} is a member of {project} already.")
        set_membership(project, user.username, actor=inviter, roles=current.roles)
        current.accepted_at, current.accepted_by = timezone.now(), user
        current.save(update_fields=["accepted_at", "accepted_by"])
        record(
            Kind.INVITATION_ACCEPTED,
            user.username,
            request=request,
            actor=inviter,
            detail=f"{current.email} joined {project.slug} as {current.role_label}",
        )
    return Membership.objects.get(project=project, user=user)


def accept_with_new_account(invitation: Invitation, username: str, password: str, *, request=None):
    """Make the account `username` with `password` and the invitation's address, and accept
    the invitation with it: both or neither. The password is checked by the form that asked
    for it (Django's validators)."""
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(
                username, email=invitation.email, password=password
            )
            accept_invitation(invitation, user, request=request)
    except IntegrityError:
        # Someone took the name between the form's check and the INSERT.
        raise ProjectRefused("username", f"The username “{username}” is taken.") from None
    return user
