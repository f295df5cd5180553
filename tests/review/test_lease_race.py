"""Twenty reviewers pressing "Next" at the same moment, over real HTTP against a real server
(on PostgreSQL when DATABASE_URL is set, else SQLite): nobody is handed an item another
holds. Bounded: each request waits at most REQUEST_SECONDS, the whole round ROUND_SECONDS."""

from __future__ import annotations

import re
import threading
import urllib.error
import urllib.request

from tests.builders.queue_server import queue_server

REVIEWERS = 20
CASES = 45
ROUNDS = 2
REQUEST_SECONDS = 30
ROUND_SECONDS = 90
# Django accepts any 32-character token, as long as the cookie and the header agree.
CSRF = "q" * 32


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def press_next(base: str, session: str) -> str:
    """POST /cases/next/ as the reviewer; the address of the case it handed them."""
    request = urllib.request.Request(  # noqa: S310 - the local server's http:// address
        f"{base}/p/default/cases/next/",
        data=b"",
        method="POST",
        headers={"Cookie": f"sessionid={session}; csrftoken={CSRF}", "X-CSRFToken": CSRF},
    )
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(request, timeout=REQUEST_SECONDS)
    except urllib.error.HTTPError as answer:
        if answer.code == 302:
            return answer.headers["Location"]
        raise
    raise AssertionError("Next did not redirect")


def press_all_at_once(base: str, sessions: list[str]) -> list[str]:
    start = threading.Barrier(len(sessions))
    handed: list[str | BaseException] = [""] * len(sessions)

    def reviewer(index: int) -> None:
        start.wait(timeout=ROUND_SECONDS)
        try:
            handed[index] = press_next(base, sessions[index])
        except BaseException as failure:  # reported below, with the others
            handed[index] = failure

    threads = [threading.Thread(target=reviewer, args=(n,)) for n in range(len(sessions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=ROUND_SECONDS)
    assert not any(thread.is_alive() for thread in threads), "a request never came back"
    failures = [item for item in handed if isinstance(item, BaseException)]
    assert not failures, failures
    return handed


def test_twenty_reviewers_pressing_next_at_once_are_never_handed_the_same_case(tmp_path):
    with queue_server(tmp_path, reviewers=REVIEWERS, cases=CASES) as (base, sessions):
        for _ in range(ROUNDS):
            handed = press_all_at_once(base, sessions)
            assert all(re.fullmatch(r"/p/default/cases/\d+/", url) for url in handed), handed
            # Each holds what they were handed until they press again: all different.
            assert len(set(handed)) == REVIEWERS, sorted(handed)
