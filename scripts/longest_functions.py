"""Print the longest functions of the project's code (tests, migrations and benchmarks aside).

    .venv/bin/python scripts/longest_functions.py [COUNT]

A figure for keeping functions short: each row is lines, then file:line and the name.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOTS = ("grounding", "review")


def functions(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.end_lineno - node.lineno + 1, f"{path}:{node.lineno}", node.name


def main(count: int) -> None:
    rows = [
        row
        for root in ROOTS
        for path in sorted(Path(root).rglob("*.py"))
        if "migrations" not in path.parts
        for row in functions(path)
    ]
    for lines, where, name in sorted(rows, key=lambda row: (-row[0], row[1]))[:count]:
        print(f"{lines:4d}  {where}  {name}")
    print(f"{len(rows)} functions in {len({r[1].split(':')[0] for r in rows})} modules")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
