"""What holds the client to a schema: every operation of it has a client method (or is left
out on purpose), at the method and path the schema gives."""

from __future__ import annotations

from grounding_review_client import Client
from grounding_review_client.operations import LEFT_OUT, OPERATIONS


def schema_operations(schema: dict) -> dict[str, tuple[str, str]]:
    """operationId -> (method, path) of every operation in an OpenAPI schema."""
    return {
        operation["operationId"]: (method.upper(), path)
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    }


def mismatches(schema: dict) -> list[str]:
    """What the client's table (`OPERATIONS`, `LEFT_OUT`) says that the schema does not."""
    served = schema_operations(schema)
    problems = [
        f"{name} ({method} {path}) has no client method: add it to OPERATIONS, or to "
        "LEFT_OUT saying why"
        for name, (method, path) in served.items()
        if name not in OPERATIONS and name not in LEFT_OUT
    ]
    for name, operation in OPERATIONS.items():
        if name not in served:
            problems.append(f"{name} is in OPERATIONS but no longer in the schema")
        elif served[name] != (operation.method, operation.path):
            problems.append(f"{name} is {served[name]} in the schema, not {operation}")
        if not callable(getattr(Client, operation.client_method, None)):
            problems.append(f"{name}: Client has no method {operation.client_method!r}")
    problems += [
        f"{name} is left out but not in the schema" for name in LEFT_OUT if name not in served
    ]
    return problems
