"""Writing the security log (`review.models.SecurityEvent`): `record`, and the receivers of
Django's own sign-in signals, so every sign-in door (the form, the admin's, single sign-on)
is recorded by the one that already says it happened; and of django-axes' lockout."""

from __future__ import annotations

from axes.signals import user_locked_out
from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.dispatch import receiver
from django.http import HttpRequest

from review.lockouts import lockouts_of
from review.models import SecurityEvent

Kind = SecurityEvent.Kind
DETAIL_CHARS = SecurityEvent._meta.get_field("detail").max_length
NAME_CHARS = SecurityEvent._meta.get_field("username").max_length


def address_of(request: HttpRequest | None) -> str | None:
    """The address a request came from, as the server saw it (REMOTE_ADDR: behind a proxy,
    the proxy's unless it sets it, which gunicorn's --forwarded-allow-ips governs)."""
    if request is None:
        return None
    return request.META.get("REMOTE_ADDR") or None


def record(
    kind: str,
    username: str = "",
    *,
    request: HttpRequest | None = None,
    actor=None,
    detail: str = "",
) -> SecurityEvent:
    """Append one event. A name or a detail longer than its column is cut, not refused: an
    attacker's 10,000-character username is still recorded as an attempt."""
    return SecurityEvent.objects.create(
        kind=kind,
        username=(username or "")[:NAME_CHARS],
        actor=actor if getattr(actor, "pk", None) else None,
        address=address_of(request),
        detail=detail[:DETAIL_CHARS],
    )


@receiver(user_logged_in, dispatch_uid="security-log-sign-in")
def _signed_in(sender, request, user, **kwargs) -> None:
    record(Kind.SIGN_IN, user.get_username(), request=request)


@receiver(user_logged_out, dispatch_uid="security-log-sign-out")
def _signed_out(sender, request, user, **kwargs) -> None:
    if user is not None:
        record(Kind.SIGN_OUT, user.get_username(), request=request)


@receiver(user_login_failed, dispatch_uid="security-log-sign-in-failed")
def _sign_in_failed(sender, credentials, request=None, **kwargs) -> None:
    # The credentials hold the password too; only the name is kept.
    record(Kind.SIGN_IN_FAILED, str(credentials.get("username", "")), request=request)


@receiver(user_locked_out, dispatch_uid="security-log-locked-out")
def _locked_out(sender, request, username, ip_address, **kwargs) -> None:
    # axes says so again at each try during a lockout, when it counted nothing (and its failure
    # is recorded as one); only the failure that locked is a lockout.
    if getattr(request, "axes_failures_since_start", None) is None:
        return
    for lockout in lockouts_of(username, ip_address):
        record(
            Kind.LOCKED_OUT,
            username or "",
            request=request,
            detail=f"the {lockout.of} {lockout.value}, after {lockout.failures} failed sign-ins,"
            f" until {lockout.ends_at:%Y-%m-%d %H:%M} UTC",
        )
