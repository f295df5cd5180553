"""The single sign-on provider's endpoints: each one set by hand (OIDC_OP_…), else from the
provider's discovery document, `{OIDC_ISSUER}/.well-known/openid-configuration` (OpenID
Connect Discovery 1.0), fetched the first time a sign-in needs it (never at start-up: the app
starts while the provider is down) and kept in the process for DISCOVERY_SECONDS. And signing
out of the provider: whether a session may, and the pages' policy letting it."""

from __future__ import annotations

import json
import threading
from time import monotonic
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY
from django.http import HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin
from mozilla_django_oidc.utils import import_from_settings

# Each endpoint's setting and the discovery document's name for it (Discovery 3).
ENDPOINT_FIELDS = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}
# A provider's keys and endpoints change rarely, and an hour is as long as one that moved
# them (or rotated to a new key address) waits for the app to follow.
DISCOVERY_SECONDS = 3600
# A real document is a few kilobytes; more is not one.
DOCUMENT_MAX_BYTES = 256 * 1024

_documents: dict[str, tuple[float, dict]] = {}
_fetching = threading.Lock()


class ProviderUnavailable(Exception):
    """The provider could not be reached, or its discovery document cannot be used; the
    message says which, for the operator (the person signing in is told less)."""


def endpoint(name: str) -> str:
    """The endpoint the setting `name` (one of ENDPOINT_FIELDS) is for: the setting's own
    value, else the discovery document's."""
    explicit = getattr(settings, name, "")
    if explicit:
        return explicit
    field = ENDPOINT_FIELDS[name]
    address = discovery().get(field)
    if not _is_web_address(address):
        raise ProviderUnavailable(
            f"The discovery document of {settings.OIDC_ISSUER} names no {field}"
            f" (an http or https address); set {name}."
        )
    return address


def end_session_endpoint() -> str | None:
    """Where the provider signs a person out (RP-initiated logout 1.0), when its discovery
    document names one on the issuer's own origin (the only one the pages' policy lets the
    sign-out form reach: SignOutMayReachProvider); None without OIDC_ISSUER."""
    if not settings.OIDC_ISSUER:
        return None
    address = discovery().get("end_session_endpoint")
    if _is_web_address(address) and _origin(address) == _origin(settings.OIDC_ISSUER):
        return address
    return None


def signs_out_of_provider(request: HttpRequest) -> bool:
    """Whether signing out of this session signs out of the provider too: it signed in
    through the provider, and REVIEW_SSO_SIGN_OUT_OF_PROVIDER is on (with OIDC_ISSUER, whose
    discovery document may name where)."""
    return (
        settings.SSO_ENABLED
        and settings.SSO_SIGN_OUT_OF_PROVIDER
        and bool(settings.OIDC_ISSUER)
        and request.session.get(BACKEND_SESSION_KEY) == "review.backends.SignOnBackend"
    )


class SignOutMayReachProvider(MiddlewareMixin):
    """Signing out of the provider is the sign-out form's redirect to it, which the pages'
    Content-Security-Policy governs too (form-action): a page of someone who signs out of the
    provider allows the issuer's origin there."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        # Only pages have forms (and so an API answer does not read the session).
        is_page = response.get("Content-Type", "").startswith("text/html")
        if is_page and hasattr(request, "session") and signs_out_of_provider(request):
            update = getattr(response, "_csp_update", None) or {}
            response._csp_update = update | {"form-action": [_origin(settings.OIDC_ISSUER)]}
        return response


def setting(attr: str, *default):
    """mozilla-django-oidc's `get_settings`, with the endpoints from `endpoint`."""
    if attr in ENDPOINT_FIELDS:
        return endpoint(attr)
    return import_from_settings(attr, *default)


def discovery() -> dict:
    """OIDC_ISSUER's discovery document, fetched at most once every DISCOVERY_SECONDS in
    this process (a failure is not kept: the next sign-in tries again)."""
    issuer = settings.OIDC_ISSUER
    with _fetching:
        fetched_at, document = _documents.get(issuer, (None, None))
        if document is None or monotonic() - fetched_at > DISCOVERY_SECONDS:
            document = _fetched(issuer)
            _documents[issuer] = (monotonic(), document)
    return document


def _fetched(issuer: str) -> dict:
    # Discovery 4: the issuer, without a trailing slash, then the well-known path.
    address = issuer.rstrip("/") + "/.well-known/openid-configuration"
    try:
        with requests.get(
            address,
            timeout=settings.OIDC_TIMEOUT,
            verify=import_from_settings("OIDC_VERIFY_SSL", True),
            proxies=import_from_settings("OIDC_PROXY", None),
            stream=True,
        ) as answer:
            answer.raise_for_status()
            body = b""
            for chunk in answer.iter_content(64 * 1024):
                body += chunk
                if len(body) > DOCUMENT_MAX_BYTES:
                    raise ProviderUnavailable(f"{address} is over {DOCUMENT_MAX_BYTES} bytes.")
    except requests.RequestException as error:
        raise ProviderUnavailable(f"{address} could not be fetched: {error}") from error
    try:
        document = json.loads(body)
    except ValueError as error:
        raise ProviderUnavailable(f"{address} is not JSON: {error}") from error
    if not isinstance(document, dict):
        raise ProviderUnavailable(f"{address} is not a JSON object.")
    # Discovery 4.3: a document for another issuer (an impostor's, or a typo's) is refused.
    if document.get("issuer") != issuer:
        raise ProviderUnavailable(
            f"{address} names the issuer {document.get('issuer')!r}, not OIDC_ISSUER"
            f" ({issuer!r}); they must be the same, character for character."
        )
    return document


def _is_web_address(value) -> bool:
    if not isinstance(value, str):
        return False
    parts = urlsplit(value)
    return parts.scheme in {"http", "https"} and bool(parts.netloc)


def _origin(address: str) -> str:
    parts = urlsplit(address)
    return f"{parts.scheme}://{parts.netloc}"
