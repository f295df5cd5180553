"""The editors' plan page, an Accept and an Undo, on a plan of 600 entries over a
250,000-character document, against a bare Django view answering "ok" in the same run.

    .venv/bin/python benchmarks/bench_plan_views.py [--rounds N] [--backend sqlite|postgres|both]

Set-up: a fresh database, migrated, one editor, and the document proposed through the same
door the upload form uses. SQLite: a file in a temporary folder (whatever DATABASE_URL says).
PostgreSQL: the database BENCH_POSTGRES_URL names (postgres://postgres@127.0.0.1:5432/
bench_plan_views unless set), dropped and made afresh; it is skipped, saying so, when no server
answers. `both` (the default) runs each in a process of its own and prints both tables, each
ratio measured against the bare view of its own run. Requests go
through Django's test Client in this process, with the project's full middleware (sessions,
login required, CSRF, htmx); DEBUG is off, as in production.

Server time is the time the WSGI handler takes for a request, as a server would see it: every
middleware, the view, its queries (and commit) and its template, but not the test client's own
work of building the request and reading the response. The bare view sits behind the same
middleware (it is a logged-in request too) and exists only in this script's URLconf, never in
the product's.

Each Accept is measured on a different PROPOSED entry (an htmx request, answered with the row,
its span and the counters); each Undo takes that Accept back. Queries are counted per request.
Each round draws the plan page before the bare view and again before the Accept, so that the two
requests a ratio compares meet the same state of the CPU's caches.

Targets (issue 5): the plan page takes at most 150 ms (p50) on SQLite; (issue 11) an Accept
takes at most 4x the bare view (p50) on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import types
from pathlib import Path

ENTRIES = 600
DOCUMENT_CHARS = 250_000
ACCEPT_TARGET_RATIO = 4.0
PAGE_TARGET_MS = 150.0
POSTGRES_URL = os.environ.get(
    "BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/bench_plan_views"
)


def _backend(argv: list[str]) -> str:
    for index, arg in enumerate(argv):
        if arg.startswith("--backend="):
            return arg.split("=", 1)[1]
        if arg == "--backend" and index + 1 < len(argv):
            return argv[index + 1]
    return "both"


BACKEND = _backend(sys.argv[1:])
if BACKEND == "both":
    # Each backend in a process of its own: Django is set up once per process. A failed one
    # fails the run (run.py counts it), after the other has printed its table.
    failed = False
    for name in ("sqlite", "postgres"):
        print(f"--- {name} ---", flush=True)
        args = [a for a in sys.argv[1:] if not a.startswith("--backend")]
        child = subprocess.run([sys.executable, __file__, *args, "--backend", name], check=False)
        failed |= child.returncode != 0
    sys.exit(1 if failed else 0)
if BACKEND == "postgres":
    os.environ["DATABASE_URL"] = POSTGRES_URL
else:
    _WORK = tempfile.mkdtemp(prefix="bench-plan-views-")
    os.environ["DATABASE_URL"] = f"sqlite:///{Path(_WORK) / 'bench.sqlite3'}"
os.environ["DJANGO_DEBUG"] = "0"
os.environ["DJANGO_SETTINGS_MODULE"] = "review.settings"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.urls import include, path, reverse  # noqa: E402
from server_time import ServerTime  # noqa: E402
from server_time import timings as _timings  # noqa: E402

from review.adapters.plans import propose_document  # noqa: E402
from review.models import Entry, Membership  # noqa: E402


def bare_ok(request):
    return HttpResponse("ok", content_type="text/plain")


# The benchmark's URLconf: the product's URLs plus the bare view.
_urls = types.ModuleType("bench_plan_views_urls")
_urls.urlpatterns = [path("bench/ok/", bare_ok), path("", include("review.urls"))]
sys.modules[_urls.__name__] = _urls


def handbook(entries: int, chars: int) -> str:
    """A Markdown document of `entries` numbered sections, about `chars` characters long, with
    a preamble that no section covers."""
    preamble = "This preamble comes before the first section and no entry covers it.\n\n"
    per_section = (chars - len(preamble)) // entries
    sentence = (
        "the building shall be designed so that fire spread between compartments is limited "
        "and escape routes remain usable for the time people need to leave safely"
    )
    words = sentence.split(" ")
    parts = [preamble]
    for number in range(1, entries + 1):
        heading = f"## {number} Requirement number {number}\n\n"
        body, paragraph, index = [], [], number
        size = len(heading)
        while size < per_section - 2:
            word = words[index % len(words)]
            index += 7
            paragraph.append(word)
            size += len(word) + 1
            if len(paragraph) == 40:
                body.append(" ".join(paragraph) + ".\n\n")
                paragraph = []
                size += 2
        if paragraph:
            body.append(" ".join(paragraph) + ".\n\n")
        parts.append(heading + "".join(body))
    text = "".join(parts)
    return text + "x" * max(0, chars - len(text) - 1) + "\n"


def fresh_postgres() -> bool:
    """Drop and make the benchmark's PostgreSQL database; False when no server answers."""
    import psycopg

    target = settings.DATABASES["default"]
    try:
        with psycopg.connect(
            host=target["HOST"] or "127.0.0.1",
            port=target["PORT"] or 5432,
            user=target["USER"],
            password=target["PASSWORD"] or None,
            dbname="postgres",
            autocommit=True,
        ) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{target["NAME"]}"')
            admin.execute(f'CREATE DATABASE "{target["NAME"]}"')
    except psycopg.OperationalError as error:
        print(f"PostgreSQL skipped: no server at {POSTGRES_URL} ({error})")
        return False
    return True


def set_up():
    call_command("migrate", verbosity=0)
    editor = User.objects.create_user("editor", password="demo")
    text = handbook(ENTRIES, DOCUMENT_CHARS)
    plan = propose_document("handbook.md", text.encode(), actor=editor)
    # Roles are a project's (a group confers none): an editor of the one the plan landed in.
    Membership.objects.create(project=plan.project, user=editor, editor=True)
    return editor, plan, text


def measure(client: Client, rounds: int, plan) -> dict[str, dict]:
    entries = list(Entry.objects.filter(plan=plan).order_by("position"))
    htmx = {"HX-Request": "true"}
    slug = plan.project.slug
    plan_url = reverse("plan", args=[slug, plan.pk])

    def timed(name, call, results):
        _timings.clear()
        with CaptureQueriesContext(connection) as queries:
            response = call()
        assert response.status_code == 200, (name, response.status_code)
        results.setdefault(name, {"times": [], "cpu": [], "queries": []})
        wall, cpu = _timings[-1]
        results[name]["times"].append(wall)
        results[name]["cpu"].append(cpu)
        results[name]["queries"].append(len(queries))

    results: dict[str, dict] = {}
    for _ in range(5):  # warm caches (templates, URL resolver, SQLite pages)
        for url in ("/bench/ok/", plan_url):
            response = client.get(url)
            assert response.status_code == 200, (url, response.status_code)
    for round_number in range(rounds):
        entry = entries[(round_number * 7) % len(entries)]
        version = Entry.objects.get(pk=entry.pk).version
        accept, undo = (
            reverse("entry-decide", args=[slug, plan.pk, entry.pk, action])
            for action in ("accept", "undo")
        )
        # The bare view and the Accept each come right after the plan page, so both meet
        # the same caches (the page's 600 rows push the view's code and rows out of them).
        timed("plan page", lambda: client.get(plan_url), results)
        timed("bare view", lambda: client.get("/bench/ok/"), results)
        client.get(plan_url)
        timed(
            "accept",
            lambda accept=accept, version=version: client.post(
                accept, {"version": version}, headers=htmx
            ),
            results,
        )
        timed(
            "undo",
            lambda undo=undo, version=version: client.post(
                undo, {"version": version + 1}, headers=htmx
            ),
            results,
        )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=80)
    parser.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    args = parser.parse_args(argv)
    if BACKEND == "postgres" and not fresh_postgres():
        return 0

    settings.ROOT_URLCONF = _urls.__name__
    # As production serves (CONN_MAX_AGE 60): one connection kept across requests, so neither
    # the bare view nor an Accept pays for a new PostgreSQL connection.
    settings.DATABASES["default"]["CONN_MAX_AGE"] = 60
    editor, plan, text = set_up()
    client = Client()
    client.force_login(editor)
    client.handler = ServerTime(client.handler)
    results = measure(client, args.rounds, plan)

    bare = statistics.median(results["bare view"]["times"])
    bare_cpu = statistics.median(results["bare view"]["cpu"])
    print(
        f"plan of {plan.entries.count()} entries over a {len(text):,}-character document; "
        f"{'PostgreSQL' if BACKEND == 'postgres' else 'SQLite file'}; {args.rounds} requests "
        "each; server time (WSGI handler)\n"
    )
    columns = (
        "request",
        "p50 ms",
        "p95 ms",
        "p50/bare",
        "p95/bare",
        "cpu p50 ms",
        "cpu/bare",
        "queries",
    )
    print(f"{columns[0]:<11}" + "".join(f"{name:>11}" for name in columns[1:]))
    print("-" * 88)
    rows = {}
    for name in ("bare view", "plan page", "accept", "undo"):
        times = results[name]["times"]
        p50, p95 = statistics.median(times), statistics.quantiles(times, n=20)[-1]
        rows[name] = (p50, p95)
        cpu = statistics.median(results[name]["cpu"])
        queries = "/".join(map(str, sorted(set(results[name]["queries"]))))
        cells = (
            f"{p50 * 1000:.2f}",
            f"{p95 * 1000:.2f}",
            f"{p50 / bare:.1f}x",
            f"{p95 / bare:.1f}x",
            f"{cpu * 1000:.2f}",
            f"{cpu / bare_cpu:.1f}x",
            queries,
        )
        print(f"{name:<11}" + "".join(f"{cell:>11}" for cell in cells))
    accept_ratio = rows["accept"][0] / bare
    accept_cpu_ratio = statistics.median(results["accept"]["cpu"]) / bare_cpu
    page_ms = rows["plan page"][0] * 1000
    print()
    print(
        f"target: accept <= {ACCEPT_TARGET_RATIO:.0f}x bare view (p50): "
        f"{'met' if accept_ratio <= ACCEPT_TARGET_RATIO else 'NOT met'} ({accept_ratio:.1f}x; "
        f"in CPU time {accept_cpu_ratio:.1f}x, which a busy machine disturbs less)"
    )
    print(
        f"target: plan page <= {PAGE_TARGET_MS:.0f} ms (p50): "
        f"{'met' if page_ms <= PAGE_TARGET_MS else 'NOT met'} ({page_ms:.0f} ms)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
