"""Revisions: a document's new bytes stored as a document of their own, and a plan's rows
carried onto them (`grounding.revisions.carry_plan` says where each entry now stands).

The carried plan is a plan like any other: its payload is a valid proposal for the new
revision's bytes, every entry marked PROPOSED, and its rows say what was carried. Which rows
keep their decision is `review.actions.revisions`' to write, through `review.decisions`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from grounding.anchors import Anchor, make_anchor
from grounding.extract import ExtractError
from grounding.propose import NothingToPropose, ProposalError, propose_plan
from grounding.revisions import DOUBTFUL, KEPT, NEW, CarriedEntry, carry_plan
from grounding.segmentation import (
    PROPOSED_MARKER,
    PlanEntry,
    PlanError,
    parse_segmentation_plan,
)
from review.adapters.documents import sha256_of, store_document
from review.adapters.errors import ImportRefused
from review.adapters.plans import entries_stored
from review.models import Decision, Document, Entry, PathCollision, Plan

State = Entry.State


def latest_revision(document: Document) -> Document:
    """The newest revision in `document`'s line (the document itself if none follows it)."""
    return document.latest_revision()


def store_revision(previous: Document, name: str, data: bytes) -> Document:
    """The next revision of `previous`, stored with its own bytes, hash and text; refused
    (ImportRefused, nothing stored) when `previous` already has a next revision or these
    bytes are already stored."""
    following = Document.objects.filter(revision_of=previous).first()
    if following is not None:
        raise ImportRefused(
            f"{previous.label} already has a next revision (document {following.pk}, revision "
            f"{following.revision}); add the new revision to the latest one"
        )
    if isinstance(data, bytes | bytearray | memoryview):
        existing = Document.objects.filter(
            project_id=previous.project_id, sha256=sha256_of(bytes(data))
        ).first()
        if existing is not None:
            raise ImportRefused(
                f"these bytes are already stored as document {existing.pk} ({existing.label}): "
                "a revision must change something"
            )
    try:
        # A savepoint: a revision uploaded at the same moment by someone else wins, and this
        # one is refused as if it had come second.
        with transaction.atomic():
            # A revision stays in its document's project.
            revision = store_document(name, data, project_id=previous.project_id)
            revision.revision_of = previous
            revision.revision = previous.revision + 1
            revision.save(update_fields=["revision_of", "revision"])
            # Superseded, the previous revision's paths no longer collide with anyone's.
            PathCollision.objects.refresh(
                Entry.objects.filter(plan__document=previous).values_list("path", flat=True)
            )
    except IntegrityError as error:
        raise ImportRefused(
            f"{previous.label} was given a next revision at the same moment; reload and add "
            "yours to the latest one"
        ) from error
    return revision


def plan_to_carry(document: Document) -> Plan | None:
    """The latest plan of `document`, open, adjudicated or superseded: the one a revision
    carries on (never a review copy of it)."""
    return Plan.objects.latest_of(document)


@dataclass(frozen=True)
class CarriedRow:
    """An entry row of the carried plan, and the decision it keeps (None: it keeps none)."""

    entry: Entry
    kept: Decision | None = None


def carried_plan(
    plan: Plan, revision: Document, *, uploader
) -> tuple[Plan | None, list[CarriedRow]]:
    """A new open plan for `revision` with every entry of `plan` relocated on its text (one
    `relocate` for the whole plan) and the proposer's entries for new text. The rows come
    back with the earlier decision each one may keep; nothing is decided here. No plan when
    nothing is left to carry or propose (the whole text was replaced by text with no
    structure): a plan of no entries is no plan."""
    old_entries = list(plan.entries.select_related("decided_by").order_by("position"))
    carrying = carry_plan(
        plan.document.text,
        revision.text,
        [Anchor(entry.quote, entry.prefix, entry.suffix) for entry in old_entries],
        [(entry.span_start, entry.span_end) for entry in old_entries],
        _proposals(plan, revision),
        [entry.path for entry in old_entries],
    )
    raw_entries, rows = _carried_rows(plan, revision, old_entries, carrying.entries)
    if not rows:
        return None, []
    payload = _carried_payload(plan, revision, raw_entries)
    row = Plan.objects.create(
        project_id=revision.project_id,
        document=revision,
        source_sha256=revision.sha256,
        extractor_id=revision.extractor_id,
        extractor_version=revision.extractor_version,
        proposed_by=plan.proposed_by,
        options=_carried_options(plan, uploader, [old_entries[i] for i in carrying.gone]),
        original_payload=json.dumps(payload, ensure_ascii=False, indent=2) + "\n",
        carried_from=plan,
    )
    for carried in rows:
        carried.entry.plan = row
    Entry.objects.bulk_create([carried.entry for carried in rows])
    entries_stored(row, {carried.entry.path for carried in rows})
    return row, rows


def _carried_rows(
    plan: Plan, revision: Document, old_entries: list[Entry], carried: list[CarriedEntry]
) -> tuple[list[dict], list[CarriedRow]]:
    """The carried plan's payload entries and rows, in its order."""
    latest = _latest_decisions(old_entries)
    paths = {old_entries[item.source].path for item in carried if item.source is not None}
    raw_entries, rows = [], []
    for position, item in enumerate(carried):
        old = old_entries[item.source] if item.source is not None else None
        raw = _raw_entry(item, old, revision.text, paths)
        raw_entries.append(raw)
        rows.append(_row(position, item, old, raw, latest, rows, plan))
    return raw_entries, rows


def _carried_payload(plan: Plan, revision: Document, raw_entries: list[dict]) -> dict:
    """The carried plan as a proposal for `revision`'s bytes, checked as any plan is."""
    payload = {
        "source_sha256": revision.sha256,
        "extractor_id": revision.extractor_id,
        "extractor_version": revision.extractor_version,
        "proposed_by": plan.proposed_by,
        "adjudicated": False,
        "entries": raw_entries,
    }
    try:
        parse_segmentation_plan(payload, revision.text)
    except PlanError as error:
        raise ImportRefused(
            f"the carried plan is not a plan for {revision.label}: {error}"
        ) from error
    return payload


def _carried_options(plan: Plan, uploader, gone: list[Entry]) -> dict:
    """The earlier plan's proposer options, who carried it, and the entries left behind."""
    options = {
        key: plan.options[key]
        for key in ("max_segment_chars", "path_prefix")
        if key in plan.options
    }
    gone_rows = [
        {"entry": entry.pk, "path": entry.path, "title": entry.title, "state": entry.state}
        for entry in gone
    ]
    return options | {"carried_by": getattr(uploader, "username", ""), "gone": gone_rows}


def _proposals(plan: Plan, revision: Document) -> list[PlanEntry]:
    """The proposer's entries for the new bytes, with the options the old plan was proposed
    with; none when it finds nothing to propose there."""
    try:
        payload = propose_plan(
            revision.name,
            bytes(revision.data),
            max_segment_chars=int(plan.options.get("max_segment_chars") or 0),
            path_prefix=str(plan.options.get("path_prefix") or ""),
        )
    except (NothingToPropose, ProposalError, ExtractError):
        return []
    return list(parse_segmentation_plan(payload, revision.text).entries)


def _latest_decisions(entries: list[Entry]) -> dict[str, Decision]:
    """Each entry's latest decision (the one that gave it its state), in one query."""
    rows = Decision.objects.filter(
        object_type="entry", object_id__in=[str(entry.pk) for entry in entries]
    ).order_by("at", "pk")
    return {row.object_id: row for row in rows}


def _raw_entry(item: CarriedEntry, old: Entry | None, text: str, paths: set[str]) -> dict:
    if old is None:
        entry = item.entry
        path = _free_path(entry.path, paths)
        paths.add(path)
        return {**entry.to_dict(), "path": path}
    start, end = item.span
    return {
        "path": old.path,
        "title": old.title,
        "span": [start, end],
        "anchor": make_anchor(text, start, end).to_dict(),
        "derived": [PROPOSED_MARKER, *(old.rules or [])],
    }


def _free_path(path: str, taken: set[str]) -> str:
    """`path`, or `path-2`, `path-3`…: the first no other entry of the plan has."""
    candidate, number = path, 1
    while candidate in taken:
        number += 1
        candidate = f"{path}-{number}"
    return candidate


def _row(position, item, old, raw, latest, rows, plan) -> CarriedRow:
    anchor = raw["anchor"]
    entry = Entry(
        position=position,
        path=raw["path"],
        title=raw["title"],
        span_start=item.span[0],
        span_end=item.span[1],
        quote=anchor["quote"],
        prefix=anchor["prefix"],
        suffix=anchor["suffix"],
        rules=[name for name in raw["derived"] if name != PROPOSED_MARKER],
        proposed=raw,
        anchor_status=item.status,
        anchor_score=item.score,
    )
    if old is None:
        entry.carried = {"fate": NEW}
        return CarriedRow(entry)
    earlier = latest.get(str(old.pk))
    entry.carried = {
        "fate": item.fate,
        "plan": plan.pk,
        "revision": plan.document.revision,
        "entry": old.pk,
        "number": old.number,
        "state": old.state,
        "title": old.title,
        "path": old.path,
        "by": old.decided_by.username if old.decided_by_id else "",
        "note": old.note,
        "decision": earlier.pk if earlier else None,
    }
    if item.fate == DOUBTFUL:
        # What the anchor quoted, so the page can show it against the text found there.
        entry.quote, entry.prefix, entry.suffix = old.quote, old.prefix, old.suffix
        return CarriedRow(entry)
    if old.state == State.PROPOSED or not _keeps(item, old, rows):
        if old.state != State.PROPOSED:
            entry.carried["fate"] = DOUBTFUL
        return CarriedRow(entry)
    entry.state = old.state
    entry.decided_by_id, entry.decided_at, entry.note = old.decided_by_id, old.decided_at, old.note
    return CarriedRow(entry, kept=earlier)


def _keeps(item: CarriedEntry, old: Entry, rows: list[CarriedRow]) -> bool:
    """A decision placed beyond doubt stands, except a merge whose neighbour changed: it
    meant joining the entry that stood before it."""
    if item.fate != KEPT:
        return False
    if old.state != State.MERGED:
        return True
    previous = rows[-1].entry if rows else None
    return item.follows_its_neighbour and previous is not None and previous.state != State.REJECTED
