"""Two decisions racing on PostgreSQL: another editor's reject, sent from a thread of its own
once the first transaction holds its locks."""

from __future__ import annotations

import threading

from django.db import connections

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
