"""The two ways to sign in: a password (Django's own backend, which can be turned off for all
but one break-glass staff account), and single sign-on through an OpenID Connect provider
(mozilla-django-oidc's backend, which finds the person by their subject, makes an account
the first time, and sets their memberships from their claims, once their ID token passed the
checks of OpenID Connect Core 3.1.3.7)."""

from __future__ import annotations

import logging
import re
import unicodedata

import jwt
import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import SuspiciousOperation
from django.db import IntegrityError, transaction
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from review.actions.sign_on import apply_claims
from review.models import SignOnIdentity
from review.sign_on_provider import ProviderUnavailable, endpoint

logger = logging.getLogger(__name__)

USERNAME_CHARS = get_user_model()._meta.get_field("username").max_length
# What Django's username validator refuses, each run made one dash.
NOT_IN_A_USERNAME = re.compile(r"[^\w.@+-]+")
# How far the provider's clock may be from ours when a token's times (exp, iat, nbf) are
# checked: a provider a few seconds ahead would otherwise issue tokens "from the future".
CLOCK_SKEW_SECONDS = 120


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
    PKCE), with the ID token's claims checked too, and the person found by the provider's
    subject rather than by email (which neither identifies nor stays), and their memberships
    set from their claims each time."""

    def authenticate(self, request, nonce=None, code_verifier=None):
        """The provider's answer at the callback, signed in or refused (None: a failed
        sign-in, in the security log). Django offers a backend only the credentials its
        signature names, so a password sign-in never comes here, nor waits on the provider.
        ProviderUnavailable when the provider or its discovery document cannot be had."""
        # The library reads its endpoints when the backend is made (at every sign-in and
        # every signed-in request); they are only needed, and discovered, here.
        self.OIDC_OP_TOKEN_ENDPOINT = endpoint("OIDC_OP_TOKEN_ENDPOINT")
        self.OIDC_OP_USER_ENDPOINT = endpoint("OIDC_OP_USER_ENDPOINT")
        self.OIDC_OP_JWKS_ENDPOINT = endpoint("OIDC_OP_JWKS_ENDPOINT")
        try:
            return super().authenticate(request, nonce=nonce, code_verifier=code_verifier)
        except SuspiciousOperation as refused:  # a token the checks refuse
            logger.warning("Single sign-on refused: %s", refused)
        except requests.HTTPError as refused:  # an error answer (a code used twice)
            logger.warning("Single sign-on refused by the provider: %s", refused)
        except requests.RequestException as error:
            raise ProviderUnavailable(f"The provider could not be reached: {error}") from error
        return None

    def _verify_jws(self, payload, key):
        """The library's check of a token's signature (by the algorithm OIDC_RP_SIGN_ALGO
        names), with its times allowed CLOCK_SKEW_SECONDS, and refused as a failed sign-in:
        the library's own decode allows no skew and lets an expired token through as an
        error of the server."""
        try:
            algorithm = jwt.get_unverified_header(payload).get("alg")
            if algorithm != self.OIDC_RP_SIGN_ALGO:
                raise SuspiciousOperation(
                    f"The token is signed with {algorithm!r}, not OIDC_RP_SIGN_ALGO."
                )
            return jwt.decode(
                payload,
                key,
                algorithms=[algorithm],
                leeway=CLOCK_SKEW_SECONDS,
                options={"verify_aud": False},  # the ID token's audience: check_id_token
            )
        except jwt.InvalidTokenError as refused:
            raise SuspiciousOperation(f"The token is refused: {refused}.") from refused

    def verify_token(self, token, **kwargs):
        """The library verifies two kinds of token here: the ID token, with the nonce it was
        asked for, and a signed userinfo, without; the ID token's claims are checked too."""
        payload = super().verify_token(token, **kwargs)
        if "nonce" in kwargs:
            self.check_id_token(payload)
        return payload

    def check_id_token(self, claims: dict) -> None:
        """Refuse (SuspiciousOperation) an ID token that OpenID Connect Core 3.1.3.7 says is
        not ours to accept: from another issuer than OIDC_ISSUER (when it is set), for
        another client, or without an expiry (whose time `_verify_jws` checked)."""
        client_id = self.OIDC_RP_CLIENT_ID
        issuer = settings.OIDC_ISSUER
        if issuer and claims.get("iss") != issuer:
            raise SuspiciousOperation(
                f"The ID token's issuer {claims.get('iss')!r} is not OIDC_ISSUER ({issuer!r})."
            )
        audience = claims.get("aud")
        audiences = [audience] if isinstance(audience, str) else audience
        if not isinstance(audiences, list) or client_id not in audiences:
            raise SuspiciousOperation(f"The ID token is for {audience!r}, not {client_id!r}.")
        # Several audiences: the one it was issued to must be named, and be us.
        if (len(audiences) > 1 or "azp" in claims) and claims.get("azp") != client_id:
            raise SuspiciousOperation(
                f"The ID token was issued to {claims.get('azp')!r}, not {client_id!r}."
            )
        if "exp" not in claims:
            raise SuspiciousOperation("The ID token has no expiry (exp).")

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
