"""The client's server (`tests.builders.served`): gunicorn with the task worker beside it, on a
database of its own with no demo data, so that what a test finds there is what the tests put.

Its inline limits are low, so that a small body already runs as a job (202): a document over
JOB_BYTES bytes is proposed in the background, an import over JOB_LINES lines too.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.builders.served import Server, served

JOB_BYTES, JOB_LINES = 4000, 5
# The console script `make install` puts beside the interpreter, run as a pipeline runs it.
PROGRAM = Path(sys.executable).with_name("grounding-review")
RUN_SECONDS = 120
PEOPLE = [
    ("pipeline", "", True, "default"),
    ("editor-0", "Editors", False, "default"),
    ("reader-0", "Readers", False, "default"),
]

# Run inside `manage.py shell`: a reviewer's work, which the API does not do (people decide,
# on the pages): accept every entry of a plan, then adjudicate it.
ADJUDICATE = """
from django.contrib.auth.models import User
from review.actions.entries import accept_entry
from review.actions.plans import do_adjudicate_plan
from review.models import Plan
editor = User.objects.get(username={editor!r})
plan = Plan.objects.get(pk={plan})
for entry in plan.entries.order_by("position"):
    accept_entry(entry, actor=editor, expected_version=entry.version)
plan.refresh_from_db()
do_adjudicate_plan(plan, actor=editor, expected_version=plan.version)
"""


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    settings = {
        "REVIEW_JOB_INLINE_MAX_BYTES": str(JOB_BYTES),
        "REVIEW_JOB_INLINE_MAX_LINES": str(JOB_LINES),
    }
    tmp = tmp_path_factory.mktemp("client")
    with served(tmp, PEOPLE, demo=False, worker=True, settings=settings) as running:
        yield running


def adjudicate(server: Server, plan_id: int, editor: str = "editor-0") -> None:
    """Accept every entry of the plan as `editor` and adjudicate it, as a reviewer would."""
    server.manage("shell", "--no-imports", stdin=ADJUDICATE.format(editor=editor, plan=plan_id))


def markdown(title: str, sections: int, words: int = 12) -> bytes:
    """A Markdown document of `sections` headed sections, each of `words` words, named after
    `title` so that no two tests push the same bytes."""
    body = [f"# {title}\n"]
    for number in range(1, sections + 1):
        text = " ".join(f"{title.lower().replace(' ', '-')}-{number}-{n}" for n in range(words))
        body.append(f"## Section {number}\n\n{text}.\n")
    return "\n".join(body).encode()
