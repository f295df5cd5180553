"""Small builders for plan tests: a document, a proposed payload over it, stored rows.

They make payloads by hand (not with the proposer) so each test states the text it is about.
"""

from __future__ import annotations

import hashlib
import json

from django.db.models import Model

from grounding.adjudication import Decision, adjudicate
from grounding.anchors import make_anchor
from grounding.extract import EXTRACTOR_ID, TEXT_EXTRACTOR_VERSION
from grounding.label_studio import label_studio_tasks
from grounding.segmentation import parse_segmentation_plan
from grounding.web_annotation import annotation_collection
from review.adapters.plans import entries_stored
from review.models import Document, Entry, PathCollision, Plan
from review.models.projects import default_project_id

CODE_TEXT = (
    "# N500 Vegbygging\n\n"
    "Innledning om vegbygging.\n\n"
    "## 3.1 Brannkonsept\n\n"
    "Krav til seksjonering av bygget.\n\n"
    "## 3.2 Romning\n\n"
    "To uavhengige romningsveier fra hver branncelle.\n\n"
    "## 3.3 Baereevne\n\n"
    "Hovedbaeresystemet skal ha R60.\n"
)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sections(text: str = CODE_TEXT) -> list[tuple[str, str, int, int]]:
    """(path, title, start, end) for each "## " heading up to the next one."""
    starts = [index for index in range(len(text)) if text.startswith("## ", index)]
    found = []
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else len(text)
        title = text[start + 3 : text.index("\n", start)]
        slug = "-".join("".join(c if c.isalnum() else " " for c in title.lower()).split())
        found.append((f"n500/{slug}", title, start, end))
    return found


def proposed_payload(text: str = CODE_TEXT, *, data: bytes | None = None, **overrides) -> dict:
    data = text.encode() if data is None else data
    entries = []
    for path, title, start, end in sections(text):
        entries.append(
            {
                "path": path,
                "title": title,
                "span": [start, end],
                "anchor": make_anchor(text, start, end).to_dict(),
                "derived": ["PROPOSED", "rule:heading"],
            }
        )
    payload = {
        "source_sha256": sha256(data),
        "extractor_id": EXTRACTOR_ID,
        "extractor_version": TEXT_EXTRACTOR_VERSION,  # the text is Markdown
        "proposed_by": "propose-segments 0.1.0",
        "adjudicated": False,
        "entries": entries,
    }
    payload.update(overrides)
    return payload


def _all_accepted(text: str):
    """A plan of `text`'s sections, every entry accepted, adjudicated."""
    proposal = parse_segmentation_plan(proposed_payload(text), text)
    decisions = [Decision.accept("ada", "2026-12-01T10:00:00+00:00")] * len(proposal.entries)
    return parse_segmentation_plan(adjudicate(proposal, decisions, text), text)


def annotations_text(text: str = CODE_TEXT) -> str:
    """The W3C Web Annotation collection a plan of `text`'s sections, every entry accepted,
    is exported as."""
    collection = annotation_collection(
        _all_accepted(text),
        collection_id="https://review.example.org/plan",
        document_title="n500.md",
    )
    return json.dumps(collection)


def label_studio_text(text: str = CODE_TEXT) -> str:
    """The Label Studio task a plan of `text`'s sections, every entry accepted, is exported
    as."""
    return json.dumps(label_studio_tasks(_all_accepted(text), text=text, document_title="n500.md"))


def payload_text(payload: dict) -> str:
    return json.dumps(payload, ensure_ascii=False, indent=2)


def stored_entry(
    text: str, *, name: str, digest: str, path: str, title: str, original_payload: str = "{}"
) -> Entry:
    """A document, a plan over it and one entry spanning all of `text`, written as rows
    directly (no extraction, no proposer): for tests of what the rows themselves allow."""
    document = Document.objects.create(
        project_id=default_project_id(),
        name=name,
        media_type="markdown",
        data=text.encode(),
        sha256=digest,
        text=text,
        extractor_id="grounding.extract",
        extractor_version="1",
    )
    plan = Plan.objects.create(
        project_id=default_project_id(),
        document=document,
        source_sha256=digest,
        extractor_id="grounding.extract",
        extractor_version="1",
        proposed_by="propose-segments 0.1.0",
        original_payload=original_payload,
    )
    entry = Entry.objects.create(
        plan=plan,
        position=0,
        path=path,
        title=title,
        span_start=0,
        span_end=len(text),
        quote=text,
        anchor_status="exact",
    )
    entries_stored(plan, {path})
    return entry


def row_counts() -> dict[str, int]:
    """How many rows each review table holds: equal before and after means nothing written."""
    from django.apps import apps

    models: list[type[Model]] = list(apps.get_app_config("review").get_models())
    return {model.__name__: model.objects.count() for model in models}


def update_entries(entries, **changes) -> int:
    """Set `changes` on `entries` directly, for a test's set-up (no decision is logged), and
    keep what the decisions keep beyond the counters (which the database keeps): the
    recorded collisions."""
    rows = list(entries.values_list("pk", "path"))
    changed = Entry.objects.filter(pk__in=[pk for pk, _ in rows]).update(**changes)
    paths = {path for _, path in rows} | ({changes["path"]} if "path" in changes else set())
    PathCollision.objects.refresh(paths)
    return changed
