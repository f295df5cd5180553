"""The client's retries against a real HTTP peer: a tiny `http.server` on loopback that answers
what each test scripts (503 then 200, a 429 with Retry-After, a proxy's HTML page), and records
what it was asked."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from grounding_review_client import ApiError, Client

from tests.builders.served import free_port

PROJECTS = [{"slug": "default", "name": "Default", "description": "", "roles": ["editor"]}]
DOCUMENT = {
    "id": 2,
    "name": "two.md",
    "media_type": "markdown",
    "sha256": "0" * 64,
    "extractor_id": "markdown",
    "extractor_version": "1",
    "text_chars": 4,
    "revision": 2,
    "revision_of": 1,
    "created_at": "2026-12-03T17:00:00+00:00",
}
REVISION = {"document": DOCUMENT, "plan": None, "carried": 0, "need_you": 0, "gone": []}


# An answer never sent: the connection closes once the request is read, as when a server dies
# mid-request (whether it acted, the client cannot know).
DROP = 0
DROPPED = (DROP, {}, b"")


@dataclass
class Scripted:
    """What the peer answers, in order: (status, headers, body); and what it was asked."""

    answers: list[tuple[int, dict[str, str], bytes]]
    asked: list[tuple[str, str]] = field(default_factory=list)


def json_answer(status: int, body: object, **headers: str) -> tuple[int, dict, bytes]:
    return status, {"Content-Type": "application/json", **headers}, json.dumps(body).encode()


@contextmanager
def peer(*answers: tuple[int, dict[str, str], bytes]) -> Iterator[tuple[str, Scripted]]:
    script = Scripted(list(answers))

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            script.asked.append((self.command, self.path))
            status, headers, body = script.answers.pop(0)
            if status == DROP:
                self.close_connection = True
                return
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer

        def log_message(self, *args: object) -> None:
            pass

    port = free_port()
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}", script
    finally:
        server.shutdown()
        server.server_close()


def client(url: str, retried: list, **options) -> Client:
    options = {"backoff": 0.01, "max_delay": 0.05, **options}
    return Client(
        url, "key", on_retry=lambda reason, delay: retried.append((reason, delay)), **options
    )


def test_a_get_answered_503_is_asked_again_and_its_200_returned():
    retried = []
    with peer(json_answer(503, {}), json_answer(200, PROJECTS)) as (url, script):
        projects = client(url, retried).projects()

    assert [project.slug for project in projects] == ["default"]
    assert script.asked == [("GET", "/api/projects")] * 2
    assert [reason for reason, _ in retried] == ["503"]


def test_a_429_waits_as_its_retry_after_says_and_no_longer_than_the_bound():
    retried = []
    answers = (
        json_answer(429, {}, **{"Retry-After": "0"}),
        json_answer(429, {}, **{"Retry-After": "3600"}),
        json_answer(200, PROJECTS),
    )
    with peer(*answers) as (url, _):
        # A backoff of a minute would be waited were Retry-After not read.
        client(url, retried, backoff=60, max_delay=0.05).projects()

    assert retried == [("429", 0.0), ("429", 0.05)]


def test_a_post_that_may_have_been_applied_is_not_sent_again():
    retried = []
    busy = json_answer(503, {"detail": "busy", "problems": ["busy"]})
    with peer(busy) as (url, script), pytest.raises(ApiError) as refused:
        client(url, retried).push_revision(1, b"# Two\n", name="two.md")

    assert (refused.value.status, refused.value.detail) == (503, "busy")
    assert len(script.asked) == 1 and retried == []


def test_a_post_refused_429_is_sent_again_since_nothing_was_done():
    retried = []
    with peer(json_answer(429, {}), json_answer(201, REVISION)) as (url, script):
        revision = client(url, retried).push_revision(1, b"# Two\n", name="two.md")

    assert revision.document.revision_of == 1
    assert [method for method, _ in script.asked] == ["POST", "POST"]
    assert [reason for reason, _ in retried] == ["429"]


def test_a_refusal_other_than_429_is_never_asked_again():
    refusal = {"detail": "there is no plan 7", "problems": ["there is no plan 7"]}
    retried = []
    with peer(json_answer(404, refusal)) as (url, script), pytest.raises(ApiError) as refused:
        client(url, retried).plan(7)

    assert (refused.value.status, refused.value.problems) == (404, ["there is no plan 7"])
    assert script.asked == [("GET", "/api/projects/default/plans/7")]
    assert retried == []


def test_the_retries_are_bounded_and_the_last_answer_raised():
    proxy_page = (502, {"Content-Type": "text/html"}, b"<h1>Bad gateway</h1>")
    retried = []
    with peer(*[proxy_page] * 3) as (url, script), pytest.raises(ApiError) as refused:
        client(url, retried, retries=2).plan(7)

    assert len(script.asked) == 3 and len(retried) == 2
    assert refused.value.status == 502
    assert refused.value.detail.startswith("502 Bad Gateway from http://127.0.0.1:")
    assert "<h1>Bad gateway</h1>" in refused.value.problems


def test_a_server_that_cannot_be_reached_is_an_api_error_naming_it():
    retried = []
    url = f"http://127.0.0.1:{free_port()}"

    with pytest.raises(ApiError) as unreachable:
        client(url, retried, retries=1).projects()

    assert unreachable.value.status is None
    assert unreachable.value.detail.startswith(f"could not reach {url}")
    assert [reason for reason, _ in retried] == ["ConnectError"]


def test_a_get_whose_answer_was_lost_is_asked_again():
    retried = []
    with peer(DROPPED, json_answer(200, PROJECTS)) as (url, script):
        client(url, retried).projects()

    assert len(script.asked) == 2
    assert [reason for reason, _ in retried] == ["RemoteProtocolError"]


def test_a_post_whose_answer_was_lost_is_not_sent_again_and_says_it_may_have_acted():
    retried = []
    with peer(DROPPED) as (url, script), pytest.raises(ApiError) as lost:
        client(url, retried).push_revision(1, b"# Two\n", name="two.md")

    assert len(script.asked) == 1 and retried == []
    assert lost.value.status is None
    assert lost.value.detail.startswith(f"no answer (it may have acted) from {url}")
