"""Where a webhook may be sent: the guard refuses the app's own machine and networks (loopback,
private, link-local) unless staff allowed the network, and any host staff did not list when
they listed hosts; with a message naming what is wrong."""

from __future__ import annotations

import ipaddress

import pytest

from review.webhooks.addresses import AddressRefused, check_url


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("http://127.0.0.1:8000/hooks", "127.0.0.1, a loopback address"),
        ("http://localhost/hooks", "a loopback address"),
        ("https://[::1]/hooks", "::1, a loopback address"),
        ("https://[::ffff:127.0.0.1]/hooks", "a loopback address"),
        ("https://10.1.2.3/hooks", "10.1.2.3, a private address"),
        ("https://192.168.0.9/hooks", "a private address"),
        ("https://169.254.169.254/latest/meta-data", "169.254.169.254, a link-local address"),
        ("https://0.0.0.0/hooks", "0.0.0.0, a private address"),
        ("https://100.64.0.1/hooks", "100.64.0.1, not a public address"),
    ],
)
def test_an_internal_address_is_refused_naming_the_setting_that_allows_it(url, says) -> None:
    with pytest.raises(AddressRefused) as refused:
        check_url(url)
    assert says in str(refused.value)
    assert "REVIEW_WEBHOOK_ALLOWED_NETWORKS" in str(refused.value)


def test_a_network_staff_allowed_is_sent_to_at_the_address_checked(settings) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = [ipaddress.ip_network("127.0.0.0/8")]
    target = check_url("http://127.0.0.1:8123/hooks?project=a")
    assert (target.address, target.url_by_address) == (
        "127.0.0.1",
        "http://127.0.0.1:8123/hooks?project=a",
    )
    assert target.host_header == "127.0.0.1:8123"


def test_a_public_address_is_allowed_and_a_listed_host_is_the_only_one(settings) -> None:
    assert check_url("https://93.184.215.14/hooks").host_header == "93.184.215.14"
    settings.WEBHOOK_ALLOWED_HOSTS = ["hooks.example.org"]
    with pytest.raises(AddressRefused, match="93.184.215.14 is not one of the hosts"):
        check_url("https://93.184.215.14/hooks")


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("ftp://93.184.215.14/hooks", "must start with https://"),
        ("https://user:secret@93.184.215.14/hooks", "may not hold a user name or password"),
        ("https:///hooks", "names no host"),
        ("https://93.184.215.14:http/hooks", "not a URL"),
        ("https://93.184.215.14/" + "a" * 500, "longer than 500 characters"),
        ("https://no-such-host.invalid/hooks", "cannot be resolved"),
    ],
)
def test_an_address_that_is_not_a_usable_url_is_refused_saying_why(url, says) -> None:
    with pytest.raises(AddressRefused, match=says):
        check_url(url)
