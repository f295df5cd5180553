"""A real HTTP receiver for the tests of webhooks: `http.server` in a thread on 127.0.0.1 (a
port the system chose), keeping every request it is sent and answering each with the next
status of `answers` (200 once they run out); it can hold a request unanswered until released,
as a receiver that hangs while its sender is killed."""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    answered: int


@dataclass
class Receiver:
    answers: list[int] = field(default_factory=list)
    # Held: each request waits for `release` before it is answered (and recorded as answered).
    held: bool = False
    requests: list[Received] = field(default_factory=list)
    redirect_to: str = ""
    _arrived: threading.Condition = field(default_factory=threading.Condition)
    _released: threading.Event = field(default_factory=threading.Event)
    server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/hooks"

    def release(self) -> None:
        self.held = False
        self._released.set()

    def wait_for(self, count: int, seconds: float = 30) -> list[Received]:
        """The first `count` requests, once that many arrived."""
        deadline = time.monotonic() + seconds
        with self._arrived:
            while len(self.requests) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"{len(self.requests)} of {count} requests arrived"
                self._arrived.wait(left)
            return self.requests[:count]

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        body = handler.rfile.read(int(handler.headers.get("content-length", 0)))
        status = self.answers.pop(0) if self.answers else 200
        if self.redirect_to:
            status = 307
        with self._arrived:
            self.requests.append(Received(handler.path, dict(handler.headers), body, status))
            self._arrived.notify_all()
        if self.held:
            self._released.wait(60)
        handler.send_response(status)
        if self.redirect_to:
            handler.send_header("location", self.redirect_to)
        handler.send_header("content-type", "text/plain")
        handler.end_headers()
        handler.wfile.write(f"answered {status}".encode())


@contextlib.contextmanager
def running_receiver(**options):
    """A Receiver serving in a thread for the length of the block."""
    receiver = Receiver(**options)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            receiver._handle(self)

        def log_message(self, *args) -> None:
            pass

    receiver.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.server.daemon_threads = True
    thread = threading.Thread(target=receiver.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.release()
        receiver.server.shutdown()
        receiver.server.server_close()


def closed_port_url() -> str:
    """An address on 127.0.0.1 where nothing listens: a receiver that is down."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/hooks"
