"""`grounding-review`: the client from a shell or a pipeline's step.

    grounding-review push FILE [--propose]        store a document (and propose its plan)
    grounding-review export PLAN [--output FILE]  the adjudicated plan's JSON
    grounding-review decisions [--since WHEN]     the decision log, one JSON object a line
    grounding-review watch [--since WHEN]         new decisions as they are made, until Ctrl-C

The site and the token come from GROUNDING_REVIEW_URL and GROUNDING_REVIEW_TOKEN (never from
the command line, where other users of the machine could read the token), the project from
--project or GROUNDING_REVIEW_PROJECT ("default" when neither says). WHEN is a decision's id (a
cursor: what follows it) or a date or ISO-8601 date and time (from then on, inclusive).

Exit status: 0 done (also when the reader of stdout stops reading, and for a watch ended by
Ctrl-C); 1 the API refused, a job failed or the server could not be reached (the reason, and
each problem, on stderr); 2 a command line or an environment that is not usable; 130 any other
command ended by Ctrl-C.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from grounding_review_client.client import Client
from grounding_review_client.errors import ApiError
from grounding_review_client.models import Decision

PROGRAM = "grounding-review"
URL_VARIABLE, TOKEN_VARIABLE, PROJECT_VARIABLE = (
    "GROUNDING_REVIEW_URL",
    "GROUNDING_REVIEW_TOKEN",
    "GROUNDING_REVIEW_PROJECT",
)
REFUSED, UNUSABLE = 1, 2
# Ctrl-C, as shells report a command SIGINT ended (`watch` alone ends with 0: it is how a
# watch is stopped).
INTERRUPTED = 130
# How often `watch` asks, in seconds: often enough to feel live, and bounded both ways so
# that a typo neither hammers the server nor waits for a day.
WATCH_INTERVAL, WATCH_INTERVAL_MIN, WATCH_INTERVAL_MAX = 5.0, 0.1, 3600.0


class Unusable(Exception):
    """A command line or environment the command cannot work with; the message says why."""


def main(argv: Sequence[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        with _client(arguments.project) as client:
            return arguments.run(client, arguments)
    except Unusable as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return UNUSABLE
    except ApiError as error:
        print(f"{PROGRAM}: {error.detail}", file=sys.stderr)
        if error.problems != [error.detail]:
            for problem in error.problems:
                print(f"  {problem}", file=sys.stderr)
        return REFUSED
    except BrokenPipeError:
        # The reader stopped reading (`... | head`): what it wanted it has; say nothing more,
        # and keep Python from complaining about the closed stdout as it exits.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return INTERRUPTED


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--project",
        default=os.environ.get(PROJECT_VARIABLE) or "default",
        help=f"the project's slug (default: ${PROJECT_VARIABLE}, else 'default')",
    )
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Push proposals to Grounding Review and pull its plans and decisions. "
        f"The site and the token come from ${URL_VARIABLE} and ${TOKEN_VARIABLE}.",
    )
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    push = commands.add_parser("push", parents=[common], help="store a document")
    push.add_argument("file", type=Path, help="a Markdown, text or PDF file")
    push.add_argument(
        "--propose", action="store_true", help="also propose its plan (waiting for the job)"
    )
    push.set_defaults(run=_push)

    export = commands.add_parser("export", parents=[common], help="an adjudicated plan's JSON")
    export.add_argument("plan", type=int, help="the plan's id")
    export.add_argument("--output", type=Path, help="write it here rather than to stdout")
    export.set_defaults(run=_export)

    for name, run, what in (
        ("decisions", _decisions, "the decision log, one JSON object a line"),
        ("watch", _watch, "new decisions as they are made, one JSON object a line, until Ctrl-C"),
    ):
        command = commands.add_parser(name, parents=[common], help=what)
        command.add_argument(
            "--since",
            metavar="CURSOR_OR_TIME",
            help="a decision's id (what follows it), or a date or ISO-8601 date and time",
        )
        command.set_defaults(run=run)
    commands.choices["watch"].add_argument(
        "--interval",
        type=float,
        default=WATCH_INTERVAL,
        help=f"seconds between polls (default {WATCH_INTERVAL:g})",
    )
    return parser


def _client(project: str) -> Client:
    url, token = os.environ.get(URL_VARIABLE, ""), os.environ.get(TOKEN_VARIABLE, "")
    if not url:
        raise Unusable(f"{URL_VARIABLE} is not set: the site's address, e.g. http://127.0.0.1:8000")
    if not token:
        raise Unusable(
            f"{TOKEN_VARIABLE} is not set: an API key, from the 'Your API tokens' page or "
            "manage.py create_api_token"
        )
    if not project:
        raise Unusable(f"the project is empty: give --project SLUG or set {PROJECT_VARIABLE}")
    try:
        return Client(url, token, project, on_retry=_say_retrying)
    except ApiError as error:
        # With a token and a project given, what the client refuses is the URL.
        raise Unusable(f"{URL_VARIABLE}: {error.detail}") from error


def _push(client: Client, arguments: argparse.Namespace) -> int:
    if not arguments.file.is_file():
        raise Unusable(f"{arguments.file}: no such file")
    document = client.push_document(arguments.file)
    if not arguments.propose:
        _print(document)
        return 0
    _print({"document": document, "plan": client.propose(document.id, wait=True)})
    return 0


def _export(client: Client, arguments: argparse.Namespace) -> int:
    exported = client.export_plan(arguments.plan)
    if arguments.output is None:
        sys.stdout.buffer.write(exported)
    else:
        try:
            arguments.output.write_bytes(exported)
        except OSError as error:
            raise Unusable(f"cannot write {arguments.output}: {error.strerror}") from error
    return 0


def _decisions(client: Client, arguments: argparse.Namespace) -> int:
    for decision in client.decisions(**_since(arguments.since)):
        _print(decision)
    return 0


def _watch(client: Client, arguments: argparse.Namespace) -> int:
    if not WATCH_INTERVAL_MIN <= arguments.interval <= WATCH_INTERVAL_MAX:
        raise Unusable(
            f"--interval must be {WATCH_INTERVAL_MIN:g} to {WATCH_INTERVAL_MAX:g} seconds, "
            f"not {arguments.interval:g}"
        )
    # Without --since, only what is decided from now on (by this machine's clock).
    since = _since(arguments.since) if arguments.since else {"since": _now()}
    try:
        for decision in _new_decisions(client, since, arguments.interval):
            _print(decision)
    except KeyboardInterrupt:
        # Ctrl-C is how a watch ends.
        return 0
    return 0


def _new_decisions(client: Client, since: dict, interval: float) -> Iterator[Decision]:
    """Each decision once, as the polls find them: from `since`, then after the last seen."""
    while True:
        try:
            for decision in client.decisions(**since):
                yield decision
                since = {"after": decision.id}
        except ApiError as error:
            # A server away for longer than the client's retries is waited for; a refusal
            # (a revoked key, a project gone) ends the watch.
            if error.status is not None and error.status < 500:
                raise
            print(f"{PROGRAM}: {error.detail}; asking again in {interval:g} s", file=sys.stderr)
        time.sleep(interval)


def _since(value: str | None) -> dict:
    """--since as the API's parameters: an id is a cursor (`after`), anything else a moment
    (`since`), which the server reads and refuses naming the value if it is none."""
    if value is None:
        return {}
    value = value.strip()
    if value.isdigit():
        return {"after": int(value)}
    if not value:
        raise Unusable("--since is empty: give a decision's id, a date or a date and time")
    return {"since": value}


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()


def _print(value: object) -> None:
    print(json.dumps(_plain(value), ensure_ascii=False), flush=True)


def _plain(value: object) -> object:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: _plain(part) for name, part in dataclasses.asdict(value).items()}
    if isinstance(value, dict):
        return {name: _plain(part) for name, part in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(part) for part in value]
    if isinstance(value, dt.datetime):
        return value.isoformat()
    return value


def _say_retrying(reason: str, delay: float) -> None:
    print(f"{PROGRAM}: {reason}; trying again in {delay:.1f} s", file=sys.stderr)
