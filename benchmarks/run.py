"""Run every benchmark in this folder, one process each, and print their tables.

`make bench` calls this. Benchmarks print figures; they never pass or fail on speed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    wanted = set(argv)
    scripts = sorted(HERE.glob("bench_*.py"))
    failures = 0
    for script in scripts:
        if (
            wanted
            and script.stem not in wanted
            and script.stem.removeprefix("bench_") not in wanted
        ):
            continue
        print(f"\n=== {script.stem} ===", flush=True)
        done = subprocess.run([sys.executable, str(script)], cwd=HERE.parent, check=False)
        failures += done.returncode != 0
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
