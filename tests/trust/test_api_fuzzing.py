"""schemathesis against the schema the server serves, with a staff pipeline's token: every
operation, the JSON-lines bodies included, a bounded number of examples each. Asserted: no
server error and no answer outside the schema (status, content type, headers, body)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.trust

EXAMPLES = int(os.environ.get("TRUST_FUZZ_EXAMPLES", "25"))
SEED = os.environ.get("TRUST_FUZZ_SEED", "1")
# Which checks run, and why two are off where they are: see the file.
CONFIG = Path(__file__).with_name("schemathesis.toml")
ROOT = Path(__file__).resolve().parents[2]


def test_fuzzing_the_served_schema_finds_no_server_error_and_no_schema_violation(
    server, tmp_path
) -> None:
    report = tmp_path / "schemathesis.json"
    finished = subprocess.run(
        [
            sys.executable, "-m", "schemathesis.cli", "--config-file", str(CONFIG),
            "run", f"{server.url}/api/openapi.json",
            "--header", f"Authorization: Bearer {server.key('pipeline')}",
            "--max-examples", str(EXAMPLES), "--seed", SEED,
            # One worker: hypothesis's source inspection is not thread-safe on Python 3.11.
            "--workers", "1",
            "--report", "json", "--report-json-path", str(report),
        ],
        # Run elsewhere, so schemathesis keeps its cache out of the work tree.
        cwd=tmp_path,
        env={
            **os.environ,
            "SCHEMATHESIS_HOOKS": "tests.trust.schemathesis_hooks",
            "PYTHONPATH": str(ROOT),
        },
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert report.exists(), finished.stdout[-3000:] + finished.stderr[-3000:]
    run = json.loads(report.read_text())
    cases = run["test_cases"]
    print(
        f"schemathesis: {run['operations']['tested']} operations, {cases['generated']} cases, "
        f"{cases['with_failures']} with failures, {cases['errored']} errored"
    )

    assert run["operations"]["tested"] == run["operations"]["total"] > 0
    assert run["failures"] == [], finished.stdout[-6000:]
    assert run["errors"] == [], finished.stdout[-6000:]
    assert cases["generated"] >= run["operations"]["total"] * 2
    assert finished.returncode == 0, finished.stdout[-3000:]
