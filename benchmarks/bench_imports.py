"""Imports at size: cases through `import_cases`, and a large plan through `import_plan`.

    .venv/bin/python benchmarks/bench_imports.py [--postgres] [--scale S]

Each figure is one run of the real command in a child process, timed from start to exit
(Django's start-up included, measured alone on the first row) with the child's peak resident
memory (its max RSS), and each is measured beside the same work at a tenth of the size in
the same run, so the ratio shows whether it grows linearly:

- importing 50,000 cases (about 3.5 evidence rows each, made from the demo's cases with new
  ids) into an empty database;
- importing the same file again, unchanged;
- importing a 10,000-entry plan of a 5 MB Markdown document: the Node.js changelogs Debian
  ships, concatenated (real text; the entries are the proposer's, split at 564 characters).

`--scale` multiplies both sizes (0.1 for a quick look). SQLite in a temporary folder by
default; with `--postgres`, databases of its own on the server at `$PG_URL` (by default
postgres://postgres@127.0.0.1:5432/), dropped afterwards. `import_figures(database_url,
scale)` returns the rows, for the scale benchmark. Prints a table; never passes or fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grounding.propose import propose_plan  # noqa: E402

CASES = 50_000
PLAN_CHARS = 5_000_000
SEGMENT_CHARS = 564  # the proposer's cap: 9,983 entries in 5 MB (REVIEW_MAX_PLAN_ENTRIES: 10,000)
CHANGELOGS = Path("/usr/share/doc/nodejs/changelogs")
# At a large --scale the plan file is larger than the upload limit of a web form, which
# import_plan (reading it whole) keeps; an operator raises it the same way. The JSON-lines
# files are streamed, bounded by their lines, of which 50,000 cases are well within the limit.
UPLOAD_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu_seconds: float  # the child's own, user and system: what a busy machine does not inflate
    peak_mib: float


def import_figures(database_url: str, scale: float = 1.0) -> list[dict]:
    """One row per figure: what, its size, seconds and peak MiB, the same at a tenth of the
    size, and the ratio of the two times (10 is linear).

    `database_url` says where: a PostgreSQL server (the databases made here are named after
    its database, with a suffix, and dropped afterwards) or, for SQLite, the folder of its
    file. The caller's own database is never touched.
    """
    cases_full = max(10, round(CASES * scale))
    chars_full = max(50_000, round(PLAN_CHARS * scale))
    with tempfile.TemporaryDirectory(prefix="bench-imports-") as folder:
        work = Path(folder)
        text = _changelog_text(chars_full)
        start_up = _start_up(database_url, work)
        rows = [
            {
                "what": "Django start-up alone (in every figure)",
                "size": "",
                "seconds": start_up.seconds,
                "cpu_seconds": start_up.cpu_seconds,
                "peak_mib": start_up.peak_mib,
            }
        ]
        case_runs, plan_runs = {}, {}
        for size in (cases_full // 10, cases_full):
            cases = work / f"cases-{size}.jsonl"
            _write_cases(cases, size)
            with _fresh_database(database_url, work, f"cases_{size}") as url:
                first = _command(url, "import_cases", str(cases))
                again = _command(url, "import_cases", str(cases))
            case_runs[size] = (first, again)
        for chars in (chars_full // 10, chars_full):
            document, plan, entries = _plan_files(work, text[:chars])
            with _fresh_database(database_url, work, f"plan_{chars}") as url:
                plan_runs[chars] = (_command(url, "import_plan", str(document), str(plan)), entries)
    small, large = sorted(case_runs)
    for label, index in (("import cases", 0), ("re-import them unchanged", 1)):
        rows.append(
            _row(label, f"{large:,} cases", case_runs[small][index], case_runs[large][index])
        )
    small, large = sorted(plan_runs)
    (small_run, small_entries), (large_run, large_entries) = plan_runs[small], plan_runs[large]
    rows.append(
        _row(
            "import a plan",
            f"{large_entries:,} entries, {large / 1e6:.1f} MB "
            f"(small: {small_entries:,}, {small / 1e6:.1f} MB)",
            small_run,
            large_run,
        )
    )
    return rows


def _row(what: str, size: str, small: Run, large: Run) -> dict:
    return {
        "what": what,
        "size": size,
        "seconds": large.seconds,
        "cpu_seconds": large.cpu_seconds,
        "peak_mib": large.peak_mib,
        "small_seconds": small.seconds,
        "small_cpu_seconds": small.cpu_seconds,
        "small_peak_mib": small.peak_mib,
        "ratio": large.seconds / small.seconds,
    }


# --- the inputs --------------------------------------------------------------------------


def _write_cases(path: Path, count: int) -> None:
    """`count` cases made from the demo's, with new ids and 3 or 4 evidence rows each."""
    demo = [
        json.loads(line)
        for line in (ROOT / "review" / "demo_data" / "cases.jsonl").read_text().splitlines()
    ]
    pool = [item for record in demo for item in record["evidence"]]
    with path.open("w", encoding="utf-8") as out:
        for number in range(count):
            record = dict(demo[number % len(demo)])
            wanted = 3 + number % 2
            evidence = (record["evidence"] + pool[number % len(pool) :] + pool)[:wanted]
            record["evidence"] = [
                {**item, "id": f"ev-{position}"} for position, item in enumerate(evidence, 1)
            ]
            record["case_id"] = f"bench-{number}"
            out.write(json.dumps(record) + "\n")


def _changelog_text(chars: int) -> str:
    """The changelogs, whole files one after another, cut at a line end near `chars`."""
    parts, length = [], 0
    for path in sorted(CHANGELOGS.glob("*.md")):
        parts.append(path.read_text(encoding="utf-8"))
        length += len(parts[-1])
        if length >= chars:
            break
    text = "".join(parts)
    if len(text) < chars:
        raise SystemExit(f"{CHANGELOGS} holds {len(text):,} characters; {chars:,} are needed")
    return text[: text.rindex("\n", 0, chars) + 1]


def _plan_files(work: Path, text: str) -> tuple[Path, Path, int]:
    data = text.encode("utf-8")
    document = work / f"changelogs-{len(text)}.md"
    document.write_bytes(data)
    payload = propose_plan(document.name, data, max_segment_chars=SEGMENT_CHARS)
    plan = work / f"plan-{len(text)}.json"
    plan.write_text(json.dumps(payload), encoding="utf-8")
    return document, plan, len(payload["entries"])


# --- the children ------------------------------------------------------------------------


def _command(database_url: str, *arguments: str) -> Run:
    # Without the system checks: they cost the same at any size, and are not the import.
    return _child(database_url, [str(ROOT / "manage.py"), *arguments, "--skip-checks"])


def _start_up(database_url: str, work: Path) -> Run:
    with _fresh_database(database_url, work, "start_up") as url:
        return _child(url, ["-c", _DJANGO_ONLY])


_DJANGO_ONLY = (
    "import os, django; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'review.settings'); "
    "django.setup(); from review.models import Case; Case.objects.exists()"
)


def _child(database_url: str, arguments: list[str]) -> Run:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REVIEW_MAX_UPLOAD_BYTES": str(UPLOAD_BYTES),
        # As deployed: with DEBUG on, Django keeps every query's SQL, batches of rows included.
        "DJANGO_DEBUG": "0",
        "PYTHONPATH": str(ROOT),
    }
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, *arguments], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    # wait4 gives this child's own resource use, not that of every child so far.
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    output = child.stdout.read()
    child.stdout.close()
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{' '.join(arguments)} failed ({child.returncode}): {output}")
    cpu = usage.ru_utime + usage.ru_stime
    return Run(seconds, cpu, usage.ru_maxrss / 1024)  # ru_maxrss is in KiB on Linux


class _fresh_database:  # noqa: N801 (used as a context manager, like a function)
    """An empty, migrated database of its own, dropped (or deleted) afterwards."""

    def __init__(self, database_url: str, work: Path, suffix: str) -> None:
        self.base, self.work, self.suffix = database_url, work, suffix

    def __enter__(self) -> str:
        parts = urlsplit(self.base)
        if parts.scheme.startswith("postgres"):
            self.name = f"{parts.path.strip('/') or 'bench'}_imports_{self.suffix}"
            self._admin(f'DROP DATABASE IF EXISTS "{self.name}"')
            self._admin(f'CREATE DATABASE "{self.name}"')
            self.url = urlunsplit(parts._replace(path=f"/{self.name}"))
        else:
            self.url = f"sqlite:///{self.work / f'{self.suffix}.sqlite3'}"
        env = {**os.environ, "DATABASE_URL": self.url}
        subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "migrate", "--no-input", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        return self.url

    def __exit__(self, *exc) -> None:
        if urlsplit(self.base).scheme.startswith("postgres"):
            self._admin(f'DROP DATABASE IF EXISTS "{self.name}"')
        else:
            Path(urlsplit(self.url).path).unlink(missing_ok=True)

    def _admin(self, statement: str) -> None:
        import psycopg

        admin = urlunsplit(urlsplit(self.base)._replace(path="/postgres"))
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(statement)


# --- the table ---------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", action="store_true", help="on PostgreSQL at $PG_URL")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the sizes by this")
    options = parser.parse_args(argv)
    if options.postgres:
        url = os.environ.get("PG_URL", "postgres://postgres@127.0.0.1:5432/bench")
    else:
        url = "sqlite:///"
    rows = import_figures(url, options.scale)
    load = ", ".join(f"{figure:.1f}" for figure in os.getloadavg())
    print(
        f"database: {'postgresql' if options.postgres else 'sqlite'}; scale {options.scale}; "
        f"load average after the run {load} on {os.cpu_count()} CPUs (wall time waits for them)"
    )
    print("s: wall seconds of the child; cpu: its own CPU seconds; 1/10: the same at a tenth")
    header = (
        f"{'figure':<40} {'s':>7} {'cpu':>7} {'peak MiB':>8} {'1/10 s':>7} {'cpu':>7} "
        f"{'peak MiB':>8} {'ratio':>6}  size"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        small = (
            f"{row['small_seconds']:>7.2f} {row['small_cpu_seconds']:>7.2f} "
            f"{row['small_peak_mib']:>8.0f} {row['ratio']:>6.1f}"
            if "ratio" in row
            else f"{'':>7} {'':>7} {'':>8} {'':>6}"
        )
        print(
            f"{row['what']:<40} {row['seconds']:>7.2f} {row['cpu_seconds']:>7.2f} "
            f"{row['peak_mib']:>8.0f} {small}  {row['size']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
