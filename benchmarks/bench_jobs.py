"""What running long work as a job costs, against the same adapter call made inline.

    .venv/bin/python benchmarks/bench_jobs.py

A job calls the same adapter function as the inline path, plus what the background adds:
the Job row with its kept input, the task's own row (the database backend's), and the
progress written at most every half second. Each scenario runs inline and as a job, on a
fresh database each time, in the same process and the same run (the task is run where it
is enqueued, so the worker's polling interval is not in the figures):

- importing 5,000 cases (the demo's 24 lines, with new ids);
- proposing a 60-page PDF (the pages are a public licence text, each page one section);
- exporting a decision log of 20,000 rows (the job keeps the file; inline, the command
  writes it).

SQLite (in memory) by default; PostgreSQL when DATABASE_URL is set, in a throwaway database
of its own. Prints a table; never passes or fails on speed.
"""

from __future__ import annotations

import io
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "review.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test.utils import override_settings, setup_test_environment  # noqa: E402
from fpdf import FPDF  # noqa: E402

from review.adapters.cases import import_cases  # noqa: E402
from review.adapters.plans import propose_document  # noqa: E402
from review.jobs import start_job  # noqa: E402
from review.models import Case, Decision, Document, Job  # noqa: E402
from review.models.projects import default_project_id  # noqa: E402

CASES = 5_000
PDF_PAGES = 60
DECISIONS = 20_000
RUNS = 5
LICENCE = Path("/usr/share/common-licenses/GPL-3")


def cases_file() -> bytes:
    demo = (ROOT / "review" / "demo_data" / "cases.jsonl").read_text().splitlines()
    lines = []
    for number in range(CASES):
        record = json.loads(demo[number % len(demo)])
        record["case_id"] = f"bench-{number}"
        lines.append(json.dumps(record))
    return ("\n".join(lines) + "\n").encode()


def pdf_file() -> bytes:
    """PDF_PAGES pages, each a numbered section holding part of the licence's text."""
    words = (LICENCE.read_text() if LICENCE.exists() else "Free software licence. " * 3000).split()
    per_page = max(1, len(words) // PDF_PAGES)
    pdf = FPDF()
    pdf.set_font("Helvetica", size=10)
    for page in range(PDF_PAGES):
        pdf.add_page()
        pdf.cell(text=f"{page + 1} Section {page + 1}", new_x="LMARGIN", new_y="NEXT")
        chunk = " ".join(words[page * per_page : (page + 1) * per_page])
        pdf.multi_cell(0, 5, chunk.encode("latin-1", "replace").decode("latin-1"))
    return bytes(pdf.output())


def fresh() -> None:
    # Decisions are append-only (triggers refuse deletes): a test database per run instead.
    Job.objects.all().delete()
    Case.objects.all().delete()
    for document in Document.objects.all():
        document.plans.all().delete()
        document.delete()


def run_job(user: User, kind: str, **kwargs) -> None:
    with transaction.atomic():
        job = start_job(kind, user, project=default_project_id(), **kwargs)
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED, (job.error, job.problems)


def seconds(inline: Callable[[], None], as_job: Callable[[], None]) -> tuple[float, float]:
    """Median seconds of each, the two taking turns so neither gains from going first."""
    times: dict[Callable, list[float]] = {inline: [], as_job: []}
    for _ in range(RUNS):
        for work in (inline, as_job):
            fresh()
            start = time.perf_counter()
            work()
            times[work].append(time.perf_counter() - start)
    return statistics.median(times[inline]), statistics.median(times[as_job])


def log_rows() -> None:
    if Decision.objects.count() >= DECISIONS:
        return
    # The log is kept per project: the rows are Default's, the project the jobs work in.
    project_id = default_project_id()
    rows = [
        Decision(
            project_id=project_id,
            action="accept",
            object_type="entry",
            object_id=str(n),
            actor_name="bench",
        )
        for n in range(DECISIONS)
    ]
    Decision.objects.bulk_create(rows, batch_size=2000)


def main() -> int:
    setup_test_environment()
    settings_dict = connection.settings_dict
    if connection.vendor != "sqlite":
        settings_dict.setdefault("TEST", {})["NAME"] = f"bench_jobs_{os.getpid()}"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    immediate = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    try:
        with override_settings(TASKS=immediate):
            return run()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def run() -> int:
    user = User.objects.create_user("bench")
    cases, pdf = cases_file(), pdf_file()
    log_rows()
    scenarios = [
        (
            f"import {CASES:,} cases",
            lambda: import_cases(cases),
            lambda: run_job(user, Job.Kind.IMPORT_CASES, data=cases),
        ),
        (
            f"propose a {PDF_PAGES}-page PDF",
            lambda: propose_document("licence.pdf", pdf, actor=user),
            lambda: run_job(user, Job.Kind.PROPOSE, name="licence.pdf", data=pdf),
        ),
        (
            f"export {DECISIONS:,} decisions",
            lambda: call_command("export_decisions", stdout=io.StringIO()),
            lambda: run_job(user, Job.Kind.EXPORT_DECISIONS),
        ),
    ]
    print(f"database: {connection.vendor}; median of {RUNS} runs each")
    header = f"{'scenario':<28} {'inline s':>9} {'as a job s':>11} {'job / inline':>13}"
    print(header)
    print("-" * len(header))
    for label, inline, as_job in scenarios:
        inline_s, job_s = seconds(inline, as_job)
        print(f"{label:<28} {inline_s:>9.3f} {job_s:>11.3f} {job_s / inline_s:>13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
