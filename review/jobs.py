"""Long work in the background: a Job row per piece of work, run by the task worker.

A job calls the same action the inline path calls, with a progress callback that records on
the row how far it has come, as the person who started it (whose role the door that started it
asked: `Accepted`); the page and `GET /api/jobs/{id}` read that row. The input is kept on the
row, so a failed job can be run again with exactly what was sent.
Which inputs go to the background is `runs_in_background`'s to say (settings JOB_INLINE_*).

A worker that dies (killed, out of memory, the machine restarted) cannot say so, and its job
would show "running" for ever: a running job whose heartbeat (its start, then each progress
write) is older than JOB_HEARTBEAT_SECONDS is reaped, marked failed with that reason, and can
be retried. Whoever reads the job's status reaps it (the job page's poll, `GET /api/jobs/{id}`),
because the one waiting on it must learn of it even when no worker runs at all any more; and
the worker reaps every such job each time it starts one, so jobs a crashed worker left are
failed once a worker runs again, whether anyone polls them or not.
"""

from __future__ import annotations

import io
import time
from contextlib import contextmanager
from datetime import timedelta

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, OperationalError, connection, connections, transaction
from django.db.models import QuerySet
from django.utils import timezone
from django_tasks import task
from pypdf import PdfReader

from review.actions.documents import Accepted, propose_document
from review.actions.imports import import_answers, import_cases
from review.adapters.decision_log import decision_log_lines
from review.adapters.errors import ImportRefused
from review.adapters.jsonl import ImportResult, count_lines
from review.models import Job, JobOutputPart
from review.permissions import project_id_of
from review.webhooks import events as webhook_events

# At most this often a running job writes its progress, so a long import is not one UPDATE
# per line.
PROGRESS_EVERY_SECONDS = 0.5


def runs_in_background(kind: str, name: str = "", data: bytes = b"") -> bool:
    """Whether this input is long work: the whole-log export always, a document over
    JOB_INLINE_MAX_BYTES (or a PDF over JOB_INLINE_MAX_PDF_PAGES pages), a JSON-lines file
    over JOB_INLINE_MAX_LINES lines. Anything larger than an upload (REVIEW_MAX_UPLOAD_BYTES)
    is never run in a request, whatever those say."""
    if kind == Job.Kind.EXPORT_DECISIONS:
        return True
    if len(data) > min(settings.JOB_INLINE_MAX_BYTES, settings.REVIEW_MAX_UPLOAD_BYTES):
        return True
    if kind == Job.Kind.PROPOSE:
        return (
            name.lower().endswith(".pdf") and _pdf_pages(data) > settings.JOB_INLINE_MAX_PDF_PAGES
        )
    return count_lines(data) > settings.JOB_INLINE_MAX_LINES


def _pdf_pages(data: bytes) -> int:
    try:
        return len(PdfReader(io.BytesIO(data)).pages)
    except Exception:
        # Not readable: the proposer says why, inline, where the person sees it at once.
        return 0


def start_job(kind: str, user, *, project, name: str = "", data: bytes = b"", options=None) -> Job:
    """Keep the input on a new Job of `project` (what it makes is that project's) and queue
    it for the worker."""
    job = Job.objects.create(
        project_id=project_id_of(project),
        kind=kind,
        created_by=user,
        input_name=name,
        input_data=bytes(data),
        options=options or {},
        total=count_lines(data) if kind in (Job.Kind.IMPORT_CASES, Job.Kind.IMPORT_ANSWERS) else 0,
    )
    _enqueue(job)
    return job


def retry_job(job: Job) -> Job:
    """Run a failed job again, from its kept input. Refuses a job that has not failed."""
    if not job.can_retry:
        raise ValueError(f"job {job.pk} is {job.status}: only a failed job is retried")
    job.status = Job.Status.QUEUED
    job.progress = 0
    job.error = ""
    job.problems = []
    job.result = {}
    job.finished_at = None
    job.save(update_fields=["status", "progress", "error", "problems", "result", "finished_at"])
    _enqueue(job)
    return job


def _enqueue(job: Job) -> None:
    # After commit: the worker must find the row the task names.
    def enqueue() -> None:
        result = run_job.enqueue(job.pk)
        Job.objects.filter(pk=job.pk).update(task_id=str(result.id))

    transaction.on_commit(enqueue)


@task()
def run_job(job_id: int) -> None:
    """The worker's entry: run the job, recording how it went on its row."""
    reap_dead_jobs()
    job = Job.objects.get(pk=job_id)
    job.status = Job.Status.RUNNING
    job.started_at = job.heartbeat_at = timezone.now()
    job.attempts += 1
    job.save(update_fields=["status", "started_at", "heartbeat_at", "attempts"])
    try:
        job.result = _RUNNERS[job.kind](job, _Progress(job))
    except ImportRefused as refused:
        _fail(job, refused.problems)
        return
    except Exception as error:
        _fail(job, [f"unexpected error: {type(error).__name__}: {error}"])
        raise
    job.status = Job.Status.SUCCEEDED
    job.finished_at = timezone.now()
    _finish(job)


def _finish(job: Job, **save) -> None:
    """Save how the job ended, and tell the project's webhooks in the same transaction."""
    with transaction.atomic():
        job.save(**save)
        webhook_events.job_finished(job)


def unheard_reason() -> str:
    return (
        f"the worker stopped: nothing was heard from this job for "
        f"{settings.JOB_HEARTBEAT_SECONDS:,} seconds (REVIEW_JOB_HEARTBEAT_SECONDS); retry it"
    )


def reap_dead_jobs(jobs: QuerySet[Job] | None = None) -> int:
    """Mark failed each running job of `jobs` (every job, by default) whose worker has said
    nothing for JOB_HEARTBEAT_SECONDS, and say how many. One UPDATE, conditional on the
    heartbeat in the row, so a job heard from meanwhile is left alone."""
    moment = timezone.now()
    unheard = (Job.objects.all() if jobs is None else jobs).unheard_since(
        moment - timedelta(seconds=settings.JOB_HEARTBEAT_SECONDS)
    )
    reason = unheard_reason()
    try:
        with _without_waiting_for_a_writer(), transaction.atomic():
            return unheard.update(
                status=Job.Status.FAILED, error=reason, problems=[reason], finished_at=moment
            )
    except OperationalError as refused:
        if "locked" not in str(refused):
            raise
        return 0


def job_status(job: Job) -> Job:
    """The job as whoever waits on it should see it: reaped first if its worker is gone."""
    moment = timezone.now() - timedelta(seconds=settings.JOB_HEARTBEAT_SECONDS)
    if job.unheard_since(moment) and reap_dead_jobs(Job.objects.filter(pk=job.pk)):
        job.refresh_from_db()
    return job


@contextmanager
def _without_waiting_for_a_writer():
    """On SQLite, a live import holds the database's one write lock for its whole transaction,
    where its heartbeat cannot be written for anyone to see. A reaper that cannot take the
    lock at once knows a writer is alive, and reaps nothing this time rather than wait for it
    (or wrongly fail the import)."""
    if connection.vendor != "sqlite":
        yield
        return
    waits = int(connection.settings_dict.get("OPTIONS", {}).get("timeout", 5) * 1000)
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA busy_timeout = 0")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA busy_timeout = {waits}")


def _fail(job: Job, problems: list[str]) -> None:
    job.status = Job.Status.FAILED
    job.problems = problems
    job.error = problems[0] if len(problems) == 1 else f"refused: {len(problems)} problems"
    job.finished_at = timezone.now()
    _finish(job, update_fields=["status", "problems", "error", "finished_at", "progress", "total"])


class _Progress:
    """Records (done, total) on the job's row, at most every PROGRESS_EVERY_SECONDS and
    always for the last one."""

    def __init__(self, job: Job):
        self.job = job
        self.written_at = 0.0

    def __call__(self, done: int, total: int | None = None) -> None:
        job = self.job
        job.progress = done
        if total is not None:
            job.total = total
        now = time.monotonic()
        if now - self.written_at >= PROGRESS_EVERY_SECONDS or done == job.total:
            self.written_at = now
            _write_progress(job)


def _write_progress(job: Job) -> None:
    """Progress is the job's heartbeat too. An import reads and writes its lines inside its
    one transaction, where an UPDATE of the job's row would show no one until the end. On
    PostgreSQL it is written on a connection of its own, so the page polling the job sees
    the lines go by; SQLite takes one writer at a time, so there the job's progress shows
    when it ends (and the import's hold on the write lock says it is alive)."""
    job.heartbeat_at = timezone.now()
    if not connection.in_atomic_block:
        Job.objects.filter(pk=job.pk).update(
            progress=job.progress, total=job.total, heartbeat_at=job.heartbeat_at
        )
        return
    if connection.vendor == "sqlite":
        return
    aside = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        with aside.cursor() as cursor:
            cursor.execute(
                f"UPDATE {Job._meta.db_table} SET progress = %s, total = %s, heartbeat_at = %s "  # noqa: S608 (a table name, not input)
                "WHERE id = %s",
                [job.progress, job.total, job.heartbeat_at, job.pk],
            )
    finally:
        aside.close()


def _propose(job: Job, progress: _Progress) -> dict:
    plan = propose_document(
        job.input_name,
        bytes(job.input_data),
        max_segment_chars=job.options.get("max_segment_chars", 0),
        path_prefix=job.options.get("path_prefix", ""),
        actor=Accepted(job.created_by),
        project=job.project_id,
        on_page=progress,
    )
    return {"plan": plan.pk, "entries": plan.entries.count()}


def _import(action):
    def run(job: Job, progress: _Progress) -> dict:
        result = action(
            bytes(job.input_data),
            actor=Accepted(job.created_by),
            project=job.project_id,
            skip_invalid=job.options.get("skip_invalid", False),
            on_line=progress,
        )
        return import_summary(result)

    return run


def import_summary(result: ImportResult) -> dict:
    return {
        "created": result.created,
        "unchanged": result.unchanged,
        "rejected": [
            {"line": number, "raw": raw, "problem": problem}
            for number, raw, problem in result.rejected
        ],
    }


def _export(job: Job, progress: _Progress) -> dict:
    # Streamed from the log into parts: the whole log is never in memory. The log of the
    # job's own project, read as its starter may read it (`Decision.objects.blind_to`, which
    # asks `Plan.objects.visible_to`).
    lines = decision_log_lines(on_row=progress, reader=job.created_by, project=job.project_id)
    size = JobOutputPart.write(job, lines)
    return {"decisions": job.progress, "bytes": size}


_RUNNERS = {
    Job.Kind.PROPOSE: _propose,
    Job.Kind.IMPORT_CASES: _import(import_cases),
    Job.Kind.IMPORT_ANSWERS: _import(import_answers),
    Job.Kind.EXPORT_DECISIONS: _export,
}
