r"""The served OpenAPI schema is the committed snapshot, tests/data/openapi.json: pipelines
generate their clients from it, so an operation id, a path's place, a description or a schema
changes only on purpose, in a diff a reviewer reads.

After such a change, regenerate the snapshot and read its diff:

    .venv/bin/python manage.py shell -c \
        "from tests.review.test_api_schema import write_snapshot; write_snapshot()"
"""

from __future__ import annotations

import json
from pathlib import Path

from django.test import Client
from django.urls import reverse

SNAPSHOT = Path(__file__).resolve().parent.parent / "data" / "openapi.json"


def served_schema(client: Client) -> str:
    """The served schema as the snapshot keeps it: in the served order, a key a line."""
    response = client.get(reverse("api:openapi-json"))
    assert response.status_code == 200
    return json.dumps(response.json(), indent=1, ensure_ascii=False) + "\n"


def write_snapshot() -> None:
    SNAPSHOT.write_text(served_schema(Client()), encoding="utf-8")


def test_the_served_openapi_schema_is_the_committed_snapshot(client: Client) -> None:
    assert served_schema(client) == SNAPSHOT.read_text(encoding="utf-8")
