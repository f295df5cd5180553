"""Every page and door at two sizes of data on PostgreSQL: a large set and a small one of a
hundredth of it, server time and query count per request, and their ratio.

    .venv/bin/python benchmarks/bench_scale.py [--scale F | --full] [--rounds N] [--url URL]

The full large set (issue 11) is 200,000 cases (700,000 evidence rows), 200,000 answers,
2,000 plans of 300 entries and a log of 1,000,000 decisions in the project measured, and as
much in each of 19 projects beside it (issue 23); by default the large set is a tenth of that
(`--scale 0.1`); `--full` is `--scale 1`.
The data is made by benchmarks/scale_data.py in databases of the benchmark's own, on the
server of `--url` (default postgres://postgres@127.0.0.1:5432/bench_scale; the small set goes
to the same name with `_small`). A database that already holds a set of the same size, made
by the same migrations, is reused (its size is recorded in the table bench_scale_size);
otherwise it is dropped and made again. Without a reachable PostgreSQL the script says why and
prints no figures.

The set is spread over 20 projects of the same size (scale_data.py says how); the pages
measured are those of one of them, "Default", at its own addresses (`/p/default/...`), with
the project filter doing its work: the tables behind each page hold twenty projects' rows.

Each set is measured in a process of its own, as bench_plan_views.py measures: Django's test
Client with the project's full middleware, DEBUG off, signed in as a member of Default with
an editor's, a moderator's and a lead's roles there, and a reader of one other project (the
API with that user's bearer token). Server time is the time the WSGI handler takes: the
median of --rounds rounds (7) after one warm-up request (fewer for a request that takes
seconds). The small set is measured before and after the large one, and
keeps each request's lower median, so that a busy spell on a shared machine does not pass for
growth or its absence. List pages are paged by following the product's own
links ("last" where there is one; otherwise "next", or the page number the page shows), and
filtered by the choices their own filter forms and links offer. "Next" is the form the list
pages offer, posted as a reviewer presses it (the lease it takes is let go after each round).

On the large set, the queries of the main pages of the project (the plans, cases and answers
lists, the decision log, Next for plans and cases) are explained (`EXPLAIN (FORMAT JSON)`),
and the report says, per page, whether any reads a big table whole (a Seq Scan on plans,
entries, cases and their evidence, answers and their references, or the log) and which
indexes they use.

If benchmarks/bench_imports.py offers `import_figures(database_url, scale)`, its figures are
printed after the table.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import re
import statistics
import subprocess
import sys
import time
import types
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from server_time import ServerTime, body_of
from server_time import timings as _timings

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/bench_scale"
SEED = 11
# A request stops being repeated once its rounds have taken this long.
ROUND_BUDGET_S = 4.0
COMMON_WORD = "package"
LATE_PAGE = 100
# Keys of a list page's links that page rather than filter.
PAGING_KEYS = {"page", "after", "before", "cursor", "last"}
# The project whose pages are measured, one of scale_data.py's 20 of the same size.
PROJECT = "default"
# The tables whose Seq Scan on the large set would make a page grow with the data (a case's
# evidence and an answer's references are several rows each).
LARGE_TABLES = {
    *("review_plan", "review_entry", "review_case", "review_answer", "review_decision"),
    *("review_evidence", "review_answerreference"),
}


# --- the parent: the two sets, the table -----------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1, help="the large set's fraction")
    parser.add_argument("--full", action="store_true", help="the whole large set (--scale 1)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--url", default=os.environ.get("BENCH_SCALE_URL", DEFAULT_URL))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--imports", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    scale = 1.0 if args.full else args.scale
    if args.child:
        return measure_set(args.child, scale, args.rounds)
    if args.imports:
        return import_rows(args.imports, scale)

    problem = unreachable(args.url)
    if problem:
        print(f"PostgreSQL is not reachable at {redacted(args.url)} ({problem}); no figures.")
        return 0
    small_url = with_database(args.url, f"{database_of(args.url)}_small")
    # The small set is measured before and after the large one and keeps the lower median
    # of each request, so that a busy spell on a shared machine does not pass for a ratio.
    runs = []
    for label, fraction, url in (
        ("small", scale / 100, small_url),
        ("large", scale, args.url),
        ("small", scale / 100, small_url),
    ):
        print(f"{label} set (scale {fraction:g}) in {database_of(url)}", flush=True)
        command = [sys.executable, __file__, "--child", url, "--scale", repr(fraction)]
        done = subprocess.run(
            [*command, "--rounds", str(args.rounds)], cwd=ROOT, stdout=subprocess.PIPE, text=True
        )
        if done.returncode != 0:
            print(f"the {label} set failed (exit {done.returncode}); no figures for it")
            return 1
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    first, large, second = runs
    sets = {"small": lower_medians(first, second), "large": large}
    print_table(sets, scale)
    if (HERE / "bench_imports.py").exists():
        url = with_database(args.url, f"{database_of(args.url)}_imports")
        print(f"\nimports (scale {scale:g}) in {database_of(url)}", flush=True)
        done = subprocess.run(
            [sys.executable, __file__, "--imports", url, "--scale", repr(scale)], cwd=ROOT
        )
        if done.returncode != 0:
            print(f"the import figures failed (exit {done.returncode})")
            return 1
    return 0


def lower_medians(first: dict, second: dict) -> dict:
    rows = dict(first["rows"])
    for name, row in second["rows"].items():
        if name not in rows or row["ms"] < rows[name]["ms"]:
            rows[name] = row
    return {**second, "rows": rows}


def print_table(sets: dict, scale: float) -> None:
    small, large = sets["small"], sets["large"]
    print()
    for label, found in (("small", small), ("large", large)):
        counts = ", ".join(f"{value:,} {name}" for name, value in found["counts"].items())
        print(f"{label}: {counts}")
    print(
        f"\nPostgreSQL; large = scale {scale:g} of the issue's set, small = 1/100 of it. Server "
        "time: the WSGI handler's wall clock, median of the rounds (the small set: the lower of "
        "its two runs); cpu: this process's CPU time in it (the database's is not counted)\n"
    )
    names = list(dict.fromkeys([*large["rows"], *small["rows"]]))
    width = max(len(name) for name in names) + 2
    heads = ("small ms", "large ms", "ratio", "cpu ms s/l", "queries s/l", "large KB")
    print(f"{'request':<{width}}" + "".join(f"{head:>13}" for head in heads))
    print("-" * (width + 13 * len(heads)))
    for name in names:
        a, b = small["rows"].get(name), large["rows"].get(name)
        ratio = f"{b['ms'] / a['ms']:.1f}x" if a and b and a["ms"] else "—"
        cells = (
            f"{a['ms']:.1f}" if a else "—",
            f"{b['ms']:.1f}" if b else "—",
            ratio,
            "/".join(f"{row['cpu']:.0f}" if row else "—" for row in (a, b)),
            f"{a['queries'] if a else '—'}/{b['queries'] if b else '—'}",
            f"{b['bytes'] / 1024:.0f}" if b else "—",
        )
        print(f"{name:<{width}}" + "".join(f"{cell:>13}" for cell in cells))
    for label, found in (("small", small), ("large", large)):
        for note in found["notes"]:
            print(f"note ({label}): {note}")
    print_plans(large.get("plans", {}))


def print_plans(plans: dict) -> None:
    """The index-use report of the large set's main pages."""
    if not plans:
        return
    print(
        f"\nIndex use on the large set (EXPLAIN of each page's SELECTs; a Seq Scan on "
        f"{', '.join(sorted(LARGE_TABLES))} counts):"
    )
    for name, found in plans.items():
        scans = ", ".join(found["seq_scans"]) or "none"
        print(f"  {name}: {found['selects']} SELECTs; seq scans of big tables: {scans}")
        print(f"    indexes: {', '.join(found['indexes']) or 'none'}")
        for sql in found["sql"]:
            print(f"    seq scan in: {sql[:300]}")


# --- databases -------------------------------------------------------------------------------


def database_of(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def redacted(url: str) -> str:
    parts = urlsplit(url)
    if parts.password:
        parts = parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@"))
    return urlunsplit(parts)


def _server(url: str):
    import psycopg

    return psycopg.connect(with_database(url, "postgres"), autocommit=True, connect_timeout=5)


def unreachable(url: str) -> str:
    try:
        with _server(url) as connection:
            connection.execute("SELECT 1")
    except Exception as error:  # any reason at all is a reason to print no figures
        return " ".join(str(error).split()) or type(error).__name__
    return ""


def size_key(scale: float) -> str:
    """What a stored set must match to be reused: its size, the seed, and the migrations that
    made its tables (another branch's columns need the set made again)."""
    migrations = sorted(path.stem for path in (ROOT / "review" / "migrations").glob("0*.py"))
    generator = hashlib.sha256((HERE / "scale_data.py").read_bytes()).hexdigest()[:16]
    return json.dumps(
        {"scale": scale, "seed": SEED, "migrations": migrations, "generator": generator}
    )


def stored_key(url: str) -> str | None:
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=5) as connection:
            row = connection.execute("SELECT key FROM bench_scale_size").fetchone()
    except psycopg.Error:
        return None
    return row[0] if row else None


def recreate(url: str) -> None:
    from psycopg import sql

    name = sql.Identifier(database_of(url))
    with _server(url) as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
        connection.execute(sql.SQL("CREATE DATABASE {}").format(name))


def set_up_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ["DJANGO_SETTINGS_MODULE"] = "review.settings"
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(HERE))
    import django

    django.setup()


def prepared(url: str, scale: float, say) -> tuple[bool, dict]:
    """The set at `scale` in the database of `url`: reused, or made again."""
    key = size_key(scale)
    reuse = stored_key(url) == key
    if not reuse:
        recreate(url)
    set_up_django(url)
    from django.core.management import call_command, get_commands
    from django.db import connection

    if reuse:
        with connection.cursor() as cursor:
            cursor.execute("SELECT counts FROM bench_scale_size")
            return True, json.loads(cursor.fetchone()[0])
    import scale_data

    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    say(f"generating the set at scale {scale:g}")
    counts = scale_data.generate(scale, seed=SEED, say=say)
    if "recount" in get_commands():
        say("manage.py recount")
        call_command("recount")
    say("VACUUM ANALYZE")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("CREATE TABLE bench_scale_size (key text, counts text, made_at timestamptz)")
        cursor.execute(
            "INSERT INTO bench_scale_size VALUES (%s, %s, now())", [key, json.dumps(counts)]
        )
    say(f"made in {time.perf_counter() - started:.0f} s")
    return False, counts


# --- one set: the requests ---------------------------------------------------------------


class Links(HTMLParser):
    """A page's links (href, rel, text) and its GET forms' select choices."""

    def __init__(self):
        super().__init__()
        self.links: list[dict] = []
        self.selects: list[tuple[str, str, list[str]]] = []  # (form action, name, values)
        self.posts: list[str] = []  # the actions of its POST forms
        self._link = None
        self._form = None
        self._select = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("href"):
            self._link = {"href": attrs["href"], "rel": attrs.get("rel") or "", "text": ""}
            self.links.append(self._link)
        elif tag == "form" and (attrs.get("method") or "get").lower() == "get":
            self._form = attrs.get("action") or ""
        elif tag == "form":
            self.posts.append(attrs.get("action") or "")
        elif tag == "select" and self._form is not None:
            self._select = (self._form, attrs.get("name") or "", [])
            self.selects.append(self._select)
        elif tag == "option" and self._select is not None and attrs.get("value"):
            self._select[2].append(attrs["value"])

    def handle_endtag(self, tag):
        if tag == "a":
            self._link = None
        elif tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data):
        if self._link is not None:
            self._link["text"] += data

    def find(self, word: str) -> str | None:
        """The link whose rel or text is `word` ("next", "last")."""
        for link in self.links:
            if word in link["rel"].split() or link["text"].strip().lower() == word:
                return link["href"]
        return None


def parsed(html: str) -> Links:
    links = Links()
    links.feed(html)
    return links


def resolve(base: str, href: str) -> str:
    parts = urlsplit(urljoin(f"http://testserver{base}", href))
    return urlunsplit(("", "", parts.path, parts.query, ""))


class Requests:
    def __init__(self, client, rounds: int, token: str):
        self.client, self.rounds = client, rounds
        self.api = {"Authorization": f"Bearer {token}"}
        self.rows: dict[str, dict] = {}
        self.notes: list[str] = []

    def get(self, url: str, api: bool = False):
        return self.client.get(url, headers=self.api if api else None)

    def html(self, url: str) -> Links:
        response = self.get(url)
        assert response.status_code == 200, (url, response.status_code)
        return parsed(body_of(response).decode())

    def measure(
        self, name: str, call, *, warm: bool = True, before=None, after=None, status: int = 200
    ) -> None:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        if warm:
            call()
        times, cpu, queries, size = [], [], [], 0
        for _ in range(self.rounds):
            if before is not None:
                before()
            _timings.clear()
            with CaptureQueriesContext(connection) as captured:
                response = call()
            assert response.status_code == status, (name, response.status_code)
            times.append(_timings[-1][0])
            cpu.append(_timings[-1][1])
            queries.append(len(captured))
            size = len(body_of(response))
            if after is not None:
                after()
            if sum(times) > ROUND_BUDGET_S:
                break
        self.rows[name] = {
            "ms": statistics.median(times) * 1000,
            "cpu": statistics.median(cpu) * 1000,
            "queries": "/".join(map(str, sorted(set(queries)))),
            "bytes": size,
            "rounds": len(times),
        }
        spread = f"{min(times) * 1000:.1f}-{max(times) * 1000:.1f}"
        print(
            f"  {name}: {self.rows[name]['ms']:.1f} ms ({spread}), {len(times)} rounds",
            file=sys.stderr,
        )

    def page(self, name: str, url: str, api: bool = False) -> None:
        self.measure(name, lambda: self.get(url, api))

    # Paging by the product's own links.

    def last_page(self, url: str) -> str | None:
        links = self.html(url)
        last = links.find("last")
        if last:
            return resolve(url, last)
        following = links.find("next")
        if not following:
            return None
        following = resolve(url, following)
        query = dict(parse_qsl(urlsplit(following).query))
        shown = re.search(r"Page\s+[\d,]+\s+of\s+([\d,]+)", self.get(url).content.decode())
        if "page" in query and shown:
            return with_query(following, page=shown.group(1).replace(",", ""))
        return self.walk(following, 30, f"{url} last page")

    def late_page(self, url: str, number: int) -> str | None:
        following = self.html(url).find("next")
        if not following:
            return None
        following = resolve(url, following)
        query = dict(parse_qsl(urlsplit(following).query))
        if "page" in query:
            shown = re.search(r"Page\s+[\d,]+\s+of\s+([\d,]+)", self.get(url).content.decode())
            pages = int(shown.group(1).replace(",", "")) if shown else number
            if pages < number:
                self.notes.append(f"{url} page {number}: there are {pages} pages; the last")
            return with_query(following, page=str(min(number, pages)))
        return self.walk(following, 20, f"{url} page {number}")

    def walk(self, url: str, hops: int, wanted: str) -> str:
        """Follow "next" links (a cursor's pages cannot be jumped to)."""
        for _hop in range(hops):
            following = self.html(url).find("next")
            if not following:
                return url
            url = resolve(url, following)
        self.notes.append(f"{wanted}: {hops + 1} pages on by following 'next', not the last")
        return url

    def filters(self, url: str) -> list[str]:
        """The list's filtered views its page offers: links to itself with a filter in their
        query, and each choice of its GET forms' selects."""
        links = self.html(url)
        found = []
        path = urlsplit(url).path
        for link in links.links:
            target = resolve(url, link["href"])
            parts = urlsplit(target)
            keys = {key for key, _ in parse_qsl(parts.query)}
            if parts.path == path and keys and not keys & PAGING_KEYS:
                found.append(target)
        for action, name, values in links.selects:
            if name and (resolve(url, action or path).split("?")[0] == path):
                found += [f"{path}?{urlencode({name: value})}" for value in values]
        return list(dict.fromkeys(found))


def with_query(url: str, **changes) -> str:
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query.update(changes)
    return urlunsplit(parts._replace(query=urlencode(query)))


def bare_ok(request):
    from django.http import HttpResponse

    return HttpResponse("ok", content_type="text/plain")


def plan_nodes(node: dict):
    yield node
    for child in node.get("Plans", ()):
        yield from plan_nodes(child)


def index_use(call) -> dict:
    """The SELECTs one request issues, explained: the Seq Scans of big tables among them, and
    the indexes they use."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        call()
    selects = [
        query["sql"]
        for query in captured.captured_queries
        if query["sql"].lstrip().upper().startswith(("SELECT", "WITH"))
    ]
    seq_scans, indexes = {}, {}  # (dicts as ordered sets)
    with connection.cursor() as cursor:
        for select in selects:
            cursor.execute(f"EXPLAIN (FORMAT JSON) {select}")
            found = cursor.fetchone()[0]
            found = json.loads(found) if isinstance(found, str) else found
            for node in plan_nodes(found[0]["Plan"]):
                table = node.get("Relation Name")
                if node["Node Type"] == "Seq Scan" and table in LARGE_TABLES:
                    # A parallel scan's estimate is one worker's.
                    shared = " per worker" if node.get("Parallel Aware") else ""
                    seq_scans.setdefault(
                        f"{table} (~{node['Plan Rows']:,} rows out{shared})", select
                    )
                if "Index Name" in node:
                    indexes[f"{node['Index Name']}"] = True
    return {
        "selects": len(selects),
        "seq_scans": list(seq_scans),
        "indexes": sorted(indexes),
        # From the FROM on: what the scan reads, and why.
        "sql": [
            select[select.find(" FROM ") :][:300] for select in dict.fromkeys(seq_scans.values())
        ],
    }


def measure_set(url: str, scale: float, rounds: int) -> int:
    started = time.perf_counter()

    def say(text):
        print(f"[{time.perf_counter() - started:6.1f} s] {text}", file=sys.stderr, flush=True)

    reused, counts = prepared(url, scale, say)
    say("reusing the stored set" if reused else "set made")

    from django.conf import settings
    from django.contrib.auth.models import User
    from django.test import Client
    from django.urls import include, path, reverse

    from review.actions.tokens import create_token
    from review.models import Answer, ApiToken, Case, Decision, Entry, Lease, Plan

    urls = types.ModuleType("bench_scale_urls")
    urls.urlpatterns = [path("bench/ok/", bare_ok), path("", include("review.urls"))]
    sys.modules[urls.__name__] = urls
    settings.ROOT_URLCONF = urls.__name__

    def address(name: str, *args) -> str:
        return reverse(name, args=[PROJECT, *args])

    bench = User.objects.get(username="bench")
    token = "bench-scale-token"
    if not ApiToken.objects.filter(key_sha256=hashlib.sha256(token.encode()).hexdigest()):
        create_token(bench, "bench", key=token)
    client = Client()
    client.force_login(bench)
    client.handler = ServerTime(client.handler)
    run = Requests(client, rounds, token)
    explained = {}

    def let_go():  # the lease a Next took, so the next round (and a reused set) starts bare
        Lease.objects.filter(holder=bench).delete()

    let_go()
    run.page("bare view", "/bench/ok/")
    run.page("dashboard", "/")
    home = run.html("/")
    for name in ("plans", "cases", "answers"):
        list_url = address(name)
        if not any(resolve("/", link["href"]).startswith(list_url) for link in home.links):
            run.notes.append(f"the dashboard has no link to {list_url}")
        run.page(list_url, list_url)
        explained[list_url] = index_use(lambda url=list_url: run.get(url))
        for filtered in run.filters(list_url):
            run.page(filtered, filtered)
        last = run.last_page(list_url)
        if last:
            run.page(f"{list_url} last page", last)
            explained[f"{list_url} last page"] = index_use(lambda url=last: run.get(url))
        # Next: the form the list offers, posted; it answers with the item it hands out.
        next_url = address(f"{name}-next")
        if next_url not in (resolve(list_url, action) for action in run.html(list_url).posts):
            run.notes.append(f"{list_url} offers no Next ({next_url})")
            continue
        run.page(f"{next_url} (GET)", next_url)
        run.measure(
            f"{next_url} (POST, Next)",
            lambda url=next_url: client.post(url),
            status=302,
            before=let_go,
            after=let_go,
        )
        let_go()
        explained[f"Next {name} (POST)"] = index_use(lambda url=next_url: client.post(url))
        let_go()
    answers = address("answers")
    search = f"{answers}?{urlencode({'q': COMMON_WORD})}"
    run.page(f"{answers} search '{COMMON_WORD}'", search)
    late = run.late_page(search, LATE_PAGE)
    if late:
        run.page(f"{answers} search, page {LATE_PAGE}", late)
    late = run.late_page(answers, LATE_PAGE)
    if late:
        run.page(f"{answers} page {LATE_PAGE}", late)

    # The API's reads of the measured project (cases and answers have no list in the API).
    api = f"/api/projects/{PROJECT}/"
    for door in ("plans", "decisions"):
        run.page(f"GET {api}{door}", f"{api}{door}", api=True)
    log = f"{api}decisions"
    explained[f"GET {log}"] = index_use(lambda: run.get(log, api=True))
    # A late page of the log: from a day near its end (the documented `since`), then the
    # cursor link that page gives.
    moments = Decision.objects.filter(project__slug=PROJECT).order_by("at")
    moments = moments.values_list("at", flat=True)
    late_day = moments[int(moments.count() * 0.9)].date().isoformat()
    page = run.get(f"{log}?since={late_day}", api=True).json()
    if page.get("next"):
        cursor = resolve(log, page["next"])
        run.page(f"GET {log} late cursor", cursor, api=True)
        explained[f"GET {log} late cursor"] = index_use(lambda: run.get(cursor, api=True))

    plan = Plan.objects.filter(
        project__slug=PROJECT, status=Plan.Status.OPEN, entries__state="proposed"
    ).order_by("pk")
    plan = plan[plan.count() // 2] if plan.exists() else Plan.objects.first()
    run.page("plan page", address("plan", plan.pk))
    cases = Case.objects.filter(project__slug=PROJECT).order_by("pk")
    proposed = cases.filter(verdict=Case.Verdict.PROPOSED)
    cases = proposed if proposed.exists() else cases
    run.page("case page", address("case", cases[cases.count() // 2].pk))
    answer = Answer.objects.filter(project__slug=PROJECT).order_by("pk")
    run.page("answer page", address("answer", answer[answer.count() // 2].pk))

    proposed = iter(Entry.objects.filter(plan=plan, state=Entry.State.PROPOSED).order_by("pk"))
    chosen = {}

    def next_entry():
        chosen["entry"] = next(proposed)

    def accept():
        entry = chosen["entry"]
        return client.post(
            address("entry-decide", plan.pk, entry.pk, "accept"),
            {"version": entry.version},
            headers={"HX-Request": "true"},
        )

    def undo():  # puts the entry back, so a reused set stays as it was made
        entry = chosen["entry"]
        response = client.post(
            address("entry-decide", plan.pk, entry.pk, "undo"),
            {"version": entry.version + 1},
            headers={"HX-Request": "true"},
        )
        assert response.status_code == 200, ("undo", response.status_code)

    run.measure("accept (htmx)", accept, warm=False, before=next_entry, after=undo)
    run.notes.append(
        f"accept / bare view: {run.rows['accept (htmx)']['ms'] / run.rows['bare view']['ms']:.1f}x"
    )
    result = {"rows": run.rows, "counts": counts, "notes": run.notes, "plans": explained}
    print(json.dumps(result))
    return 0


# --- the import figures (benchmarks/bench_imports.py) ---------------------------------------


def cell(value) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def import_rows(url: str, scale: float) -> int:
    # bench_imports makes (and drops) databases of its own, named after this one.
    sys.path[:0] = [str(ROOT), str(HERE)]
    module = importlib.import_module("bench_imports")
    if not hasattr(module, "import_figures"):
        print("benchmarks/bench_imports.py has no import_figures(database_url, scale)")
        return 0
    rows = module.import_figures(url, scale)
    if isinstance(rows, str):
        print(rows)
        return 0
    for row in rows or ():
        if isinstance(row, dict):
            print("  ".join(f"{key}: {cell(value)}" for key, value in row.items()))
        elif isinstance(row, list | tuple):
            print("  ".join(cell(value) for value in row))
        else:
            print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
