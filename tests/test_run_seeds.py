"""The acceptance run fails when it has nothing, or too little, to run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "run_seeds.py"
SUITES = ("test_citations.py", "test_validation.py", "test_propose_segments.py")


def run_seeds(seeds: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, SEEDS_DIR=str(seeds))
    return subprocess.run(
        [sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True, check=False
    )


def test_a_missing_seed_folder_fails_the_run_and_names_the_folder(tmp_path) -> None:
    missing = tmp_path / "no-seeds-here"

    result = run_seeds(missing)

    assert result.returncode != 0
    assert str(missing) in result.stderr


def test_seed_suites_holding_fewer_tests_than_expected_fail_the_run(tmp_path) -> None:
    for name in SUITES:
        (tmp_path / name).write_text("def test_nothing_much():\n    assert True\n")

    result = run_seeds(tmp_path)

    assert result.returncode != 0
    assert "yielded 3 tests" in result.stderr
    assert str(tmp_path) in result.stderr
