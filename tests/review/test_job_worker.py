"""Jobs through the real worker: `manage.py db_worker` in a subprocess on the tests' own
database (one of them killed mid-job, its job reaped and retried), and the wrapper `make demo`
and `make serve` start it with."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection
from django_tasks_db.models import DBTaskResult

from review.jobs import reap_dead_jobs, retry_job, start_job
from review.models import Case, Job
from review.models.projects import default_project_id
from tests.builders.cases_answers import case_line, make_case
from tests.builders.worker import DATABASE_TASKS, ROOT, WORKER_SECONDS, run_worker, worker_env

pytestmark = pytest.mark.django_db(transaction=True)

CASES = ROOT / "review" / "demo_data" / "cases.jsonl"


@pytest.fixture(autouse=True)
def database_backend(settings):
    settings.TASKS = DATABASE_TASKS


def test_the_worker_runs_a_queued_import_and_records_its_progress(editor) -> None:
    data = CASES.read_bytes()
    job = start_job(Job.Kind.IMPORT_CASES, editor, project=default_project_id(), data=data)
    job.refresh_from_db()
    assert job.status == Job.Status.QUEUED and job.task_id
    run_worker()
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED
    assert job.progress == job.total == len(data.splitlines())
    assert Case.objects.count() == job.result["created"] == len(data.splitlines())
    assert DBTaskResult.objects.get(id=job.task_id).status == "SUCCESSFUL"


def test_a_job_that_failed_in_the_worker_is_retried_there_after_the_fix(editor) -> None:
    make_case("c-1", text="Stored first, with other content.")
    job = start_job(
        Job.Kind.IMPORT_CASES,
        editor,
        project=default_project_id(),
        data=(case_line("c-1") + "\n").encode(),
    )
    run_worker()
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert "case_id 'c-1' was already imported with different content" in job.error
    Case.objects.filter(case_id="c-1").delete()
    retry_job(job)
    run_worker()
    job.refresh_from_db()
    assert (job.status, job.attempts, job.result["created"]) == (Job.Status.SUCCEEDED, 2, 1)


# The real worker, whose job blocks in its progress write once the write is made: the worker
# is then killed mid-job, as the machine's out-of-memory killer or a pulled plug would.
BLOCKING_WORKER = """
import sys
import threading
from pathlib import Path

import django

django.setup()
from django.core.management import call_command

from review import jobs

write_progress = jobs._write_progress


def write_then_block(job):
    write_progress(job)
    Path(sys.argv[1]).write_text(str(job.pk))
    threading.Event().wait()


jobs._write_progress = write_then_block
call_command("db_worker", "--batch", "--no-startup-delay", "--no-reload")
"""


def wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WORKER_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"waited {WORKER_SECONDS} s for {what}"
        time.sleep(0.05)


def test_a_job_whose_worker_is_killed_mid_job_is_reaped_and_its_retry_runs(
    editor, settings, tmp_path
) -> None:
    data = "".join(case_line(f"c-{n}") + "\n" for n in range(3)).encode()
    job = start_job(Job.Kind.IMPORT_CASES, editor, project=default_project_id(), data=data)
    blocked = tmp_path / "blocked"
    worker = subprocess.Popen(  # noqa: S603 - this Python, our own snippet
        [sys.executable, "-c", BLOCKING_WORKER, str(blocked)],
        cwd=ROOT,
        env={**worker_env(), "DJANGO_SETTINGS_MODULE": "review.settings"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for(lambda: blocked.exists() or worker.poll() is not None, "the job to block")
        assert worker.poll() is None, worker.stderr.read()
        job.refresh_from_db()
        assert job.status == Job.Status.RUNNING and job.heartbeat_at is not None
        # Alive and heard from: not reaped.
        assert reap_dead_jobs() == 0
        if connection.vendor == "sqlite":
            # Its import holds SQLite's one write lock, where no heartbeat can be written:
            # alive, however long ago it was heard from.
            settings.JOB_HEARTBEAT_SECONDS = 0
            assert reap_dead_jobs() == 0
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=WORKER_SECONDS)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
        worker.stderr.close()

    settings.JOB_HEARTBEAT_SECONDS = 0  # as if that long had passed since its last heartbeat
    assert reap_dead_jobs() == 1
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED
    assert job.error.startswith("the worker stopped: nothing was heard from this job")
    assert not Case.objects.exists()  # its transaction died with it
    retry_job(job)
    run_worker()
    job.refresh_from_db()
    assert (job.status, job.attempts, job.result["created"]) == (Job.Status.SUCCEEDED, 2, 3)


# --- the wrapper ---------------------------------------------------------------------------


def start_wrapper(*server: str) -> subprocess.Popen:
    # A session of its own, as a terminal gives `make demo`, so Ctrl+C can be sent to it all.
    return subprocess.Popen(  # noqa: S603 - our own script with arguments we chose
        [str(ROOT / "scripts" / "with_worker.sh"), sys.executable, *server],
        cwd=ROOT,
        env=worker_env(),
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def children_of(pid: int) -> list[int]:
    """The wrapper's worker and server, once the worker has started (not just forked)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = [int(child) for child in read(f"/proc/{pid}/task/{pid}/children").split()]
        if len(found) == 2 and any(b"db_worker" in command_line(child) for child in found):
            return found
        time.sleep(0.1)
    raise AssertionError(f"the wrapper {pid} did not start a worker and a server")


def read(path: str) -> str:
    try:
        return Path(path).read_text()
    except FileNotFoundError:
        return ""


def command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return b""


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads children from /proc")
def test_ctrl_c_stops_the_server_and_the_worker(editor) -> None:
    wrapper = start_wrapper(sys.executable, "-c", "import time; time.sleep(60)")
    children = children_of(wrapper.pid)
    time.sleep(1)  # past the worker's start, into its loop
    os.killpg(wrapper.pid, signal.SIGINT)
    wrapper.wait(timeout=90)
    assert not [child for child in children if is_running(child)]


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads children from /proc")
def test_the_worker_stops_when_the_server_exits_by_itself(editor) -> None:
    wrapper = start_wrapper(sys.executable, "-c", "import time; time.sleep(2); raise SystemExit(3)")
    children = children_of(wrapper.pid)
    assert wrapper.wait(timeout=90) == 3
    assert not [child for child in children if is_running(child)]
