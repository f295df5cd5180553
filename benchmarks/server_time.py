"""Server time, for the benchmarks that send requests through Django's test Client: how long
the WSGI handler takes for a request, as a server would see it (every middleware, the view,
its queries and its template), without the client's own work of building the request and
reading the response. Not a benchmark itself (run.py runs only bench_*.py)."""

from __future__ import annotations

import time

# (wall seconds, CPU seconds of this process) per request, newest last; a benchmark clears it.
timings: list[tuple[float, float]] = []


class ServerTime:
    """Wraps the test client's WSGI handler: how long the server spent on one request, in
    wall-clock time and in this process's CPU time (the difference is waiting: for the disk
    on commit, for the database, or for a CPU on a busy machine)."""

    def __init__(self, handler):
        self.handler = handler

    def __call__(self, environ):
        wall, cpu = time.perf_counter(), time.process_time()
        response = self.handler(environ)
        # A streamed page (the plan page) is drawn while it is sent: a server's worker spends
        # that time too, so it is read here, inside the timing (body_of keeps it read).
        body_of(response)
        timings.append((time.perf_counter() - wall, time.process_time() - cpu))
        return response


def body_of(response) -> bytes:
    """A response's body, sent whole or streamed (ServerTime keeps a streamed one read)."""
    if response.streaming:
        body = b"".join(response.streaming_content)
        response.streaming_content = [body]
        return body
    return response.content
