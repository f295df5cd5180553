"""A project's decisions and adjudicated plans as a dataset folder: Parquet files (pyarrow)
and a dataset card, the shape the Hugging Face `datasets` library and the Hub read.

    DIR/README.md                    the card: what is in it, its schema, counts, licence
    DIR/decisions/decisions.parquet  the decision log, one row per decision, oldest first
    DIR/entries/entries.parquet      every entry of every adjudicated plan: those kept, with
                                     their text and anchor, and those rejected or merged away

`datasets.load_dataset("parquet", data_dir="DIR/decisions")` reads one table;
`load_dataset("DIR", "entries")` reads one by the card's configs.

What leaves is what the other exports let out, from the same homes: the log as
`iter_decisions` gives it (a double review under way withheld, as `export_decisions` does),
and a plan only as `export_plan` gives it, frozen when someone adjudicated it. A proposal
nobody decided is not in it. The folder is written beside its destination and moved there
whole, so a failed export leaves nothing behind.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from django.utils import timezone

from grounding.segmentation import RULE_PREFIX
from review.adapters.decision_log import iter_decisions
from review.adapters.errors import ImportRefused
from review.adapters.plans import export_plan
from review.models import Plan

# A licence as the Hub and SPDX spell one; it goes into the card's YAML as it stands.
LICENCE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]{0,63}")

# Rows held before a batch goes to the file: the export's memory is a batch, not the log.
BATCH_ROWS = 5_000

DECISIONS = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("at", pa.timestamp("us", tz="UTC"), nullable=False),
        pa.field("actor", pa.string()),
        pa.field("action", pa.string()),
        pa.field("object_type", pa.string()),
        pa.field("object_id", pa.string()),
        # What changed, as the log's JSON text: its keys differ from one action to the next.
        pa.field("before", pa.string()),
        pa.field("after", pa.string()),
        pa.field("note", pa.string()),
        pa.field("undoes", pa.int64()),
        pa.field("withheld", pa.bool_(), nullable=False),
    ]
)

ENTRIES = pa.schema(
    [
        pa.field("plan_id", pa.int64(), nullable=False),
        pa.field("document", pa.string()),
        pa.field("source_sha256", pa.string()),
        pa.field("proposed_by", pa.string()),
        pa.field("extractor", pa.string()),
        pa.field("double_review", pa.bool_(), nullable=False),
        # "kept" (in the adjudicated plan: accepted, edited, or the survivor of a merge),
        # "rejected", or "merged" (folded into the kept entry before it in the plan).
        pa.field("outcome", pa.string(), nullable=False),
        pa.field("position", pa.int32(), nullable=False),
        pa.field("path", pa.string()),
        pa.field("title", pa.string()),
        pa.field("start", pa.int64()),
        pa.field("end", pa.int64()),
        pa.field("text", pa.string()),
        pa.field("quote", pa.string()),
        pa.field("prefix", pa.string()),
        pa.field("suffix", pa.string()),
        pa.field("rules", pa.list_(pa.string())),
        pa.field("decision", pa.string()),
        pa.field("decided_by", pa.string()),
        pa.field("decided_at", pa.string()),
        pa.field("note", pa.string()),
    ]
)

# What the card says of each column, beside its type.
MEANINGS = {
    "decisions": {
        "id": "the decision's number in the log; later decisions have larger ones",
        "at": "when it was made (UTC)",
        "actor": "who made it (empty when withheld)",
        "action": "what was done, e.g. entry.accept, case.verdict ('withheld' when withheld)",
        "object_type": "what it was done to: plan, entry, case, answer…",
        "object_id": "that object's id",
        "before": "the fields it changed, as they were (JSON)",
        "after": "the same fields after it (JSON)",
        "note": "the reviewer's note",
        "undoes": "the decision this one undid, if any",
        "withheld": "true for a decision of a double review still under way: only that it "
        "was made, when and on what, until the item is settled",
    },
    "entries": {
        "plan_id": "the plan, as the app numbers it",
        "document": "the document's name",
        "source_sha256": "SHA-256 of the document's text the spans count in",
        "proposed_by": "the proposer and its version",
        "extractor": "what turned the file into that text, and its version",
        "double_review": "whether two reviewers (and a curator) settled every entry",
        "outcome": "kept (in the adjudicated plan), rejected, or merged into a kept entry",
        "position": "the entry's place among its plan's entries of the same outcome",
        "path": "the segment's path",
        "title": "its title",
        "start": "where it starts in the text (characters)",
        "end": "where it ends (exclusive)",
        "text": "the segment's text (kept entries)",
        "quote": "the text-quote anchor's quote (kept entries)",
        "prefix": "the text before the quote",
        "suffix": "the text after it",
        "rules": "the proposer's rules that proposed it",
        "decision": "accept, edit, merge or reject",
        "decided_by": "who decided it",
        "decided_at": "when (ISO 8601)",
        "note": "their note",
    },
}


@dataclass(frozen=True)
class Exported:
    folder: Path
    decisions: int
    entries: int
    plans: int


class _Table:
    """One Parquet file written a batch at a time."""

    def __init__(self, path: Path, schema: pa.Schema):
        path.parent.mkdir(parents=True)
        self.schema, self.rows, self.count = schema, [], 0
        self.writer = pq.ParquetWriter(path, schema, compression="zstd")

    def add(self, row: dict) -> None:
        self.rows.append(row)
        self.count += 1
        if len(self.rows) >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        if self.rows:
            self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
            self.rows = []

    def close(self) -> None:
        self.flush()
        self.writer.close()


def _decision_row(row: dict) -> dict:
    return {
        **row,
        "at": dt.datetime.fromisoformat(row["at"]),
        "before": json.dumps(row["before"], ensure_ascii=False, sort_keys=True),
        "after": json.dumps(row["after"], ensure_ascii=False, sort_keys=True),
        "withheld": "withheld" in row,
    }


def _merged_into(entry: dict) -> list[dict]:
    """The proposed entries a merge folded into `entry`, each with its own decision."""
    return (entry.get("adjudication") or {}).get("merged", [])


def _entry_rows(plan: Plan, payload: dict, text: str) -> Iterator[dict]:
    common = {
        "plan_id": plan.pk,
        "document": plan.document.name,
        "source_sha256": payload["source_sha256"],
        "proposed_by": payload["proposed_by"],
        "extractor": f"{payload['extractor_id']} {payload['extractor_version']}".strip(),
        "double_review": bool(payload.get("double_review")),
    }
    merged = [record for entry in payload["entries"] for record in _merged_into(entry)]
    groups = (("kept", payload["entries"]), ("rejected", payload["rejected"]), ("merged", merged))
    for outcome, entries in groups:
        for position, entry in enumerate(entries):
            start, end = entry["span"]
            anchor = entry.get("anchor") or {}
            decided = entry.get("adjudication") or {}
            yield {
                **common,
                "outcome": outcome,
                "position": position,
                "path": entry["path"],
                "title": entry["title"],
                "start": start,
                "end": end,
                "text": text[start:end] if outcome == "kept" else None,
                "quote": anchor.get("quote"),
                "prefix": anchor.get("prefix"),
                "suffix": anchor.get("suffix"),
                "rules": [name for name in entry["derived"] if name.startswith(RULE_PREFIX)],
                "decision": decided.get("decision"),
                "decided_by": decided.get("by"),
                "decided_at": decided.get("at"),
                "note": decided.get("note"),
            }


def adjudicated_plans(project) -> Iterable[Plan]:
    """The project's adjudicated plans, oldest first: never a review copy, never one open."""
    return (
        Plan.objects.filter(project=project, status=Plan.Status.ADJUDICATED, review_of=None)
        .select_related("document")
        .order_by("pk")
        .iterator(chunk_size=100)
    )


def export_dataset(folder: str | Path, project, *, licence: str = "") -> Exported:
    """Write `project`'s dataset into `folder`, which must not exist or be empty; refused
    (ImportRefused, naming the folder) otherwise. `licence`: the card's licence, an SPDX or
    Hub identifier (cc-by-4.0…); none given says so on the card."""
    if licence and not LICENCE_ID.fullmatch(licence):
        raise ImportRefused(
            f"licence: {licence!r} is not a licence identifier (letters, digits, '.', '-' and"
            " '+', as cc-by-4.0 or mit)"
        )
    destination = Path(folder)
    if destination.exists() and (not destination.is_dir() or any(destination.iterdir())):
        raise ImportRefused(f"{destination}: already there and not an empty folder")
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".dataset-", dir=destination.parent))
    try:
        decisions = _Table(staging / "decisions" / "decisions.parquet", DECISIONS)
        for row in iter_decisions(project=project):
            decisions.add(_decision_row(row))
        decisions.close()
        entries, plans = _Table(staging / "entries" / "entries.parquet", ENTRIES), 0
        for plan in adjudicated_plans(project):
            payload = json.loads(export_plan(plan))
            for row in _entry_rows(plan, payload, plan.document.text):
                entries.add(row)
            plans += 1
        entries.close()
        counts = {"decisions": decisions.count, "entries": entries.count, "plans": plans}
        (staging / "README.md").write_text(card(project, counts, licence), encoding="utf-8")
        if destination.exists():
            destination.rmdir()
        staging.rename(destination)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return Exported(destination, decisions.count, entries.count, plans)


def _schema_table(name: str, schema: pa.Schema) -> str:
    rows = [f"| `{field.name}` | {field.type} | {MEANINGS[name][field.name]} |" for field in schema]
    return "\n".join(["| column | type | meaning |", "| --- | --- | --- |", *rows])


def card(project, counts: dict[str, int], licence: str) -> str:
    """The dataset card: YAML front matter the Hub and `datasets` read (licence, the two
    configs and their files), then what a reader needs to use it."""
    made = timezone.now().replace(microsecond=0).isoformat()
    licence_line = licence or "other"
    licence_words = (
        f"`{licence}`, as its exporter gave it."
        if licence
        else "none was given when it was exported: ask the project's owners before reuse."
    )
    return f"""---
license: {licence_line}
pretty_name: {json.dumps(f"Grounding Review: {project.name}")}
configs:
- config_name: decisions
  data_files: decisions/*.parquet
- config_name: entries
  data_files: entries/*.parquet
---

# Grounding Review: {project.name}

The decisions people made in the project "{project.name}" (`{project.slug}`) of Grounding
Review, and the segmentation plans they adjudicated: exported {made} by `manage.py
export_dataset`.

- **decisions**: {counts["decisions"]:,} rows, the decision log oldest first. A decision of a
  double review still under way is withheld: the row says only that a decision was made, on
  what and when.
- **entries**: {counts["entries"]:,} rows from {counts["plans"]:,} adjudicated plans, each
  entry a person kept (with its text and anchor) or rejected. Plans still open are not here:
  a proposal nobody decided is not an adjudication.

Licence: {licence_words}

The names in `actor` and `decided_by` are the reviewers' usernames in the app.

## decisions

{_schema_table("decisions", DECISIONS)}

## entries

{_schema_table("entries", ENTRIES)}

## Reading it

```python
from datasets import load_dataset

decisions = load_dataset("parquet", data_dir="decisions", split="train")
entries = load_dataset(".", "entries", split="train")  # by this card's configs
```
"""
