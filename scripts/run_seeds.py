"""The acceptance run: the seed suites in ../shared/seeds, executed unchanged against
`grounding` with only their imports (and the proposer's program name) mapped.

The seeds are read from the shared folder and rewritten into a temporary directory at
run time; they are never copied into the project.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEEDS = Path(os.environ.get("SEEDS_DIR", ROOT.parent / "shared" / "seeds"))

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
        print(f"run_seeds: no seed suites at {SEEDS}; skipping the acceptance run")
        return 0
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
            "-q",
            scratch,
            *argv,
        ]
        return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
