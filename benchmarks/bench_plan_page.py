"""The plan page in real Chromium, at about 15, 600 and 5,000 entries over one real document:
the Node.js 18 changelog (CHANGELOG_V18.md, 417 kB of Markdown, shipped by Debian's nodejs
package under /usr/share/doc/nodejs/changelogs/), proposed by headings and, for the larger
plans, a size cap.

    .venv/bin/python benchmarks/bench_plan_page.py [--rounds N]

Set-up: a fresh SQLite file in a temporary folder, migrated, one editor signed in by a session
cookie, and the server as `make serve` runs it, in a subprocess: gunicorn with gunicorn.conf.py
and production settings (whitenoise serving the collected static files), less what needs HTTPS,
since the browser talks plain HTTP on loopback. Chromium is Debian's (/usr/bin/chromium, or
$CHROMIUM_PATH), headless, driven by Playwright.

Per size, the median of the rounds:
- bytes: the page's HTML as sent;
- DOM nodes: elements once the page is ready;
- ready: navigation start to the end of DOMContentLoaded (the page's script has run and chosen
  the current entry);
- key to visible: from the `a` key's keydown to the frame after its row shows "accepted" (the
  request, the server, the swap and the layout it costs);
- of it, answer: the Accept request's start to the end of its answer (loopback and the
  server), so what is left of key to visible is the page's own work.
- settled: key to visible again, pressed 1.5 s after the page loaded, once its own start-up
  requests (presence, live update) are done; the first key competes with them for the
  server, as a key pressed the moment a page appears does.
The 5,000-entry plan is measured in at most 3 rounds (its page takes seconds to load).
Each is printed beside the 15-entry page's figure as a ratio, measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCUMENT = Path("/usr/share/doc/nodejs/changelogs/CHANGELOG_V18.md")
# (label, characters of the document used, size cap, rounds at most): about 15, 600 and 5,000
# entries. A cap of 86 is below what an upload may ask for (REVIEW_MIN_SEGMENT_CHARS), which is
# lifted for the set-up only; it gives 4,948 entries, under REVIEW_MAX_PLAN_ENTRIES.
SIZES = (("~15", 36_000, 0, None), ("~600", None, 797, None), ("~5,000", None, 86, 3))

_WORK = tempfile.mkdtemp(prefix="bench-plan-page-")
DATABASE_URL = f"sqlite:///{Path(_WORK) / 'bench.sqlite3'}"
os.environ["DATABASE_URL"] = DATABASE_URL
os.environ["DJANGO_DEBUG"] = "0"
os.environ["DJANGO_SETTINGS_MODULE"] = "review.settings"
# One key for the set-up here and the server: the signed-in session is checked against it.
os.environ["DJANGO_SECRET_KEY"] = "bench-plan-page-" + os.urandom(16).hex()
# The server's environment: production, as `make serve` has it, over plain HTTP on loopback.
SERVER_ENV = os.environ | {
    "DJANGO_ENV": "production",
    "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
    "DJANGO_SECURE_SSL_REDIRECT": "0",
    "DJANGO_SECURE_COOKIES": "0",
    "DJANGO_STATIC_ROOT": str(Path(_WORK) / "static"),
}
sys.path.insert(0, str(ROOT))

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import override_settings  # noqa: E402
from django.urls import reverse  # noqa: E402

from review.adapters.plans import propose_document  # noqa: E402
from review.models import Membership  # noqa: E402
from review.models.projects import default_project  # noqa: E402

# Requests at once while warming up, more than gunicorn.conf.py's workers on these machines.
WARM_UP_REQUESTS = 12
# How long "settled" waits after the page has loaded before the key goes.
SETTLE_MS = 1500
# Set in the page before the key goes: from the keydown to the frame after the row turns.
KEY_PROBE = """(rowId) => {
  const row = document.getElementById(rowId);
  let pressed = null;
  window.__keyToVisible = null;
  document.addEventListener("keydown", () => { pressed = performance.now(); },
                            { capture: true, once: true });
  const observer = new MutationObserver(() => {
    const now = document.getElementById(rowId);
    if (pressed !== null && now && now.classList.contains("state-accepted")) {
      observer.disconnect();
      requestAnimationFrame(() => { window.__keyToVisible = performance.now() - pressed; });
    }
  });
  observer.observe(row.parentNode, { subtree: true, childList: true, attributes: true });
}"""
# Waits written as functions: the page's Content-Security-Policy forbids the eval that
# Playwright's wait_for_function needs for a predicate.
KEY_SEEN = """() => new Promise((resolve) => {
  const poll = setInterval(() => {
    if (window.__keyToVisible !== null) { clearInterval(poll); resolve(window.__keyToVisible); }
  }, 2);
})"""
# Of key to visible, the part spent waiting for the server: the Accept request's start to the
# end of its answer.
ACCEPT_ANSWER = """() => {
  const posted = performance.getEntriesByType("resource")
    .filter((entry) => entry.name.endsWith("/accept/"));
  const last = posted[posted.length - 1];
  return last ? last.responseEnd - last.startTime : NaN;
}"""
BACK_TO_PROPOSED = """(rowId) => new Promise((resolve) => {
  const poll = setInterval(() => {
    const row = document.getElementById(rowId);
    if (row && row.classList.contains("state-proposed")) { clearInterval(poll); resolve(true); }
  }, 10);
})"""


def chromium() -> str | None:
    candidate = os.environ.get("CHROMIUM_PATH") or "/usr/bin/chromium"
    return candidate if Path(candidate).is_file() else shutil.which("chromium")


def set_up() -> tuple[str, list[tuple[str, str, int, int | None]]]:
    """The signed-in editor's session key, and per size its label, its plan page's address,
    its entries and its rounds at most."""
    call_command("migrate", verbosity=0)
    editor = User.objects.create_user("editor", password="demo")
    # Roles are a project's (a group confers none); the plans below land in Default.
    project = default_project()
    Membership.objects.create(project=project, user=editor, editor=True)
    text = DOCUMENT.read_text(encoding="utf-8")
    plans = []
    for label, chars, cap, most in SIZES:
        body = text[:chars] if chars else text
        with override_settings(REVIEW_MIN_SEGMENT_CHARS=min(cap, 200) if cap else 200):
            plan = propose_document(
                f"CHANGELOG_V18-{label}.md",
                body.encode(),
                max_segment_chars=cap,
                actor=editor,
            )
        url = reverse("plan", args=[plan.project.slug, plan.pk])
        plans.append((label, url, plan.entries.count(), most))
    session = SessionStore()
    session[SESSION_KEY] = str(editor.pk)
    session[BACKEND_SESSION_KEY] = "review.backends.PasswordBackend"
    session[HASH_SESSION_KEY] = editor.get_session_auth_hash()
    session.create()
    return session.session_key, plans


def serve() -> tuple[subprocess.Popen, str]:
    subprocess.run(  # noqa: S603 - our own manage.py
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT,
        env=SERVER_ENV,
        check=True,
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(  # noqa: S603 - gunicorn on our own app
        [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py"],
        cwd=ROOT,
        env=SERVER_ENV | {"HOST": "127.0.0.1", "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(f"{base}/accounts/login/", timeout=2)  # noqa: S310 - ours
            return server, base
        except OSError:
            time.sleep(0.1)
    server.terminate()
    raise RuntimeError("the server did not start")


def warm_up(base: str, session: str, plans: list) -> None:
    """Every worker answers each page a few times before anything is timed: a worker's first
    answers load templates and code, which a served app has long done."""

    def fetch(url: str) -> None:
        request = urllib.request.Request(  # noqa: S310 - our own server
            f"{base}{url}", headers={"Cookie": f"sessionid={session}"}
        )
        # urlopen follows a redirect and raises for a 403: the page itself, or stop.
        with urllib.request.urlopen(request, timeout=120) as answer:  # noqa: S310
            answer.read()
            if answer.geturl() != request.full_url:
                raise SystemExit(f"{url} redirected to {answer.geturl()}, not the page")

    with ThreadPoolExecutor(max_workers=WARM_UP_REQUESTS) as pool:
        for _label, url, _entries, _most in plans:
            list(pool.map(fetch, [url] * WARM_UP_REQUESTS))


def measure_once(browser, base: str, session: str, plan_url: str) -> dict[str, float]:
    context = browser.new_context(base_url=base)
    context.add_cookies([{"name": "sessionid", "value": session, "url": base}])
    page = context.new_page()
    page.set_default_timeout(120_000)
    answer = page.goto(plan_url, wait_until="load")
    # goto follows a redirect: what is timed must be the page itself, for its editor.
    if answer.status != 200 or answer.request.redirected_from is not None:
        first = answer.request.redirected_from or answer.request
        raise SystemExit(f"{first.url} answered {answer.status} at {answer.url}, not the page")
    figures = {
        "bytes": page.evaluate("performance.getEntriesByType('navigation')[0].decodedBodySize")
    }
    figures["nodes"] = page.evaluate("document.getElementsByTagName('*').length")
    figures["ready"] = page.evaluate(
        "performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
    )
    row_id = page.evaluate("document.activeElement.id")
    figures["key"], figures["answer"] = _accept_and_undo(page, row_id)
    # The same once the page's own start-up requests (presence, live update) are done, as
    # when a person reads the entry before pressing a key.
    page.wait_for_timeout(SETTLE_MS)
    figures["settled key"], _ = _accept_and_undo(page, row_id)
    context.close()
    return figures


def _accept_and_undo(page, row_id: str) -> tuple[float, float]:
    """Key to visible and the server's answer for an `a` on the row; then the row put back for
    the next round (the log keeps both rows; it is a fresh database)."""
    page.evaluate(KEY_PROBE, row_id)
    with page.expect_response(_decided("accept")) as accepted:
        page.keyboard.press("a")
    _must_be_200(accepted.value)
    key, answer = page.evaluate(KEY_SEEN), page.evaluate(ACCEPT_ANSWER)
    with page.expect_response(_decided("undo")) as undone:
        page.keyboard.press("u")
    _must_be_200(undone.value)
    page.evaluate(BACK_TO_PROPOSED, row_id)
    return key, answer


def _decided(action: str):
    return lambda response: (
        response.request.method == "POST" and response.url.endswith(f"/{action}/")
    )


def _must_be_200(response) -> None:
    # A refused decision never turns the row, and the wait for it would never end.
    if response.status != 200:
        raise SystemExit(f"{response.url} answered {response.status}, not the row")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    path = chromium()
    if path is None or not DOCUMENT.is_file():
        print("skipped: needs Chromium and Debian's nodejs docs (apt-get install chromium nodejs)")
        return 0
    from playwright.sync_api import sync_playwright

    session, plans = set_up()
    server, base = serve()
    rows = []
    try:
        warm_up(base, session, plans)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=path, headless=True, args=["--no-sandbox", "--disable-gpu"]
            )
            for label, plan_url, entries, most in plans:
                times = min(rounds, most or rounds)
                runs = [measure_once(browser, base, session, plan_url) for _ in range(times)]
                medians = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
                rows.append((label, entries, times, medians))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    print(f"{DOCUMENT.name}, medians of the rounds; ratios to the smallest plan")
    header = (
        f"{'plan':>8} {'entries':>8} {'rounds':>6} {'HTML kB':>9} {'×':>6}"
        f" {'DOM nodes':>10} {'×':>6} {'ready ms':>9} {'×':>6}"
        f" {'key→visible ms':>15} {'×':>6} {'of it, answer ms':>17} {'settled, ms':>12}"
    )
    print(header)
    print("-" * len(header))
    base_row = rows[0][3]
    for label, entries, times, figures in rows:
        print(
            f"{label:>8} {entries:>8} {times:>6} {figures['bytes'] / 1000:>9.0f}"
            f" {figures['bytes'] / base_row['bytes']:>6.1f}"
            f" {figures['nodes']:>10.0f} {figures['nodes'] / base_row['nodes']:>6.1f}"
            f" {figures['ready']:>9.0f} {figures['ready'] / base_row['ready']:>6.1f}"
            f" {figures['key']:>15.0f} {figures['key'] / base_row['key']:>6.1f}"
            f" {figures['answer']:>17.0f} {figures['settled key']:>12.0f}"
        )
    return 0


if __name__ == "__main__":
    assert settings.DATABASES["default"]["NAME"].endswith("bench.sqlite3")
    sys.exit(main())
