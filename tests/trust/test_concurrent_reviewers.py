"""Fifty reviewers, each with a session of their own, decide the same few entries and cases at
once over real HTTP against gunicorn on PostgreSQL. Each reads the version on the page, then
decides on it, as a person does; many therefore decide on a version someone has just changed.

Asserted, from the log pulled over the API afterwards: no server error; one log row per
success; no two successes on one (object, version); each object's state is its last row's
`after`; and each row's `before` is the previous row's `after`. The figures (requests,
outcomes, p50/p95) are printed, not asserted.
"""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest
import requests

from tests.builders.served import Server, is_postgres

pytestmark = [
    pytest.mark.trust,
    pytest.mark.skipif(
        not is_postgres(),
        reason="needs PostgreSQL (DATABASE_URL): SQLite serialises every write on one lock, "
        "so concurrent reviewers there cannot race on a row the way they do in production",
    ),
]

REVIEWERS = int(os.environ.get("TRUST_REVIEWERS", "50"))
DECISIONS_EACH = int(os.environ.get("TRUST_DECISIONS", "20"))
# So few that reviewers keep meeting each other's decisions.
ENTRIES, CASES = 8, 6
TIMEOUT = 60
VERSION = re.compile(r'name="version" value="(\d+)"')
HTMX = {"HX-Request": "true"}

ENTRY_ACTIONS = ("accept", "accept", "reject", "undo")
CASE_ACTIONS = ("uphold", "uphold", "overturn", "needs-rewrite", "undo")

# Run inside `manage.py shell`: the objects under test and their state now.
STATES = """
import json
from review.models import Case, Entry
entries = Entry.objects.filter(plan__status="open").order_by("plan_id", "position")[:{entries}]
cases = Case.objects.select_related("project").order_by("pk")[:{cases}]
print(json.dumps({{
    "entry": {{str(e.pk): {{"state": e.state, "plan": e.plan_id}} for e in entries}},
    "case": {{str(c.pk): {{"verdict": c.verdict, "project": c.project.slug}} for c in cases}},
}}))
"""


@dataclass(frozen=True)
class Attempt:
    kind: str
    key: str
    version: int | None
    action: str
    status: int
    seconds: float


def states(server: Server) -> dict:
    return json.loads(
        server.manage("shell", "--no-imports", stdin=STATES.format(entries=ENTRIES, cases=CASES))
    )


def decision_log(server: Server) -> list[dict]:
    """The log of every project the pipeline's key acts for (the demo's plans and cases are
    in two), each read to its end, page by page."""
    pipeline = requests.Session()
    pipeline.headers["Authorization"] = f"Bearer {server.key('pipeline')}"
    projects = pipeline.get(f"{server.url}/api/projects", timeout=TIMEOUT).json()
    rows = []
    for project in projects:
        url = f"{server.url}/api/projects/{project['slug']}/decisions?limit=500"
        while url:
            page = pipeline.get(url, timeout=TIMEOUT).json()
            rows += page["items"]
            url = page["next"] and f"{server.url}{page['next']}"
    return rows


def reviewer_session(server: Server, username: str) -> requests.Session:
    session = requests.Session()
    session.cookies.set("sessionid", server.sessions[username])
    # The dashboard sets the CSRF cookie; a decision sends it back as htmx does.
    session.get(f"{server.url}/", timeout=TIMEOUT).raise_for_status()
    session.headers["X-CSRFToken"] = session.cookies["csrftoken"]
    return session


def review(server: Server, username: str, targets: dict, seed: int) -> list[Attempt]:
    rng = random.Random(seed)
    session = reviewer_session(server, username)
    kind = "entry" if username.startswith("editor") else "case"
    attempts = []
    for _ in range(DECISIONS_EACH):
        key = rng.choice(sorted(targets[kind]))
        if kind == "entry":
            page = f"{server.url}/p/default/plans/{targets['entry'][key]['plan']}/entries/{key}/"
            action = rng.choice(ENTRY_ACTIONS)
        else:
            page = f"{server.url}/p/{targets['case'][key]['project']}/cases/{key}/"
            action = rng.choice(CASE_ACTIONS)
        found = VERSION.search(session.get(page, headers=HTMX, timeout=TIMEOUT).text)
        version = int(found.group(1)) if found else None
        form = {"version": version, "note": f"{username} says so"}
        started = time.perf_counter()
        response = session.post(f"{page}{action}/", form, headers=HTMX, timeout=TIMEOUT)
        attempts.append(
            Attempt(kind, key, version, action, response.status_code, time.perf_counter() - started)
        )
    return attempts


def test_fifty_reviewers_at_once_lose_and_overwrite_nothing(server: Server) -> None:
    targets = states(server)
    before = {row["id"] for row in decision_log(server)}
    editors = [name for name in server.sessions if name.startswith("editor-")]
    moderators = [name for name in server.sessions if name.startswith("moderator-")]
    people = (editors + moderators)[:REVIEWERS]

    with ThreadPoolExecutor(max_workers=len(people)) as pool:
        futures = [
            pool.submit(review, server, name, targets, seed) for seed, name in enumerate(people)
        ]
        attempts = [attempt for future in futures for attempt in future.result()]
    log = decision_log(server)
    now = states(server)

    outcomes = Counter(attempt.status for attempt in attempts)
    latencies = sorted(attempt.seconds for attempt in attempts)
    p95 = latencies[int(len(latencies) * 0.95) - 1]
    print(
        f"{len(people)} reviewers, {len(attempts)} decisions (and as many page reads): "
        f"outcomes {dict(sorted(outcomes.items()))}; decision p50 "
        f"{statistics.median(latencies) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms"
    )

    assert not [status for status in outcomes if status >= 500]
    assert set(outcomes) <= {200, 409, 422}
    successes = [attempt for attempt in attempts if attempt.status == 200]
    new_rows = [row for row in log if row["id"] not in before]
    assert len(new_rows) == len(successes)
    seen_versions = Counter((a.kind, a.key, a.version) for a in successes)
    assert [pair for pair, count in seen_versions.items() if count > 1] == []
    assert outcomes[409] > 0, "no reviewer ever met another's decision: the load overlapped nothing"

    by_object = defaultdict(list)
    for row in log:
        by_object[(row["object_type"], row["object_id"])].append(row)
    field = {"entry": "state", "case": "verdict"}
    for kind in ("entry", "case"):
        for key, current in now[kind].items():
            rows = by_object.get((kind, key))
            # Never decided: as it was before the load began.
            last = rows[-1]["after"][field[kind]] if rows else targets[kind][key][field[kind]]
            assert last == current[field[kind]], (kind, key)
    for (kind, key), rows in by_object.items():
        for previous, row in zip(rows, rows[1:], strict=False):
            shared = set(previous["after"]) & set(row["before"])
            assert {name: row["before"][name] for name in shared} == {
                name: previous["after"][name] for name in shared
            }, (kind, key, previous["id"], row["id"])
