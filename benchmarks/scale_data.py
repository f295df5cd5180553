"""The scale benchmark's data: cases, answers, plans and a decision log at a fraction of the
large set (200,000 cases with 700,000 evidence rows, 200,000 answers, 2,000 plans of 300
entries, 1,000,000 decisions), written in bulk through the product's models.

The set is spread over 20 projects of the same size: "Default", the one the benchmark
measures, holds the set at the scale asked for, as the whole set was before projects, and
team-01 … team-19 each hold as much again (their own documents, plans, cases, answers and log
rows). So the tables behind Default's pages hold twenty times its rows: at `--scale 0.1`, 20,000
cases of Default's among 400,000. The cases and answers go to the projects in turn, the plans
a project's share at a time. The benchmark's user is a member of Default (an editor, a
moderator and a lead there) and a reader of team-01, and of no other project, so a page that
forgets its project shows another's rows, and one that filters without an index reads them.
The reviewers who made the log decide in every project.

Each row is made as the product makes it, only without a query per row: a case line and an
answer line go through the import's own checks (`parse_case`, `parse_answer`), validator and
finalization, and are hashed as the import hashes them; a plan is proposed by the proposer and
stored through the same door the upload form uses, and the other plans over the same document
are that proposal again with another path prefix. The log is made of valid decisions (the
product's actions and snapshots: decide, undo, decide again) on real rows, by several
reviewers, spread over a year; each row's state, version and "decided by" are its latest
decision's. A few plans are decided throughout and adjudicated by the real action.

The texts are real public text: the Debian copyright files and changelogs under
/usr/share/doc (falling back to the proposer corpus in benchmarks/corpus).

Django must be set up (on the bench database) before this module is imported.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone

from grounding.propose import propose_plan
from review.actions.plan_reviews import adjudicate_plan
from review.adapters.answers import parse_answer, prepare_answer
from review.adapters.cases import parse_case, prepare_case
from review.adapters.jsonl import content_sha256
from review.adapters.plans import propose_document
from review.models import (
    Answer,
    AnswerReference,
    Case,
    Decision,
    Entry,
    Evidence,
    Membership,
    Plan,
    Project,
)
from review.models.projects import default_project

DOCS = Path("/usr/share/doc")
CORPUS = Path(__file__).resolve().parent / "corpus" / "proposer" / "text"

FULL = {"cases": 200_000, "answers": 200_000, "plans": 2_000, "decisions": 1_000_000}
PROJECTS = 20
ENTRIES_PER_PLAN = 300
PLANS_PER_DOCUMENT = 10
BATCH = 5_000
# A decided item: one decision, or (a third of them) decide, undo, decide again. With 60%
# of the items decided that is one log row per item on average: 1,000,000 rows over the
# 1,000,000 entries, cases and answers of the full set.
DECIDED_SHARE = 0.6
REDECIDED_SHARE = 1 / 3
ADJUDICATED_SHARE = 0.02

EDITORS = [f"editor{n}" for n in range(1, 5)]
MODERATORS = [f"moderator{n}" for n in range(1, 5)]
TOOLS = [
    "policy_match",
    "toxicity_classifier",
    "link_scanner",
    "account_history",
    "image_hash",
    "ocr",
]
REASONS = ["harassment", "spam", "misinformation", "hate_speech", "self_harm", "scam"]
# Weighted as a tool pipeline's results would be: mostly success.
STATUSES = ["success"] * 16 + ["failure"] * 2 + ["timeout"] + ["skipped"]


@dataclass(frozen=True)
class Sizes:
    cases: int
    answers: int
    plans: int
    decisions: int

    @classmethod
    def at(cls, scale: float) -> Sizes:
        return cls(**{name: max(1, round(count * scale)) for name, count in FULL.items()})


# --- real text ------------------------------------------------------------------------------


def copyright_texts() -> list[tuple[str, str]]:
    """(package, text) of each Debian copyright file, with the lines the proposer would read
    as headings of their own (a `#` line, an underline) left out, so one file is one section."""
    found = []
    for path in sorted(DOCS.glob("*/copyright")):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        lines = [
            line
            for line in text.splitlines()
            if not line.lstrip().startswith("#") and not re.fullmatch(r"\s*(\W)\1{2,}\s*", line)
        ]
        body = "\n".join(lines).strip()
        if len(body) > 200:
            found.append((path.parent.name, body))
    if len(found) < ENTRIES_PER_PLAN:
        for path in sorted(CORPUS.glob("*")):
            body = "\n".join(
                line for line in path.read_text().splitlines() if not line.startswith("#")
            )
            for index in range(0, len(body) - 1500, 1500):
                found.append((f"{path.stem}-{index // 1500}", body[index : index + 1500]))
    return found


def changelog_lines(limit: int = 60_000) -> list[str]:
    """Change descriptions from the Debian changelogs (`  * Fix ...`), one line each."""
    lines: list[str] = []
    for path in sorted(DOCS.glob("*/changelog*.gz")):
        try:
            with gzip.open(path, "rt", encoding="utf-8", errors="replace") as file:
                for line in file:
                    line = line.strip()
                    if line.startswith("* ") and 30 <= len(line) <= 200 and "[" not in line:
                        lines.append(line[2:])
        except (OSError, EOFError):
            continue
        if len(lines) >= limit:
            break
    if len(lines) < 100:
        for path in sorted(CORPUS.glob("*")):
            for sentence in re.split(r"(?<=\.)\s+", path.read_text()):
                sentence = " ".join(sentence.split())
                if 30 <= len(sentence) <= 200 and "[" not in sentence:
                    lines.append(sentence)
    return lines


# --- people ---------------------------------------------------------------------------------


def projects() -> list[Project]:
    """Default first (the measured project), then team-01 … team-19."""
    others = [
        Project(name=f"Team {number:02d}", slug=f"team-{number:02d}")
        for number in range(1, PROJECTS)
    ]
    Project.objects.bulk_create(others)
    return [default_project(), *Project.objects.filter(slug__startswith="team-").order_by("slug")]


def people(projects: list[Project]) -> tuple[User, dict[str, User]]:
    """The benchmark's signed-in user (every deciding role and a lead's in Default, a reader
    of team-01, no member elsewhere) and the reviewers who made the log (in every project)."""
    bench, _ = User.objects.get_or_create(username="bench")
    default, other = projects[0], projects[1]
    memberships = [
        Membership(project=default, user=bench, editor=True, moderator=True, lead=True),
        Membership(project=other, user=bench),
    ]
    reviewers = {}
    for names, role in ((EDITORS, "editor"), (MODERATORS, "moderator")):
        for name in names:
            user, _ = User.objects.get_or_create(username=name)
            memberships += [Membership(project=p, user=user, **{role: True}) for p in projects]
            reviewers[name] = user
    Membership.objects.bulk_create(memberships)
    return bench, reviewers


# --- writing ------------------------------------------------------------------------------


def numbered(model, objects: list) -> list:
    """Give `objects` the next primary keys of `model`'s table, so that rows written by COPY
    (which returns none) can be pointed at."""
    start = (model.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1
    for offset, obj in enumerate(objects):
        obj.pk = start + offset
    return objects


def copy_rows(model, objects) -> int:
    """Write `objects` (numbered) with PostgreSQL's COPY, each column as Django's own INSERT
    would prepare it (`pre_save`, `get_db_prep_save`), so a column the model has gets the
    model's value or default; a column the database computes itself is left to it."""
    fields = [
        field for field in model._meta.concrete_fields if not getattr(field, "generated", False)
    ]
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    count = 0
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for obj in objects:
                copy.write_row(
                    [
                        field.get_db_prep_save(field.pre_save(obj, True), connection)
                        for field in fields
                    ]
                )
                count += 1
        sequence = f"pg_get_serial_sequence('{model._meta.db_table}', '{model._meta.pk.column}')"
        cursor.execute(
            f"SELECT setval({sequence}, (SELECT MAX({model._meta.pk.column}) FROM {table}))"
        )
    return count


# --- the log --------------------------------------------------------------------------------


@dataclass(slots=True)
class Event:
    """One decision to write: a row of the log, before it has an id."""

    at: dt.datetime
    actor: User
    action: str
    project_id: int
    object_type: str
    object_id: str
    before: dict
    after: dict
    note: str = ""
    undoes: Event | None = None
    pk: int = 0


class Log:
    """Draws each item's decisions, sets the item's columns to its latest one, and keeps the
    log rows to write once every item has an id."""

    def __init__(self, rng: random.Random, start: dt.datetime, end: dt.datetime):
        self.rng, self.start, self.end = rng, start, end
        self.pending: list[tuple[object, str, int, list[tuple]]] = []
        self.written: list[Event] = []

    def created_at(self) -> dt.datetime:
        span = (self.end - self.start).total_seconds() * 0.8
        return self.start + dt.timedelta(seconds=self.rng.uniform(0, span))

    def draw(
        self,
        item,
        field: str,
        outcomes: list[tuple[str, str, str]],
        reviewers: list[User],
        *,
        project_id: int,
        decided: bool | None = None,
    ):
        """Maybe decide `item` of `project_id` (outcomes: (action, value, note)), setting its
        columns now; its log rows are made by `events` once it has a primary key."""
        rng = self.rng
        if decided is None:
            decided = rng.random() < DECIDED_SHARE
        if not decided:
            return
        steps = []
        moment = item.created_at + dt.timedelta(seconds=rng.uniform(60, 45 * 86400))
        first = rng.choice(outcomes)
        steps.append(("decide", first, rng.choice(reviewers), moment))
        if rng.random() < REDECIDED_SHARE:
            moment += dt.timedelta(seconds=rng.uniform(60, 2 * 86400))
            steps.append(("undo", None, steps[0][2], moment))
            moment += dt.timedelta(seconds=rng.uniform(60, 2 * 86400))
            steps.append(("decide", rng.choice(outcomes), rng.choice(reviewers), moment))
        latest = steps[-1]
        (_, value, note), actor, moment = latest[1], latest[2], min(latest[3], self.end)
        setattr(item, field, value)
        item.note, item.decided_by, item.decided_at = note, actor, moment
        item.version = 1 + len(steps)
        self.pending.append((item, field, project_id, steps))

    def events(self, object_type: str, undo_action: str) -> Iterator[Event]:
        """The log rows of the items drawn so far (which now have ids), as the actions write
        them: `before` and `after` pictures of the decided field, note, who and when."""
        for item, field, project_id, steps in self.pending:
            picture = {
                field: type(item)._meta.get_field(field).default,
                "note": "",
                "decided_by_id": None,
                "decided_at": None,
            }
            undecided = dict(picture)
            last = None
            for kind, outcome, actor, moment in steps:
                moment = min(moment, self.end)
                if kind == "decide":
                    action, value, note = outcome
                    after = {
                        field: value,
                        "note": note,
                        "decided_by_id": actor.pk,
                        "decided_at": moment.isoformat(),
                    }
                    last = Event(
                        moment,
                        actor,
                        action,
                        project_id,
                        object_type,
                        str(item.pk),
                        picture,
                        after,
                        note,
                    )
                    yield last
                    picture = after
                else:
                    note = f"undoes {last.action} by {last.actor.username}"
                    yield Event(
                        moment,
                        actor,
                        undo_action,
                        project_id,
                        object_type,
                        str(item.pk),
                        picture,
                        undecided,
                        note,
                        undoes=last,
                    )
                    picture = undecided
        self.pending.clear()

    def settle(self, object_type: str, undo_action: str) -> None:
        """Turn the drawn items (written now, so numbered) into log rows, and let the items
        go: at the full size, holding 600,000 entries until the end costs gigabytes."""
        self.written.extend(self.events(object_type, undo_action))


def write_log(events: list[Event]) -> int:
    """Append the rows oldest first, so ids follow time as in a real log."""
    events.sort(key=lambda event: event.at)
    start = (Decision.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1
    for offset, event in enumerate(events):
        event.pk = start + offset
    return copy_rows(
        Decision,
        (
            Decision(
                pk=event.pk,
                project_id=event.project_id,
                actor=event.actor,
                actor_name=event.actor.username,
                action=event.action,
                object_type=event.object_type,
                object_id=event.object_id,
                before=event.before,
                after=event.after,
                note=event.note,
                undoes_id=event.undoes.pk if event.undoes else None,
                at=event.at,
            )
            for event in events
        ),
    )


# --- cases ----------------------------------------------------------------------------------


def case_line(number: int, rng: random.Random, lines: list[str]) -> dict:
    """A cases line as a pipeline would send it; about one in four fails validation in one
    of the validator's ways."""
    evidence = []
    for _ in range(rng.randint(1, 6)):  # 3.5 on average: 700,000 rows for 200,000 cases
        tool = rng.choice(TOOLS)
        status = rng.choice(STATUSES)
        evidence.append(
            {
                "tool": tool,
                "status": status,
                "summary": f"{tool}: {rng.choice(lines)}"[:300] if status == "success" else "",
                "latency_ms": rng.randint(5, 3000),
                "data": {"score": round(rng.random(), 3)} if tool == "toxicity_classifier" else {},
            }
        )
    # A sound rationale cites the evidence that succeeded; the flaws below are the
    # validator's outcomes, about one case in four in all.
    succeeded = [f"ev-{n + 1}" for n, item in enumerate(evidence) if item["status"] == "success"]
    failed = [f"ev-{n + 1}" for n, item in enumerate(evidence) if item["status"] != "success"]
    cited = succeeded or ["ev-1"]
    sentences = [f"{rng.choice(lines).rstrip('.')} [{ev}]." for ev in cited]
    declared: list[str] | None = list(cited)
    flaw = rng.random()
    if flaw < 0.05:
        sentences.append(f"{rng.choice(lines).rstrip('.')} [ev-{len(evidence) + 3}].")
    elif flaw < 0.10:
        sentences.append(f"{rng.choice(lines).rstrip('.')}.")
    elif flaw < 0.14:
        declared = cited[:-1] + ["ev-99"]
    elif flaw < 0.16:
        sentences = []
    elif flaw < 0.21 and failed:
        sentences.append(f"{rng.choice(lines).rstrip('.')} [{failed[0]}].")
        declared = None
    elif flaw < 0.5:
        declared = None
    return {
        "case_id": f"c-{number}",
        "content": {
            "text": " ".join(rng.choice(lines) for _ in range(rng.randint(1, 3))),
            "author": f"u/user{rng.randint(1, 20_000)}",
            "community": f"r/{rng.choice(lines).split()[0].strip(':,.').lower()[:40] or 'general'}",
            "report_reason": rng.choice(REASONS),
        },
        "evidence": evidence,
        "rationale": {
            "text": " ".join(sentences),
            "cited_evidence_ids": declared,
            "recommended_action": rng.choice(["remove", "remove", "warn", "keep"]),
            "model": rng.choice(["moderator-llm-2", "moderator-llm-3"]),
        },
    }


def copy_with_children(batch: list, model, child_model, child_field: str) -> int:
    """The batch's (row, child rows) pairs written by COPY, as the imports' rows_with_children
    writes them by INSERT; how many children."""
    copy_rows(model, numbered(model, [row for row, _ in batch]))
    children = []
    for row, own in batch:
        for child in own:
            setattr(child, child_field, row)
        children.extend(own)
    copy_rows(child_model, numbered(child_model, children))
    return len(children)


def make_cases(
    count: int,  # in each project
    rng: random.Random,
    lines: list[str],
    log: Log,
    moderators: list[User],
    project_ids: list[int],
) -> int:
    outcomes = [
        ("case.uphold", Case.Verdict.UPHELD, ""),
        ("case.uphold", Case.Verdict.UPHELD, ""),
        ("case.overturn", Case.Verdict.OVERTURNED, "the evidence does not show it"),
        ("case.needs_rewrite", Case.Verdict.NEEDS_REWRITE, "cites evidence that failed"),
    ]
    evidence_rows, total = 0, count * len(project_ids)
    for start in range(0, total, BATCH):
        cases = []
        for number in range(start, min(total, start + BATCH)):
            value = case_line(number + 1, rng, lines)
            project_id = project_ids[number % len(project_ids)]
            # The import's own rows (the validator's report with them), dated into the log.
            case, rows = prepare_case(parse_case(value), content_sha256(value), project_id)
            case.created_at = log.created_at()
            log.draw(case, "verdict", outcomes, moderators, project_id=project_id)
            cases.append((case, rows))
        evidence_rows += copy_with_children(cases, Case, Evidence, "case")
        log.settle("case", "case.undo")
    return evidence_rows


# --- answers --------------------------------------------------------------------------------


def answer_line(number: int, rng: random.Random, lines: list[str]) -> dict:
    """An answers line with the citation forms finalization rewrites: grouped, range, escaped,
    out of order and phantom."""
    sources = []
    for _ in range(rng.randint(2, 5)):
        package = rng.choice(lines).split()[0].strip(":,.()").lower()[:40] or "debian"
        sources.append(
            {
                "title": f"{package}: {rng.choice(lines)}"[:200],
                "year": rng.randint(1998, 2025),
                "authors": [f"Maintainer {rng.randint(1, 500)}"],
                "url": f"https://packages.debian.org/{package}",
                "venue": "Debian changelog",
                "doi": None,
                "snippet": rng.choice(lines),
            }
        )
    count = len(sources)
    forms = [
        lambda: f"[{rng.randint(1, count)}]",
        lambda: f"[{rng.randint(1, count)}]",
        lambda: f"[1, {count}]",
        lambda: f"[1-{count}]",
        lambda: "\\[1\\]",
        lambda: f"[{count + 2}]",
    ]
    paragraphs = []
    for _ in range(rng.randint(1, 3)):
        paragraphs.append(
            " ".join(
                f"{rng.choice(lines).rstrip('.')} {rng.choice(forms)()}."
                for _ in range(rng.randint(1, 3))
            )
        )
    return {
        "answer_id": f"a-{number}",
        "question": f"What changed where the changelog says: {rng.choice(lines)}?",
        "text": "\n\n".join(paragraphs),
        "sources": sources,
        "model": rng.choice(["answer-llm-1", "answer-llm-2"]),
    }


def make_answers(
    count: int,  # in each project
    rng: random.Random,
    lines: list[str],
    log: Log,
    editors: list[User],
    project_ids: list[int],
) -> int:
    outcomes = [
        ("answer.publish", Answer.State.PUBLISHED, ""),
        ("answer.publish", Answer.State.PUBLISHED, ""),
        ("answer.withdraw", Answer.State.WITHDRAWN, "cites a source that does not say it"),
    ]
    references, total = 0, count * len(project_ids)
    for start in range(0, total, BATCH):
        answers = []
        for number in range(start, min(total, start + BATCH)):
            value = answer_line(number + 1, rng, lines)
            project_id = project_ids[number % len(project_ids)]
            # The import's own rows (finalization's with them), dated into the log.
            answer, cited = prepare_answer(parse_answer(value), content_sha256(value), project_id)
            answer.created_at = log.created_at()
            log.draw(answer, "state", outcomes, editors, project_id=project_id)
            answers.append((answer, cited))
        references += copy_with_children(answers, Answer, AnswerReference, "answer")
        log.settle("answer", "answer.undo")
    return references


# --- plans ----------------------------------------------------------------------------------


def handbook(rng: random.Random, texts: list[tuple[str, str]]) -> str:
    """A Markdown document of ENTRIES_PER_PLAN sections, each one package's copyright file."""
    chosen = rng.sample(texts, ENTRIES_PER_PLAN)
    return "".join(f"## {package} copyright\n\n{body[:1500]}\n\n" for package, body in chosen)


def plan_prefix(number: int) -> str:
    # One plan in twenty shares the prefix of a plan over another document of its project, so
    # that some paths collide, as they do when two teams propose without a prefix of their own.
    if number % 20 == 19:
        number -= PLANS_PER_DOCUMENT + 1
    return f"handbook-{number:05d}"


def make_plans(
    count: int, rng: random.Random, texts, log: Log, editors: list[User], project_ids: list[int]
) -> tuple[list[Plan], int]:
    """`count` plans in each project; returns the plans to adjudicate once the log is
    written, and the number of entries."""
    to_adjudicate, entries_made = [], 0
    for project_id in project_ids:
        adjudicate, made = project_plans(count, rng, texts, log, editors, project_id)
        to_adjudicate += adjudicate
        entries_made += made
    return to_adjudicate, entries_made


def project_plans(
    count: int, rng: random.Random, texts, log: Log, editors: list[User], project_id: int
) -> tuple[list[Plan], int]:
    """One project's plans over count / PLANS_PER_DOCUMENT documents of its own; returns the
    plans to adjudicate once the log is written, and the number of entries."""
    outcomes = [
        ("entry.accept", Entry.State.ACCEPTED, ""),
        ("entry.accept", Entry.State.ACCEPTED, ""),
        ("entry.accept", Entry.State.ACCEPTED, ""),
        ("entry.reject", Entry.State.REJECTED, "not a section of its own"),
    ]
    to_adjudicate = []
    entries_made = 0
    number = 0
    while number < count:
        text = handbook(rng, texts)
        data = text.encode()
        name = f"handbook-{number // PLANS_PER_DOCUMENT:04d}.md"
        template = propose_document(
            name,
            data,
            path_prefix=plan_prefix(number),
            actor=rng.choice(editors),
            project_id=project_id,
        )
        template_entries = list(template.entries.order_by("position"))
        group = [(template, template_entries)]
        fields = [field for field in Plan._meta.concrete_fields if not field.primary_key]
        entry_fields = [field for field in Entry._meta.concrete_fields if not field.primary_key]
        for offset in range(1, min(PLANS_PER_DOCUMENT, count - number)):
            prefix = plan_prefix(number + offset)
            payload = propose_plan(name, data, path_prefix=prefix)
            plan = Plan(**{field.attname: getattr(template, field.attname) for field in fields})
            plan.original_payload = json.dumps(payload, ensure_ascii=False, indent=2) + "\n"
            plan.options = {**template.options, "path_prefix": prefix}
            plan.save()
            rows = []
            for entry, raw in zip(template_entries, payload["entries"], strict=True):
                row = Entry(
                    **{field.attname: getattr(entry, field.attname) for field in entry_fields}
                )
                row.plan, row.path, row.proposed = plan, raw["path"], raw
                rows.append(row)
            group.append((plan, rows))
        for plan, rows in group:
            Plan.objects.filter(pk=plan.pk).update(created_at=log.created_at())
            plan.created_at = Plan.objects.values_list("created_at", flat=True).get(pk=plan.pk)
            adjudicate = rng.random() < ADJUDICATED_SHARE or (
                count >= 10 and not to_adjudicate and number + len(group) >= count
            )
            for row in rows:
                row.created_at = plan.created_at
                if adjudicate:
                    # Decided throughout: a doubtful anchor is rejected, as it would have to be.
                    doubtful = row.anchor_status in Entry.DOUBTFUL_ANCHORS
                    outcome = [outcomes[3 if doubtful else 0]]
                    log.draw(row, "state", outcome, editors, project_id=project_id, decided=True)
                else:
                    log.draw(row, "state", outcomes, editors, project_id=project_id)
            if adjudicate:
                to_adjudicate.append(plan)
        # The template's entries exist already: their drawn decisions are written as updates.
        _, template_rows = group[0]
        Entry.objects.bulk_update(
            template_rows, ["state", "note", "decided_by", "decided_at", "version"], batch_size=1000
        )
        copy_rows(Entry, numbered(Entry, [row for _, rows in group[1:] for row in rows]))
        log.settle("entry", "entry.undo")
        entries_made += sum(len(rows) for _, rows in group)
        number += len(group)
    return to_adjudicate, entries_made


# --- all of it ------------------------------------------------------------------------------


def _created_at_as_given():
    """An INSERT would stamp every row "now"; the set's rows are spread over a year."""
    for model in (Case, Answer):
        model._meta.get_field("created_at").auto_now_add = False


def generate(scale: float, seed: int = 11, say=print) -> dict:
    """Write the whole set, each project's at `scale`, into the (migrated, empty) database;
    returns the counts."""
    rng = random.Random(seed)
    end = timezone.now() - dt.timedelta(minutes=5)
    log = Log(rng, end - dt.timedelta(days=365), end)
    sizes = Sizes.at(scale)  # each project's
    made = projects()
    project_ids = [project.pk for project in made]
    _, reviewers = people(made)
    editors = [reviewers[name] for name in EDITORS]
    moderators = [reviewers[name] for name in MODERATORS]
    lines = changelog_lines()
    texts = copyright_texts()
    _created_at_as_given()
    counts = {}
    events = log.written  # filled as each batch is written
    with transaction.atomic():
        say(f"  {len(made)} projects, in each:")
        say(f"  {sizes.plans:,} plans of {ENTRIES_PER_PLAN} entries")
        to_adjudicate, counts["entries"] = make_plans(
            sizes.plans, rng, texts, log, editors, project_ids
        )
        say(f"  {sizes.cases:,} cases")
        counts["evidence"] = make_cases(sizes.cases, rng, lines, log, moderators, project_ids)
        say(f"  {sizes.answers:,} answers")
        counts["references"] = make_answers(sizes.answers, rng, lines, log, editors, project_ids)
        say(f"  {len(events):,} decisions")
        counts["decisions"] = write_log(events)
    for plan in to_adjudicate:
        plan.refresh_from_db()
        adjudicate_plan(plan, actor=rng.choice(editors), expected_version=plan.version)
    counts |= {
        "plans": Plan.objects.count(),
        "adjudicated plans": len(to_adjudicate),
        "cases": Case.objects.count(),
        "answers": Answer.objects.count(),
        "projects": Project.objects.count(),
    }
    default = project_ids[0]
    for name, model in (
        ("plans", Plan),
        ("cases", Case),
        ("answers", Answer),
        ("decisions", Decision),
    ):
        counts[f"{name} in Default"] = model.objects.filter(project_id=default).count()
    counts["decisions"] = Decision.objects.count()
    return counts
