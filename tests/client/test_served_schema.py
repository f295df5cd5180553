"""The client's table of operations against the schema the live server serves: a route added
to the API without a client method fails here."""

from __future__ import annotations

import httpx
import pytest

from tests.client.operations import mismatches

pytestmark = pytest.mark.trust


def test_every_operation_the_server_serves_has_a_client_method_at_its_address(server):
    schema = httpx.get(f"{server.url}/api/openapi.json", timeout=30).raise_for_status().json()

    assert mismatches(schema) == []
