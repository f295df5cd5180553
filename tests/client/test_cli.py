"""`grounding-review` refusing a command line or an environment it cannot use, before it asks
any server anything: exit status 2 and a message naming what is wrong."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.builders.served import free_port
from tests.client.conftest import PROGRAM, RUN_SECONDS


def run(*arguments: str, **variables: str | None) -> subprocess.CompletedProcess:
    # A port nothing listens on: a command that asked anything would fail otherwise (1).
    env = {
        **os.environ,
        "GROUNDING_REVIEW_URL": f"http://127.0.0.1:{free_port()}",
        "GROUNDING_REVIEW_TOKEN": "key",
    }
    for name, value in variables.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run(
        [str(PROGRAM), *arguments], env=env, capture_output=True, text=True, timeout=RUN_SECONDS
    )


@pytest.mark.parametrize(
    ("arguments", "variables", "named"),
    [
        (("decisions",), {"GROUNDING_REVIEW_URL": None}, "GROUNDING_REVIEW_URL is not set"),
        (("decisions",), {"GROUNDING_REVIEW_TOKEN": ""}, "GROUNDING_REVIEW_TOKEN is not set"),
        (
            ("decisions",),
            {"GROUNDING_REVIEW_URL": "127.0.0.1:8000"},
            "GROUNDING_REVIEW_URL: the API's URL must start with http:// or https://, not "
            "'127.0.0.1:8000'",
        ),
        (("push", "/nowhere/plan.md"), {}, "/nowhere/plan.md: no such file"),
        (("decisions", "--project", ""), {}, "the project is empty: give --project SLUG"),
        (("watch", "--interval", "0"), {}, "--interval must be 0.1 to 3600 seconds, not 0"),
        (("decisions", "--since", " "), {}, "--since is empty"),
    ],
)
def test_what_cannot_be_used_is_named_with_status_2(arguments, variables, named):
    refused = run(*arguments, **variables)

    assert refused.returncode == 2
    assert refused.stderr.startswith(f"grounding-review: {named}"), refused.stderr
    assert refused.stdout == ""


def test_a_server_that_cannot_be_reached_is_named_with_status_1():
    unreachable = run("decisions")

    assert unreachable.returncode == 1
    assert "grounding-review: could not reach http://127.0.0.1:" in unreachable.stderr
