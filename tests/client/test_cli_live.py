"""`grounding-review`, the installed console script, run as a subprocess against the real server
(`conftest.server`), with the site and the token in its environment as a pipeline's step has
them."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading

import pytest
from grounding_review_client import ApiError, Client

from tests.client.conftest import PROGRAM, RUN_SECONDS, adjudicate, markdown

pytestmark = pytest.mark.trust


def environment(server, user: str = "pipeline", **more: str) -> dict[str, str]:
    return {
        **os.environ,
        "GROUNDING_REVIEW_URL": server.url,
        "GROUNDING_REVIEW_TOKEN": server.key(user),
        **more,
    }


def run(env: dict, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(PROGRAM), *arguments],
        env=env,
        capture_output=True,
        timeout=RUN_SECONDS,
        check=False,
    )


@pytest.fixture
def pipeline(server):
    with Client(server.url, server.key("pipeline")) as client:
        yield client


def test_push_stores_the_file_and_prints_the_document_and_with_propose_its_plan(
    server, tmp_path, pipeline
):
    document = tmp_path / "pushed-by-cli.md"
    document.write_bytes(markdown("Pushed by the command line", sections=2))
    proposed = tmp_path / "proposed-by-cli.md"
    proposed.write_bytes(markdown("Proposed by the command line", sections=2))

    pushed = run(environment(server), "push", str(document))
    both = run(environment(server), "push", str(proposed), "--propose")

    assert pushed.returncode == 0, pushed.stderr
    stored = json.loads(pushed.stdout)
    assert stored["name"] == "pushed-by-cli.md"
    assert [plan.id for plan in pipeline.plans(document_id=stored["id"])] == []
    assert both.returncode == 0, both.stderr
    printed = json.loads(both.stdout)
    assert printed["plan"]["document_id"] == printed["document"]["id"]
    assert printed["plan"]["id"] == pipeline.plan(printed["plan"]["id"]).id
    assert len(printed["plan"]["entries"]) == len(pipeline.plan(printed["plan"]["id"]).entries)


def test_export_prints_the_adjudicated_plan_byte_for_byte_and_names_what_is_undecided(
    server, pipeline
):
    document = pipeline.push_document(markdown("Exported by CLI", sections=2), name="cli.md")
    plan = pipeline.propose(document.id)

    undecided = run(environment(server), "export", str(plan.id))
    with pytest.raises(ApiError) as refused:
        pipeline.export_plan(plan.id)
    adjudicate(server, plan.id)
    exported = run(environment(server), "export", str(plan.id))

    assert undecided.returncode == 1
    problems = [] if refused.value.problems == [refused.value.detail] else refused.value.problems
    assert undecided.stderr.decode().splitlines() == [
        f"grounding-review: {refused.value.detail}",
        *(f"  {problem}" for problem in problems),
    ]
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == pipeline.export_plan(plan.id)


def test_decisions_since_a_cursor_prints_what_follows_it_one_json_line_each(server, pipeline):
    document = pipeline.push_document(markdown("Decided for CLI", sections=3), name="log.md")
    adjudicate(server, pipeline.propose(document.id).id)
    log = list(pipeline.decisions())

    since_cursor = run(environment(server), "decisions", "--since", str(log[0].id))
    since_time = run(environment(server), "decisions", "--since", log[-1].at.isoformat())

    assert since_cursor.returncode == 0, since_cursor.stderr
    lines = since_cursor.stdout.decode().splitlines()
    assert [json.loads(line)["id"] for line in lines] == [decision.id for decision in log[1:]]
    assert since_time.returncode == 0, since_time.stderr
    at_last = [json.loads(line)["id"] for line in since_time.stdout.decode().splitlines()]
    assert at_last == [decision.id for decision in log if decision.at >= log[-1].at]


def test_a_since_that_is_no_time_is_refused_naming_it(server):
    refused = run(environment(server), "decisions", "--since", "last-tuesday")

    assert refused.returncode == 1
    assert "'last-tuesday' is not a date" in refused.stderr.decode()
    assert refused.stdout == b""


def test_a_project_the_key_does_not_act_for_is_refused(server):
    refused = run(environment(server, GROUNDING_REVIEW_PROJECT="elsewhere"), "decisions")

    assert refused.returncode == 1
    assert "there is no project 'elsewhere' this key acts for" in refused.stderr.decode()


def test_watch_prints_new_decisions_as_they_are_made_and_stops_on_ctrl_c(server, pipeline):
    document = pipeline.push_document(markdown("Watched", sections=2), name="watched.md")
    plan = pipeline.propose(document.id)
    last = list(pipeline.decisions())[-1].id
    watch = subprocess.Popen(
        [str(PROGRAM), "watch", "--since", str(last), "--interval", "0.2"],
        env=environment(server),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    printed: queue.Queue[bytes] = queue.Queue()
    threading.Thread(
        target=lambda: [printed.put(line) for line in watch.stdout], daemon=True
    ).start()
    try:
        adjudicate(server, plan.id)
        seen = []
        while not seen or seen[-1]["action"] != "plan.adjudicate":
            seen.append(json.loads(printed.get(timeout=RUN_SECONDS)))
        watch.send_signal(signal.SIGINT)
        watch.wait(timeout=RUN_SECONDS)
    finally:
        if watch.poll() is None:
            watch.kill()

    assert watch.returncode == 0, watch.stderr.read()
    made = [decision for decision in pipeline.decisions(after=last)]
    assert [line["id"] for line in seen] == [decision.id for decision in made]


def test_a_reader_that_stops_reading_ends_the_log_quietly(server, pipeline):
    document = pipeline.push_document(markdown("Read in part", sections=2), name="part.md")
    adjudicate(server, pipeline.propose(document.id).id)
    reading = subprocess.Popen(
        [str(PROGRAM), "decisions"],
        env=environment(server),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )

    # `| head -0`: the reader is gone before the command has printed its first line (it is
    # still starting), so that line meets a closed pipe.
    reading.stdout.close()
    _, complaint = reading.communicate(timeout=RUN_SECONDS)

    assert reading.returncode == 0 and complaint == b""
