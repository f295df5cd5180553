"""Two-factor sign-in, the rules: who has a second factor, who must have one where, and which
views a person may reach before giving a code (or, when they must enrol, before enrolling).
django-otp holds the devices: a TOTP device (an authenticator app's secret) and a static
device (the recovery codes, each used once). The gate that asks these is
`review.middleware.SecondFactorGate`; what a person does is in `review.actions.second_factor`."""

from __future__ import annotations

import base64

from django.conf import settings
from django_otp.plugins.otp_static.models import StaticDevice
from django_otp.plugins.otp_totp.models import TOTPDevice

# What an authenticator app shows for the account, before OTP_TOTP_ISSUER's name.
DEVICE_NAME = "authenticator"
RECOVERY_NAME = "recovery codes"
RECOVERY_CODES = 10


def authenticator_of(user) -> TOTPDevice | None:
    """The person's confirmed authenticator, or None: they have no second factor."""
    return TOTPDevice.objects.filter(user=user, confirmed=True).first()


def pending_authenticator_of(user) -> TOTPDevice | None:
    """The authenticator whose enrolment was started and not yet confirmed with a code."""
    return TOTPDevice.objects.filter(user=user, confirmed=False).first()


def recovery_device_of(user) -> StaticDevice | None:
    return StaticDevice.objects.filter(user=user, confirmed=True).first()


def secret_of(device: TOTPDevice) -> str:
    """The device's key as an authenticator app takes it typed in: base32, unpadded."""
    return base64.b32encode(device.bin_key).decode().rstrip("=")


def must_enrol(user, project=None) -> bool:
    """Whether `user` is required a second factor here and has none: everyone's with
    REVIEW_REQUIRE_SECOND_FACTOR=1, a project's members where the project asks for it."""
    required = settings.REQUIRE_SECOND_FACTOR or bool(
        project is not None and project.require_second_factor
    )
    return required and authenticator_of(user) is None


# Views a signed-in person may reach before the second factor: the code page and signing out.
BEFORE_SECOND_FACTOR = "second_factor_not_yet"
# Views a person who must enrol may reach before they have: the account page and enrolment.
WHILE_ENROLLING = "second_factor_enrolling"


def before_second_factor(view):
    """Mark a view as reachable by someone signed in who has not given their code yet (and
    so by someone who has not enrolled yet, too)."""
    setattr(view, BEFORE_SECOND_FACTOR, True)
    setattr(view, WHILE_ENROLLING, True)
    return view


def while_enrolling(view):
    """Mark a view as reachable by someone who must enrol and has not: where they enrol."""
    setattr(view, WHILE_ENROLLING, True)
    return view
