"""The two ways to sign in: a password (Django's own backend, which can be turned off for all
but one break-glass staff account), and single sign-on through an OpenID Connect provider
(mozilla-django-oidc's backend, which finds the person by their subject, makes an account
the first time, and sets their memberships from their claims)."""

from __future__ import annotations

import re
import unicodedata

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import SuspiciousOperation
from django.db import IntegrityError, transaction
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from review.actions.sign_on import apply_claims
from review.models import SignOnIdentity

USERNAME_CHARS = get_user_model()._meta.get_field("username").max_length
# What Django's username validator refuses, each run made one dash.
NOT_IN_A_USERNAME = re.compile(r"[^\w.@+-]+")


def password_sign_in_allowed(username: str | None) -> bool:
    """Whether `username` may sign in with a password: anyone, unless REVIEW_PASSWORD_SIGN_IN=0
    leaves it to the break-glass account (REVIEW_BREAK_GLASS_USERNAME)."""
    if settings.PASSWORD_SIGN_IN:
        return True
    return bool(settings.BREAK_GLASS_USERNAME) and username == settings.BREAK_GLASS_USERNAME


class PasswordBackend(ModelBackend):
    """Django's username and password, for every sign-in form (the site's and the admin's).
    A refusal here is a failed sign-in like a wrong password, in the security log too."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if not password_sign_in_allowed(username):
            return None
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is not None and not settings.PASSWORD_SIGN_IN and not user.is_staff:
            return None  # the break-glass account is staff's, or no account at all
        return user


def username_from(claims: dict) -> str:
    """A username for a new account, from the claim REVIEW_SSO_USERNAME_CLAIM names (else the
    email's local part): only what Django's usernames allow, and unique, with "-2", "-3"…
    when taken. Never an existing account's name: a provider must not hand out its holder's
    account to whoever it names so."""
    wanted = str(claims.get(settings.SSO_USERNAME_CLAIM) or "")
    wanted = wanted or str(claims.get("email") or "").partition("@")[0]
    base = NOT_IN_A_USERNAME.sub("-", unicodedata.normalize("NFKC", wanted)).strip("-.")
    base = base[: USERNAME_CHARS - 8] or "user"
    taken = get_user_model().objects.filter(username__iregex=rf"^{re.escape(base)}(-[0-9]+)?$")
    names = {name.lower() for name in taken.values_list("username", flat=True)}
    candidate, number = base, 1
    while candidate.lower() in names:
        number += 1
        candidate = f"{base}-{number}"
    return candidate


class SignOnBackend(OIDCAuthenticationBackend):
    """mozilla-django-oidc's authorization-code flow (the ID token's signature and nonce,
    PKCE), with the person found by the provider's subject rather than by email (which
    neither identifies nor stays), and their memberships set from their claims each time."""

    def get_userinfo(self, access_token, id_token, payload):
        """The userinfo endpoint's claims over the ID token's (some providers put groups in
        only one), refused unless both are about the same subject (OpenID Connect 5.3.2)."""
        claims = super().get_userinfo(access_token, id_token, payload)
        if claims.get("sub") != payload.get("sub"):
            raise SuspiciousOperation("The userinfo's subject is not the ID token's.")
        return {**payload, **claims}

    def verify_claims(self, claims):
        return isinstance(claims.get("sub"), str) and bool(claims["sub"])

    def filter_users_by_claims(self, claims):
        return self.UserModel.objects.filter(sign_on_identity__subject=claims["sub"])

    def create_user(self, claims):
        try:
            with transaction.atomic():
                user = self.UserModel.objects.create_user(
                    username_from(claims), email=str(claims.get("email") or "")
                )
                SignOnIdentity.objects.create(subject=claims["sub"], user=user)
        except IntegrityError:
            # The same person's first sign-in in two tabs at once: the other one made it.
            user = self.filter_users_by_claims(claims).get()
        return self.update_user(user, claims)

    def update_user(self, user, claims):
        if user.is_active:
            apply_claims(user, claims, request=self.request)
        return user
