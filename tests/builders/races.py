"""Two decisions racing on PostgreSQL: another editor's reject, sent from a thread of its own
once the first transaction holds its locks."""

from __future__ import annotations

import threading
import time

from django.db import connection, connections

from review.actions.entries import reject_entry


def reject_when(signal: threading.Event, entry, actor) -> tuple[threading.Thread, list]:
    """Start a thread that rejects `entry` as `actor` once `signal` is set. Join the thread
    after the first transaction; the list then holds what the reject met: its Decision, or
    the error it raised."""
    outcome: list[object] = []

    def reject() -> None:
        try:
            signal.wait(timeout=30)
            outcome.append(reject_entry(entry, actor=actor, expected_version=entry.version))
        except Exception as error:  # surfaced by the caller's assertions
            outcome.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=reject)
    thread.start()
    return thread, outcome


def wait_until_it_waits_on_us(thread: threading.Thread) -> None:
    """From inside the transaction holding the locks: return once `thread`'s statement waits
    on a lock this connection holds, or once the thread has finished (when nothing made it
    wait, which is what a test of the guard must then catch)."""
    deadline = time.monotonic() + 30
    while thread.is_alive():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_locks"
                " WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))"
            )
            if cursor.fetchone()[0]:
                return
        if time.monotonic() > deadline:
            raise AssertionError("the racing decision neither waited on the lock nor finished")
        thread.join(timeout=0.01)
