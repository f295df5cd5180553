"""How the insights page grows with the data: the page and GET
/api/projects/{project}/insights at a small size and at a large one (default: 100,000
entries, 20,000 cases and answers, 200,000 log rows; `--full`: 600,000 entries, 200,000
cases and answers, 1,000,000 log rows), as server time through Django's test client beside
a bare view, with the queries each takes.

SQLite (in memory) by default; PostgreSQL when DATABASE_URL is set, in a throwaway database
of its own. Prints a table; never passes or fails on speed.

    .venv/bin/python benchmarks/bench_insights.py [--full]
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "review.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.db import connection  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import (  # noqa: E402
    CaptureQueriesContext,
    override_settings,
    setup_test_environment,
)
from django.urls import include, path, reverse  # noqa: E402
from django.utils import timezone  # noqa: E402

from review.actions.tokens import create_token  # noqa: E402
from review.models import Answer, Case, Decision, Document, Entry, Membership, Plan  # noqa: E402
from review.models.projects import default_project, default_project_id  # noqa: E402

FULL = "--full" in sys.argv
SMALL = {"entries": 1_000, "cases": 500, "answers": 500, "log": 10_000}
LARGE = (
    {"entries": 600_000, "cases": 200_000, "answers": 200_000, "log": 1_000_000}
    if FULL
    else {"entries": 100_000, "cases": 20_000, "answers": 20_000, "log": 200_000}
)
ENTRIES_PER_PLAN = 300
RULES = [f"rule:{name}" for name in ("heading", "numbered", "underlined", "preamble", "size")]
REASONS = ["", "uncited_claims", "hallucinated_evidence_ids", "cited_non_success_evidence"]
RUNS = 15
BATCH = 5_000
random.seed(7)


def bare(request):
    return HttpResponse("ok")


urlpatterns = [path("__bare__/", bare), path("", include("review.urls"))]


def grow(have: dict, want: dict, user: User) -> None:
    """Add rows until the counts reach `want`, all in Default."""
    now = timezone.now()
    project_id = default_project_id()
    while have["entries"] < want["entries"]:
        number = Document.objects.count()
        data = f"document {number}".encode()
        document = Document.objects.create(
            project_id=project_id,
            name=f"doc-{number}.md",
            media_type="markdown",
            data=data,
            sha256=hashlib.sha256(data).hexdigest(),
            text="x" * 1000,
            extractor_id="bench",
            extractor_version="1",
        )
        plan = Plan.objects.create(
            project_id=project_id,
            document=document,
            source_sha256=document.sha256,
            extractor_id="bench",
            extractor_version="1",
            proposed_by=random.choice(["propose-segments 0.1.0", "propose-segments 0.2.0"]),
            original_payload="{}",
        )
        Entry.objects.bulk_create(
            [
                Entry(
                    plan=plan,
                    position=position,
                    path=f"p{position}",
                    title=f"Section {position}",
                    span_start=position,
                    span_end=position + 1,
                    quote="x",
                    rules=[random.choice(RULES)],
                    anchor_status="exact",
                    state=random.choices(
                        ["proposed", "accepted", "edited", "merged", "rejected"],
                        [3, 12, 1, 1, 2],
                    )[0],
                    decided_at=now - dt.timedelta(days=random.randrange(84)),
                )
                for position in range(ENTRIES_PER_PLAN)
            ],
            batch_size=BATCH,
        )
        have["entries"] += ENTRIES_PER_PLAN
    cases = []
    for number in range(have["cases"], want["cases"]):
        reason = random.choice(REASONS)
        cases.append(
            Case(
                project_id=project_id,
                case_id=f"c-{number}",
                content_text="text",
                rationale_text="rationale",
                flagged=bool(reason),
                validator_reason=reason,
                source_sha256=str(number),
                verdict=random.choice(["proposed", "upheld", "overturned", "needs_rewrite"]),
                decided_at=now - dt.timedelta(days=random.randrange(84)),
                model=random.choice(["model-a", "model-b"]),
            )
        )
    Case.objects.bulk_create(cases, batch_size=BATCH)
    answers = []
    for number in range(have["answers"], want["answers"]):
        kinds = {kind: random.random() < 0.2 for kind in ("renumbered", "dropped", "backfilled")}
        answers.append(
            Answer(
                project_id=project_id,
                answer_id=f"a-{number}",
                question="q",
                raw_text="t",
                body="t",
                changed=any(kinds.values()),
                source_sha256=str(number),
                state=random.choice(["proposed", "published", "withdrawn"]),
                **{f"change_{kind}": value for kind, value in kinds.items()},
            )
        )
    Answer.objects.bulk_create(answers, batch_size=BATCH)
    for start in range(have["log"], want["log"], BATCH):
        Decision.objects.bulk_create(
            Decision(
                project_id=project_id,
                actor=user,
                actor_name=user.username,
                action="entry.accept",
                object_type="entry",
                object_id=str(number),
                at=now - dt.timedelta(minutes=number),
            )
            for number in range(start, min(start + BATCH, want["log"]))
        )
    have.update(want)


def measure(client: Client, url: str) -> tuple[float, float, int]:
    """The first request after the cache was emptied (counting), then the median of the rest
    (the figures cached until something changes), and the queries of a counting request."""
    cache.clear()
    begun = time.perf_counter()
    response = client.get(url)
    cold = (time.perf_counter() - begun) * 1000
    the_page(response, url)
    times = []
    for _ in range(RUNS):
        begun = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - begun)
        the_page(response, url)
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        the_page(client.get(url), url)
    return cold, statistics.median(times) * 1000, len(queries.captured_queries)


def the_page(response, url: str):
    # A redirect (an address from before projects) or a 403 (no role in the project) would
    # be timed as if it were the page.
    if response.status_code != 200:
        raise SystemExit(f"{url} answered {response.status_code}, not the page")
    return response


def run() -> int:
    user = User.objects.create_user("bench")
    # Roles are a project's (a group confers none); every row grow() makes is in Default.
    project = default_project()
    Membership.objects.create(project=project, user=user, editor=True)
    client = Client()
    client.force_login(user)
    # A pipeline's key, made as the product makes one, so that it acts for Default.
    _, key = create_token(user, "bench")
    pipeline = Client(headers={"Authorization": f"Bearer {key}"})
    have = {"entries": 0, "cases": 0, "answers": 0, "log": 0}
    page = reverse("insights", args=[project.slug])
    requests = [
        ("bare view", client, "/__bare__/"),
        ("insights page", client, page),
        ("insights page, rule:heading", client, f"{page}?rule=rule:heading"),
        ("API insights", pipeline, reverse("api:insights", kwargs={"project": project.slug})),
    ]
    figures = {}
    for size, want in (("small", SMALL), ("large", LARGE)):
        begun = time.perf_counter()
        grow(have, want, user)
        made = time.perf_counter() - begun
        print(f"{size}: {want} made in {made:.0f} s", flush=True)
        figures[size] = [measure(by, url) for _, by, url in requests]
    print(f"database: {connection.vendor}; median of {RUNS} requests")
    header = (
        f"{'request':<30} {'counted ms small':>16} {'large':>8} {'x':>6} "
        f"{'cached ms small':>15} {'large':>7} {'queries':>8}"
    )
    print(header)
    print("-" * len(header))
    for index, (label, _, _) in enumerate(requests):
        small_cold, small_warm, small_queries = figures["small"][index]
        large_cold, large_warm, large_queries = figures["large"][index]
        print(
            f"{label:<30} {small_cold:>16.1f} {large_cold:>8.1f} {large_cold / small_cold:>6.1f} "
            f"{small_warm:>15.1f} {large_warm:>7.1f} {small_queries:>3}→{large_queries:<4}"
        )
    return 0


def main() -> int:
    setup_test_environment()
    if connection.vendor != "sqlite":
        # A database of our own, so a test run on the same server is never touched.
        connection.settings_dict.setdefault("TEST", {})["NAME"] = f"bench_insights_{os.getpid()}"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        with override_settings(ROOT_URLCONF=__name__):
            return run()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    sys.exit(main())
