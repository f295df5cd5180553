"""What a person does with their second factor: enrol an authenticator app (start, then
confirm with a code, which makes their recovery codes), remove it, and give a code after the
password to be let in; and what staff do for someone who lost both their app and their
recovery codes: reset it. Each is in the security log. The rules are `review.second_factor`."""

from __future__ import annotations

from axes.handlers.proxy import AxesProxyHandler
from django.contrib.auth import authenticate, get_user_model, logout
from django.contrib.auth.signals import user_login_failed
from django.db import transaction
from django_otp import login as otp_login
from django_otp import verify_token
from django_otp.models import Device
from django_otp.plugins.otp_static.models import StaticDevice, StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from review.actions.accounts import end_sessions_of
from review.models import SecurityEvent
from review.refusals import ActionRefused
from review.second_factor import (
    DEVICE_NAME,
    RECOVERY_CODES,
    RECOVERY_NAME,
    authenticator_of,
    pending_authenticator_of,
    recovery_device_of,
)
from review.security import Kind, record

WRONG_CODE = (
    "That is neither the code your app shows now nor an unused recovery code. After a wrong"
    " code, wait a few seconds before the next."
)


class SecondFactorLockedOut(ActionRefused):
    """Too many failed sign-ins for this account or address (django-axes): signed out."""


def _is_app_code(code: str) -> bool:
    # An authenticator's codes are six digits, a recovery code is letters and digits: each is
    # tried on its own device only, so a wrong one slows down that device alone.
    return code.isdigit()


def start_enrolment(request) -> TOTPDevice:
    """A new, unconfirmed authenticator for the person signed in on `request` (any earlier
    unconfirmed one is dropped): its secret is for their app, and it counts for nothing until
    confirmed with a code. Refused while they have a confirmed one."""
    user = request.user
    if authenticator_of(user) is not None:
        raise ActionRefused("You have an authenticator already; remove it first.")
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user, confirmed=False).delete()
        device = TOTPDevice.objects.create(user=user, name=DEVICE_NAME, confirmed=False)
    record(Kind.SECOND_FACTOR, user.get_username(), request=request, detail="enrolment started")
    return device


def confirm_enrolment(request, code: str) -> list[str]:
    """Confirm the pending authenticator with a code from the app, make ten recovery codes
    (replacing any earlier ones) and count this session as verified. Returns the recovery
    codes, which are shown this once. Refused for a wrong code, nothing changed."""
    user = request.user
    device = pending_authenticator_of(user)
    if device is None:
        raise ActionRefused("No enrolment is under way: start one first.")
    if not device.verify_token(code.strip()):
        raise ActionRefused("That is not the code your app shows now. Check its clock too.")
    with transaction.atomic():
        device.confirmed = True
        device.save(update_fields=["confirmed"])
        StaticDevice.objects.filter(user=user).delete()
        recovery = StaticDevice.objects.create(user=user, name=RECOVERY_NAME)
        codes = [StaticToken.random_token() for _ in range(RECOVERY_CODES)]
        StaticToken.objects.bulk_create(StaticToken(device=recovery, token=c) for c in codes)
    otp_login(request, device)
    record(
        Kind.SECOND_FACTOR,
        user.get_username(),
        request=request,
        detail=f"authenticator enrolled, {RECOVERY_CODES} recovery codes made",
    )
    return codes


def disenrol(request, code_or_password: str) -> SecurityEvent:
    """Remove the person's authenticator and recovery codes, on a current code or their
    password (checked through `authenticate`, so a wrong one counts towards a lockout)."""
    user = request.user
    if authenticator_of(user) is None:
        raise ActionRefused("You have no second factor to remove.")
    given = code_or_password.strip()
    if not _code_matches(user, given) and (
        authenticate(request, username=user.get_username(), password=code_or_password) != user
    ):
        raise ActionRefused("That is neither a current code nor your password: nothing removed.")
    with transaction.atomic():
        TOTPDevice.objects.filter(user=user).delete()
        StaticDevice.objects.filter(user=user).delete()
    return record(
        Kind.SECOND_FACTOR, user.get_username(), request=request, detail="second factor removed"
    )


def reset_second_factor(username: str, *, actor, reason: str, request=None) -> SecurityEvent:
    """Remove `username`'s authenticator and recovery codes and end every session of theirs,
    for someone who lost both: staff's, with the reason they give, recorded with who did it
    and from where. Where a second factor is required, the person enrols again at their next
    sign-in (`review.second_factor.must_enrol`). Refused, nothing changed, for anyone but
    staff, without a reason, for an unknown name, one's own (removed on /account/ with a code
    or the password) and someone with no second factor."""
    if not getattr(actor, "is_staff", False):
        raise ActionRefused("Only staff reset someone else's second factor.")
    reason = " ".join(reason.split())
    if not reason:
        raise ActionRefused("Say why the second factor is reset: the reason is recorded.")
    person = get_user_model().objects.filter(username=username).first()
    if person is None:
        raise ActionRefused(f"No account is named “{username}”.")
    if person == actor:
        raise ActionRefused("Remove your own second factor on your account page.")
    with transaction.atomic():
        removed, _ = TOTPDevice.objects.filter(user=person).delete()
        removed += StaticDevice.objects.filter(user=person).delete()[0]
        if not removed:
            raise ActionRefused(f"{username} has no second factor to reset.")
        ended = end_sessions_of(person)
        return record(
            Kind.SECOND_FACTOR_RESET,
            username,
            request=request,
            actor=actor,
            detail=f"authenticator and recovery codes removed, {ended} sessions ended: {reason}",
        )


def _code_matches(user, code: str) -> Device | None:
    """The device that takes `code` (used up: a recovery code is gone, an app's code cannot be
    given again), or None."""
    device = authenticator_of(user) if _is_app_code(code) else recovery_device_of(user)
    if device is None:
        return None
    return verify_token(user, device.persistent_id, code.lower())


def verify_second_factor(request, code: str) -> Device:
    """Let the person signed in on `request` in with a code from their app or a recovery code:
    this session is verified from now on. A wrong code is a failed sign-in (the security log,
    and django-axes' count, which locks the account and address out as a wrong password does);
    locked out, they are signed out (SecondFactorLockedOut)."""
    user = request.user
    username = user.get_username()
    credentials = {"username": username}
    if not AxesProxyHandler.is_allowed(request, credentials):
        logout(request)
        raise SecondFactorLockedOut("Too many failed sign-ins: you are signed out for now.")
    device = _code_matches(user, code.strip())
    if device is None:
        user_login_failed.send(__name__, credentials=credentials, request=request)
        if getattr(request, "axes_locked_out", False):
            logout(request)
            raise SecondFactorLockedOut("Too many failed sign-ins: you are signed out for now.")
        raise ActionRefused(WRONG_CODE)
    otp_login(request, device)
    if isinstance(device, StaticDevice):
        detail = f"signed in with a recovery code, {device.token_set.count()} left"
    else:
        detail = "signed in with an authenticator code"
    record(Kind.SECOND_FACTOR, username, request=request, detail=detail)
    return device
