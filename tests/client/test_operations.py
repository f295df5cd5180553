"""The client's table of operations against the committed schema snapshot, which
tests/review/test_api_schema.py holds to what the app serves (the live server's schema is
in test_served_schema.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from tests.client.operations import mismatches

SNAPSHOT = Path(__file__).resolve().parent.parent / "data" / "openapi.json"


def test_every_operation_of_the_schema_snapshot_has_a_client_method_at_its_address():
    assert mismatches(json.loads(SNAPSHOT.read_text())) == []


def test_an_operation_added_to_the_schema_without_a_client_method_is_named():
    schema = copy.deepcopy(json.loads(SNAPSHOT.read_text()))
    schema["paths"]["/api/projects/{project}/hooks"] = {"get": {"operationId": "review_api_hooks"}}

    assert mismatches(schema) == [
        "review_api_hooks (GET /api/projects/{project}/hooks) has no client method: add it to "
        "OPERATIONS, or to LEFT_OUT saying why"
    ]


def test_an_operation_moved_in_the_schema_is_named():
    schema = copy.deepcopy(json.loads(SNAPSHOT.read_text()))
    schema["paths"]["/api/projects/{project}/plan/{plan_id}"] = schema["paths"].pop(
        "/api/projects/{project}/plans/{plan_id}"
    )

    assert [problem.split(" ")[0] for problem in mismatches(schema)] == ["review_api_get_plan"]
