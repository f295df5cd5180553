"""The acceptance run: the seed suites in ../shared/seeds, executed unchanged against
`grounding` with only their imports (and the proposer's program name) mapped.

The seeds are read from the shared folder (or SEEDS_DIR) and rewritten into a temporary
directory at run time; they are never copied into the project. A missing folder, a missing
suite, or fewer tests than the suites hold fails the run: an acceptance run that runs
nothing must not pass.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEEDS = Path(os.environ.get("SEEDS_DIR", ROOT.parent / "shared" / "seeds"))
# How many tests the three suites hold; a full run (no pytest arguments) that runs fewer fails.
EXPECTED_TESTS = 173

# (pattern, replacement) per seed file, exactly the mapping the issues give.
MAPPINGS: dict[str, list[tuple[str, str]]] = {
    "test_citations.py": [(r"^from citations import", "from grounding.citations import")],
    "test_validation.py": [
        (r"^from llm\.validation import", "from grounding.evidence import"),
        (r"^from orchestrator\.tools import", "from grounding.evidence import"),
    ],
    "test_propose_segments.py": [
        (r"llm_ingestion_okf\.segmentation", "grounding.segmentation"),
        (r"llm_ingestion_okf\.extract", "grounding.extract"),
        (r"^sys\.path\.insert\(0, .*\"tools\"\)\)$", ""),
        (
            r"^import okf_propose_segments(.*)$",
            r"from grounding import propose as okf_propose_segments\1",
        ),
        (r"okf-propose-segments", "propose-segments"),
    ],
}


def mapped(source: str, rules: list[tuple[str, str]]) -> str:
    for pattern, replacement in rules:
        source = re.sub(pattern, replacement, source, flags=re.MULTILINE)
    return source


def main(argv: list[str]) -> int:
    if not SEEDS.is_dir():
        print(f"run_seeds: no seed folder at {SEEDS} (set SEEDS_DIR)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="seeds-") as scratch:
        for name, rules in MAPPINGS.items():
            seed = SEEDS / name
            if not seed.is_file():
                print(f"run_seeds: {name} is missing from {SEEDS}", file=sys.stderr)
                return 2
            Path(scratch, name).write_text(
                mapped(seed.read_text(encoding="utf-8"), rules), encoding="utf-8"
            )
        env = dict(
            os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
        )
        report = Path(scratch, "report.xml")
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:django",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            scratch,
            f"--junitxml={report}",
            "-q",
            scratch,
            *argv,
        ]
        returncode = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
        ran = tests_run(report)
        if not argv and ran < EXPECTED_TESTS:
            print(
                f"run_seeds: {SEEDS} yielded {ran} tests, fewer than the {EXPECTED_TESTS} expected",
                file=sys.stderr,
            )
            return returncode or 3
        return returncode


def tests_run(report: Path) -> int:
    """How many tests pytest ran and reported (0 when it wrote no report)."""
    if not report.is_file():
        return 0
    root = ET.parse(report).getroot()
    suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
    return sum(int(suite.get("tests", 0)) - int(suite.get("skipped", 0)) for suite in suites)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
