"""How fast the case and answer pages answer, against a bare Django view.

Every figure is server time through Django's test client (the full middleware stack,
a logged-in session), measured in one run against a bare view that answers "ok", so
the ratios hold across machines. Scenarios:

- a case page with 50 evidence items and a 200-sentence rationale;
- an answer page with 100 references;
- an answer search over 10,000 answers (full-text search on PostgreSQL, substring
  matching on SQLite).

SQLite (in memory) by default; PostgreSQL when DATABASE_URL is set, in a throwaway
database of its own. Prints a table; never passes or fails on speed.
"""

from __future__ import annotations

import gc
import json
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
from django.db import connection  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import (  # noqa: E402
    CaptureQueriesContext,
    override_settings,
    setup_test_environment,
)
from django.urls import include, path, reverse  # noqa: E402

from review.adapters.answers import import_answers  # noqa: E402
from review.adapters.cases import import_cases  # noqa: E402
from review.models import Answer, Case, Membership  # noqa: E402
from review.models.projects import default_project, default_project_id  # noqa: E402
from review.views.answers import search_answers  # noqa: E402

EVIDENCE_ITEMS = 50
SENTENCES = 200
REFERENCES = 100
SEARCH_ANSWERS = 10_000
WARMUP = 5
RUNS = 60
SEARCH_TERMS = "sprinkler garage"

# fmt: off
TOPICS = [
    "fire", "smoke", "sprinkler", "garage", "stair", "corridor", "door", "wall", "timber",
    "concrete", "alarm", "exit", "escape", "compartment", "insulation", "facade", "roof",
    "cabin", "school", "hospital", "ventilation", "heat", "pump", "battery", "charger",
    "kitchen", "balcony", "basement", "attic", "window", "glazing", "detector", "hose",
    "hydrant", "evacuation", "resident", "visitor", "inspector", "builder", "owner",
]
# fmt: on


def bare(request):
    return HttpResponse("ok")


# The bare view lives only here, beside the real pages, so both pass the same middleware.
urlpatterns = [path("__bare__/", bare), path("", include("review.urls"))]


def case_line() -> str:
    tools = ("policy_match", "toxicity_classifier", "user_history", "link_reputation")
    statuses = ("success",) * 7 + ("failure", "timeout", "skipped")
    evidence = [
        {
            "tool": tools[n % len(tools)],
            "status": statuses[n % len(statuses)],
            "summary": f"Finding number {n} from {tools[n % len(tools)]}",
            "latency_ms": 10 + n * 7,
            "data": {"n": n, "scores": [n / 10, n / 20]},
        }
        for n in range(EVIDENCE_ITEMS)
    ]
    sentences = []
    for n in range(SENTENCES):
        if n % 10 == 9:
            sentences.append(f"The author has posted this kind of thing {n} times in the past.")
        else:
            sentences.append(
                f"The post matches finding {n} of the gathered evidence [ev-{n % 50 + 1}]."
            )
    return json.dumps(
        {
            "case_id": "c-bench",
            "content": {
                "text": "A post that was reported.",
                "author": "u/bench",
                "community": "r/bench",
                "report_reason": "harassment",
            },
            "evidence": evidence,
            "rationale": {
                "text": " ".join(sentences),
                "recommended_action": "remove",
                "model": "bench-model",
            },
        }
    )


def answer_line() -> str:
    sources = [
        {
            "title": f"Study {n} of fire in buildings",
            "year": 1990 + n % 30,
            "authors": [f"Author {n}", "Second Author"],
            "url": f"https://example.org/study/{n}",
            "venue": "Fire Safety Journal",
            "snippet": f"What study {n} found about smoke and heat.",
        }
        for n in range(1, REFERENCES + 1)
    ]
    paragraphs = [
        f"Paragraph {n} says something about **fire** and smoke [{n}], see also [{(n % 7) + 1}]."
        for n in range(1, REFERENCES + 1)
    ]
    return json.dumps(
        {
            "answer_id": "a-bench",
            "question": "What do the studies say?",
            "text": "\n\n".join(paragraphs),
            "sources": sources,
            "model": "bench-model",
        }
    )


def many_answers(count: int) -> None:
    """Answers of filler words, each on three topics; the search names two topics, so it
    matches a few dozen answers, as a reader's search would, not all of them."""
    rng = random.Random(7)
    syllables = [c + v for c in "bdfgklmnprstv" for v in "aeiou"]
    filler = ["".join(rng.choices(syllables, k=3)) for _ in range(5000)]
    rows = []
    for n in range(count):
        topics = rng.sample(TOPICS, 3)
        rows.append(
            Answer(
                project_id=default_project_id(),
                answer_id=f"a-many-{n}",
                question=f"What about {topics[0]} and {topics[1]}?",
                raw_text="",
                body=" ".join(rng.choices(filler, k=100) + topics),
                source_sha256=f"{n:064x}",
            )
        )
    Answer.objects.bulk_create(rows, batch_size=1000)


def measure(client: Client, url: str) -> tuple[float, float, int]:
    for _ in range(WARMUP):
        the_page(client.get(url), url)
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - start)
        the_page(response, url)
    with CaptureQueriesContext(connection) as queries:
        the_page(client.get(url), url)
    cuts = statistics.quantiles(times, n=20)
    return statistics.median(times) * 1000, cuts[18] * 1000, len(queries.captured_queries)


def the_page(response, url: str):
    # A redirect (an address from before projects) or a 403 (no role in the project) would
    # be timed as if it were the page.
    if response.status_code != 200:
        raise SystemExit(f"{url} answered {response.status_code}, not the page")
    return response


def main() -> int:
    setup_test_environment()
    settings_dict = connection.settings_dict
    if connection.vendor != "sqlite":
        # A database of our own, so a test run on the same server is never touched.
        settings_dict.setdefault("TEST", {})["NAME"] = f"bench_case_answer_views_{os.getpid()}"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        with override_settings(ROOT_URLCONF=__name__):
            return run()
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def run() -> int:
    user = User.objects.create_user("bench")
    # Roles are a project's (a group confers none); the imports below land in Default.
    project = default_project()
    Membership.objects.create(project=project, user=user, moderator=True, editor=True)
    import_cases([case_line()])
    import_answers([answer_line()])
    many_answers(SEARCH_ANSWERS)
    case = Case.objects.get(case_id="c-bench")
    answer = Answer.objects.get(answer_id="a-bench")
    client = Client()
    client.force_login(user)
    # Setting up leaves a large heap behind; a server's long-lived objects are frozen
    # the same way, so the collector's pauses measured are the requests' own.
    gc.collect()
    gc.freeze()

    scenarios = [
        ("bare view", "/__bare__/"),
        (
            f"case page ({EVIDENCE_ITEMS} evidence, {SENTENCES} sentences)",
            reverse("case", args=[project.slug, case.pk]),
        ),
        (
            f"answer page ({REFERENCES} references)",
            reverse("answer", args=[project.slug, answer.pk]),
        ),
        (
            f"answer search ({SEARCH_ANSWERS:,} answers)",
            reverse("answers", args=[project.slug]) + f"?q={SEARCH_TERMS.replace(' ', '+')}",
        ),
    ]
    results = [(label, *measure(client, url)) for label, url in scenarios]
    bare_p50, bare_p95 = results[0][1], results[0][2]

    # The list no longer counts its matches (its pages are keyset pages); count them here.
    matched = search_answers(Answer.objects.all(), SEARCH_TERMS).count()
    print(f"database: {connection.vendor}; {RUNS} requests each after {WARMUP} warm-up")
    print(f"the search {SEARCH_TERMS!r} matches {matched} of {SEARCH_ANSWERS:,} answers")
    header = (
        f"{'scenario':<44} {'p50 ms':>8} {'p95 ms':>8} {'p50 x':>7} {'p95 x':>7} {'queries':>8}"
    )
    print(header)
    print("-" * len(header))
    for label, p50, p95, queries in results:
        print(
            f"{label:<44} {p50:>8.2f} {p95:>8.2f} {p50 / bare_p50:>7.1f} "
            f"{p95 / bare_p95:>7.1f} {queries:>8}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
