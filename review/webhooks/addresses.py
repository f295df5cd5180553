"""Where a webhook may go: the guard that keeps an endpoint from reaching the app's own machine
or network (loopback, private, link-local and other non-public addresses) unless staff allowed
that network, and, when staff listed hosts, from any host but those.

It is asked twice: when an endpoint is registered (so the lead hears at once), and before every
attempt, on the addresses the host resolves to then (DNS can change after registration); the
attempt then connects to the very address that was checked, not to a second resolution.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from review.refusals import ActionRefused

MAX_URL_CHARS = 500


class AddressRefused(ActionRefused):
    """The endpoint's address may not be sent to; the message says why."""


@dataclass(frozen=True)
class Target:
    """A checked address: the URL's parts and the IP address to connect to."""

    scheme: str
    host: str
    port: int
    path: str
    address: str

    @property
    def url_by_address(self) -> str:
        """The URL with the checked address in place of the host (the Host header and TLS
        still name the host)."""
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"{self.scheme}://{host}:{self.port}{self.path}"

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        return self.host if self.port == default else f"{self.host}:{self.port}"


def check_url(url: str) -> Target:
    """The address `url` is to be sent to, or AddressRefused naming what is wrong with it."""
    parts = _parts(url)
    host = parts.hostname or ""
    if settings.WEBHOOK_ALLOWED_HOSTS and host not in settings.WEBHOOK_ALLOWED_HOSTS:
        raise AddressRefused(
            f"{host} is not one of the hosts webhooks may be sent to "
            "(REVIEW_WEBHOOK_ALLOWED_HOSTS)."
        )
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = _allowed_address(host, port)
    path = parts.path or "/"
    if parts.query:
        path += f"?{parts.query}"
    return Target(parts.scheme, host, port, path, address)


def _parts(url: str):
    if len(url) > MAX_URL_CHARS:
        raise AddressRefused(f"The address is longer than {MAX_URL_CHARS} characters.")
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as error:
        raise AddressRefused(f"The address is not a URL: {error}.") from None
    if parts.scheme not in ("https", "http"):
        raise AddressRefused("The address must start with https:// (or http://).")
    if not parts.hostname:
        raise AddressRefused("The address names no host.")
    if parts.username or parts.password:
        raise AddressRefused("The address may not hold a user name or password.")
    return parts


def _allowed_address(host: str, port: int) -> str:
    """The first address `host` resolves to, if every one of them may be sent to."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise AddressRefused(f"{host} cannot be resolved: {error}.") from None
    addresses = list(dict.fromkeys(info[4][0] for info in found))
    for address in addresses:
        refusal = address_refusal(ipaddress.ip_address(address.split("%")[0]))
        if refusal:
            # One internal address among public ones is enough to refuse: the connection
            # could go to any of them.
            raise AddressRefused(f"{host} resolves to {address}, {refusal}.")
    return addresses[0]


def address_refusal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str:
    """Why `address` may not be sent to ("" when it may): it is not public, and no network of
    REVIEW_WEBHOOK_ALLOWED_NETWORKS holds it."""
    if any(address in network for network in settings.WEBHOOK_ALLOWED_NETWORKS):
        return ""
    mapped = getattr(address, "ipv4_mapped", None)
    if mapped is not None:
        return address_refusal(mapped)
    if address.is_global and not address.is_multicast:
        return ""
    kind = (
        "a loopback address"
        if address.is_loopback
        else "a link-local address"
        if address.is_link_local
        else "a private address"
        if address.is_private
        else "not a public address"
    )
    return f"{kind}, which webhooks may not reach unless REVIEW_WEBHOOK_ALLOWED_NETWORKS holds it"
