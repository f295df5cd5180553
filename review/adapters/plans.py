"""Segmentation plans: proposals in, entry rows, and the adjudicated payload out.

In: `propose_document` runs the proposer on stored bytes; `import_plan` takes a plan made
elsewhere. Both keep the payload text verbatim on the Plan and make one Entry row per
entry, its anchor located against the document's stored text.

Placement. When a plan names the extractor (id and version) that made the stored text,
the text it was proposed on is the stored text, so `grounding` checks every anchor quotes
its span exactly and refuses the plan otherwise. When it names another extractor, the text
may have moved under it: the plan's anchors are located afresh, all in one
`grounding.anchors.relocate` call hinted with the proposed starts (so neighbours tell identical
passages apart), the row's span is where it was found, and an entry found only fuzzily,
ambiguously or not at all must be confirmed or edited by a person before the plan can be
adjudicated.

Out: `adjudicated_payload` is the payload `grounding.adjudication.adjudicate` makes from the
decided rows (`review.actions.plan_reviews.adjudicate_plan` freezes it on the plan, as a decision).
`export_plan` returns that frozen payload and nothing else: an open plan is refused, naming
the entries still undecided (or, when all are decided, saying it awaits adjudication), so
what leaves the app is always what someone signed off.

An edit's record ("was") holds what it changed from the entry as placed in the stored text.
When that placement cannot be a plan at all (an orphan whose old span lies past the end of
the text, edited into a neighbour's old span), every edited entry is taken from its edited
span instead: its record keeps a changed title or path, not the stale span.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from grounding.adjudication import AdjudicationError, adjudicate
from grounding.adjudication import Decision as EntryDecision
from grounding.anchors import Anchor, Location, make_anchor, relocate
from grounding.extract import ExtractError, PageProgress
from grounding.placement import proposed_span_now
from grounding.propose import NothingToPropose, ProposalError, propose_plan
from grounding.segmentation import (
    PROPOSED_MARKER,
    PROVENANCE_KEYS,
    PlanEntry,
    PlanError,
    SegmentationPlan,
    parse_segmentation_plan,
    plan_to_payload,
    shown_number,
)
from review.adapters.documents import (
    document_bytes,
    document_name,
    read_text,
    store_document,
    stored_document,
)
from review.adapters.errors import ImportRefused, PlanNotAdjudicable
from review.adapters.jsonl import _string_problem, bidi_problem, depth_problem, nested_too_deeply
from review.models import Document, Entry, PathCollision, Plan
from review.models.projects import default_project_id

TEXT_FIELD_MAX = {name: Entry._meta.get_field(name).max_length for name in ("path", "title")}
PLAN_FIELD_MAX = {
    name: Plan._meta.get_field(name).max_length
    for name in ("proposed_by", "extractor_id", "extractor_version")
}


class NothingProposed(ImportRefused):
    """The proposer found no structure to split on. Not a failure of the input: nothing
    was stored."""


# --- in ---------------------------------------------------------------------------------


def propose_document(
    name: str,
    data: bytes,
    *,
    max_segment_chars: int = 0,
    path_prefix: str = "",
    actor=None,
    on_page: PageProgress | None = None,
    project_id: int | None = None,
) -> Plan:
    """Store the document and the proposer's plan for it in `project_id` (by default the
    project "Default"), or refuse and store nothing.

    Proposing the same bytes with the same options again returns the plan already made.
    `on_page` hears each page extracted, once.
    """
    _check_options(max_segment_chars, path_prefix)
    name = document_name(name)
    data = document_bytes(name, data)
    project_id = default_project_id() if project_id is None else project_id
    existing = stored_document(data, project_id)
    read = None
    if existing is None:
        read = read_text(name, data, on_page)
        on_page = None
    else:
        name = existing.name
    # The proposer is pure: it runs before the transaction, so a job's progress written as it
    # reads the pages is seen by the job's page meanwhile. The stored name, so the plan is
    # made on the same text the document keeps.
    try:
        payload = propose_plan(
            name,
            data,
            max_segment_chars=max_segment_chars,
            path_prefix=path_prefix,
            on_page=on_page,
        )
    except NothingToPropose as nothing:
        raise NothingProposed(
            f"nothing to propose for {name}: {nothing.reason}; nothing was stored"
        ) from nothing
    except (ProposalError, ExtractError, PlanError) as error:
        raise ImportRefused(f"{name}: {error}") from error
    _check_entry_count(len(payload["entries"]), "the proposal")
    text = json.dumps(payload, ensure_ascii=False, indent=2) + "\n"
    options = {"max_segment_chars": max_segment_chars, "path_prefix": path_prefix}
    with transaction.atomic():
        document = store_document(name, data, read=read, project_id=project_id)
        return _store_plan(document, text, payload, options=options, actor=actor)


def _check_options(max_segment_chars: int, path_prefix: str) -> None:
    """What the proposer would accept but the app will not store or cannot afford."""
    least = settings.REVIEW_MIN_SEGMENT_CHARS
    if isinstance(max_segment_chars, int) and 0 < max_segment_chars < least:
        raise ImportRefused(
            f"max-segment-chars must be 0 (no cap) or at least {least}, not {max_segment_chars}"
        )
    if isinstance(path_prefix, str) and "\x00" in path_prefix:
        raise ImportRefused("path-prefix holds the NUL character (\\u0000)")


def _check_entry_count(count: int, what: str) -> None:
    most = settings.REVIEW_MAX_PLAN_ENTRIES
    if count > most:
        raise ImportRefused(
            f"{what} has {count:,} entries; at most {most:,} are taken in one plan "
            "(REVIEW_MAX_PLAN_ENTRIES): propose with a larger max-segment-chars or split the "
            "document"
        )


def import_plan(document: Document, payload_text: str, actor=None) -> Plan:
    """Store a plan proposed elsewhere for `document`, or refuse (ImportRefused) with the
    reason and store nothing: text that is not a JSON object, a plan for other bytes, or
    one `grounding` refuses. The same payload imported twice gives the same plan back."""
    payload_text, payload = read_json_object(
        payload_text, "the plan", entries=lambda payload: payload.get("entries")
    )
    claimed = payload.get("source_sha256")
    if isinstance(claimed, str) and claimed != document.sha256:
        raise ImportRefused(
            f"this plan is for other bytes: its source_sha256 is {claimed[:12]}… but "
            f"{document.name} has sha256 {document.sha256[:12]}…; import it with the "
            "document it was proposed on"
        )
    with transaction.atomic():
        return _store_plan(document, payload_text, payload, options={}, actor=actor)


def read_json_object(text: str | bytes, what: str, *, entries, top=dict) -> tuple[str, dict]:
    """`text` (UTF-8 bytes or a string) as the text and the JSON object an import reads,
    bounded as every import is: its entries (`entries(payload)`, when a list) counted, its
    depth and its strings checked. ImportRefused naming `what` ("the plan") otherwise.
    `top=list` takes a JSON list instead (Label Studio's export is one)."""
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise ImportRefused(
                f"{what} is not UTF-8 text: byte {error.start} cannot be decoded"
            ) from error
    if not isinstance(text, str):
        raise ImportRefused(f"{what} must be JSON text, not {type(text).__name__}")
    if not text.strip():
        raise ImportRefused(f"{what} is empty: expected a JSON object")
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as error:
        raise ImportRefused(
            f"{what} is not valid JSON: line {error.lineno} column {error.colno}: {error.msg}"
        ) from error
    except RecursionError as error:
        raise ImportRefused(f"{what} is {nested_too_deeply()}") from error
    if not isinstance(payload, top):
        wanted = "a JSON list" if top is list else "a JSON object"
        raise ImportRefused(f"{what} must be {wanted}, not {_json_kind(payload)}")
    if isinstance(listed := entries(payload), list):
        _check_entry_count(len(listed), what)
    too_deep = depth_problem(payload)
    if too_deep:
        raise ImportRefused(f"{what} is {too_deep}")
    unstorable = _string_problem(payload)
    if unstorable:
        raise ImportRefused(f"{what} cannot be stored: {unstorable}")
    return text, payload


def _store_plan(
    document: Document, payload_text: str, payload: dict, *, options: dict, actor
) -> Plan:
    existing = Plan.objects.filter(document=document, original_payload=payload_text).first()
    if existing is not None:
        existing.created = False
        return existing
    plan = _plan_for(document, payload)
    if actor is not None and getattr(actor, "username", ""):
        options = {**options, "submitted_by": actor.username}
    row = Plan.objects.create(
        project_id=document.project_id,  # a plan is of its document's project
        document=document,
        options=options,
        original_payload=payload_text,
        **provenance(plan),
    )
    # The whole plan in one call: neighbours placed beyond doubt tell identical passages apart.
    locations = relocate(
        document.text,
        [entry.anchor for entry in plan.entries],
        [entry.span[0] for entry in plan.entries],
    )
    Entry.objects.bulk_create(
        _entry_row(row, position, entry, raw, location)
        for position, (entry, raw, location) in enumerate(
            zip(plan.entries, payload["entries"], locations, strict=True)
        )
    )
    entries_stored(row, {entry.path for entry in plan.entries})
    row.created = True
    return row


def provenance(plan: SegmentationPlan | Plan) -> dict:
    """Where `plan` (a plan value or a row) comes from, as a row's fields: `PROVENANCE_KEYS`."""
    return {key: getattr(plan, key) for key in PROVENANCE_KEYS}


def _plan_for(document: Document, payload: dict) -> SegmentationPlan:
    """The payload as a plan `document` may take: on its latest revision, for its bytes, not
    adjudicated elsewhere, every value fitting its column; ImportRefused otherwise."""
    latest = document.latest_revision()
    if latest.pk != document.pk:
        # Its plan would be superseded before anyone reviewed it.
        raise ImportRefused(
            f"{document.label} has a newer revision, {latest.label} (document {latest.pk}): "
            "propose or import the plan on that one"
        )
    same_text = (
        payload.get("extractor_id") == document.extractor_id
        and payload.get("extractor_version") == document.extractor_version
    )
    try:
        plan = parse_segmentation_plan(payload, document.text if same_text else None)
    except PlanError as error:
        raise ImportRefused(str(error)) from error
    if plan.adjudicated:
        raise ImportRefused(
            "this plan is already adjudicated; import the proposal (entries marked "
            f"{PROPOSED_MARKER}) and decide it here"
        )
    if plan.source_sha256 != document.sha256:
        raise ImportRefused(
            f"this plan is for other bytes: its source_sha256 does not match {document.name}"
        )
    _check_fits_columns(plan)
    return plan


def entries_stored(plan: Plan, paths: set[str]) -> None:
    """After a plan's entries are stored in bulk (a proposal, an import, a revision carried,
    a review copy), in the same transaction: the plan holds the counters the database counted
    as they were stored, and collisions on its paths are recorded."""
    plan.refresh_from_db(fields=Plan.COUNTER_FIELDS)
    PathCollision.objects.refresh(paths)


def _entry_row(plan: Plan, position: int, entry: PlanEntry, raw: dict, location: Location) -> Entry:
    # Where the anchor was found, if anywhere; an orphan keeps the span it was proposed with.
    start, end = (location.start, location.end) if location.start >= 0 else entry.span
    return Entry(
        plan=plan,
        position=position,
        path=entry.path,
        title=entry.title,
        span_start=start,
        span_end=end,
        quote=entry.anchor.quote,
        prefix=entry.anchor.prefix,
        suffix=entry.anchor.suffix,
        rules=list(entry.rules),
        proposed=raw,
        anchor_status=location.status,
        anchor_score=location.score,
    )


def _check_fits_columns(plan: SegmentationPlan) -> None:
    """What the rows cannot hold, and titles that would display as something else."""
    problems = [
        f"field {name!r} is longer than {limit} characters"
        for name, limit in PLAN_FIELD_MAX.items()
        if len(getattr(plan, name)) > limit
    ]
    for index, entry in enumerate(plan.entries):
        where = f"entry #{shown_number(index)} ({entry.path[:60]!r})"
        problems += [
            f"{where}: field {name!r} is longer than {limit} characters"
            for name, limit in TEXT_FIELD_MAX.items()
            if len(getattr(entry, name)) > limit
        ]
        if problem := bidi_problem(entry.title):
            problems.append(f"{where}: its title {problem}")
    if problems:
        raise ImportRefused(problems)


# --- out --------------------------------------------------------------------------------


def export_plan(plan: Plan) -> str:
    """The adjudicated plan's JSON text, exactly as frozen. Any other plan is refused,
    naming the entries still undecided."""
    plan.refresh_from_db(fields=["status", "adjudicated_payload", "review_of"])
    if plan.is_review_copy:
        raise PlanNotAdjudicable(
            [f"plan {plan.pk} is one editor's review of plan {plan.review_of_id}: export that plan"]
        )
    if plan.status == Plan.Status.ADJUDICATED:
        return plan.adjudicated_payload
    if plan.is_superseded:
        raise PlanNotAdjudicable(
            [
                f"plan {plan.pk} was never adjudicated, so there is nothing to export",
                plan.superseded_reason(),
            ]
        )
    entries = list(plan.entries.order_by("position"))
    blockers = plan.blockers(entries)
    problems = blockers.problems()
    if not problems:
        problems = [
            f"every entry of plan {plan.pk} is decided, but nobody has adjudicated the plan "
            "yet: adjudicate it on its page first"
        ]
    raise PlanNotAdjudicable(
        [f"plan {plan.pk} is not adjudicated, so there is nothing to export", *problems],
        blockers.undecided,
        blockers,
    )


def plan_entries_as_decisions(plan: Plan, entries: Sequence[Entry] | None = None) -> list:
    """One grounding decision per entry row, in position order; None for a PROPOSED row.
    An edit carries only what differs from the entry as placed in the stored text."""
    document = plan.document
    if entries is None:
        entries = list(plan.entries.order_by("position"))
    return [_decision_for(entry, _placed(entry, document.text)) for entry in entries]


def path_collisions(project=None) -> dict[str, list[Document]]:
    """Every path that entries of more than one document of `project` (by default the
    project "Default") use, with its documents, as recorded when entries changed
    (`PathCollision.objects.refresh` holds the rule)."""
    project = default_project_id() if project is None else project
    return {path: documents for path, documents, _ in colliding_paths(project)}


def colliding_paths(
    project, paths: int | None = None, documents: int | None = None
) -> list[tuple[str, list[Document], int]]:
    """The recorded collisions of `project` in path order, bounded for a page: the first
    `paths` paths, each with its first `documents` documents and how many documents it has
    in all (no bounds when None). Two queries, whatever the number of collisions."""
    recorded = PathCollision.objects.filter(project=project)
    if paths is not None:
        first = recorded.order_by("path").values_list("path", flat=True).distinct()[:paths]
        recorded = recorded.filter(path__in=list(first))
    by_path = {"partition_by": F("path")}
    ranked = recorded.annotate(
        rank=Window(RowNumber(), order_by=F("document_id").asc(), **by_path),
        documents=Window(Count("pk"), **by_path),
    )
    if documents is not None:
        ranked = ranked.filter(rank__lte=documents)
    rows = list(
        ranked.order_by("path", "document_id").values_list("path", "document_id", "documents")
    )
    stored = Document.objects.only("name", "revision").in_bulk({pk for _, pk, _ in rows})
    collisions: dict[str, tuple[list[Document], int]] = {}
    for path, document_id, total in rows:
        collisions.setdefault(path, ([], total))[0].append(stored[document_id])
    return [(path, found, total) for path, (found, total) in collisions.items()]


def collision_count(project, most: int) -> int:
    """How many paths of `project` collide, counted up to `most` + 1 (a page says "more
    than" past it)."""
    paths = PathCollision.objects.filter(project=project).order_by("path").values("path")
    return paths.distinct()[: most + 1].count()


def adjudicated_payload(plan: Plan, entries: list[Entry], reviews: dict | None = None) -> dict:
    """The adjudicated plan `grounding` makes from these decided rows (the caller has checked
    `plan.blockers`); PlanNotAdjudicable when they cannot be one. `reviews` (entry id -> its
    two reviewers and curator) makes it a double-reviewed plan."""
    text = plan.document.text
    placed = [_placed(entry, text) for entry in entries]
    proposal = _proposal(plan, placed)
    try:
        parse_segmentation_plan(plan_to_payload(proposal), text)
    except PlanError:
        # The proposal no longer fits this text (an orphan edited into a neighbour's old
        # span, say). Then each edited entry's decision is taken on its edited span: its
        # record keeps any new title or path, but not the stale span it started from.
        placed = [
            _at_current_span(base, entry, text) if entry.state == Entry.State.EDITED else base
            for entry, base in zip(entries, placed, strict=True)
        ]
        proposal = _proposal(plan, placed)
    decisions = [_decision_for(entry, base) for entry, base in zip(entries, placed, strict=True)]
    if reviews is not None:
        decisions = [
            replace(decision, reviewers=reviews[entry.pk][0], curator=reviews[entry.pk][1])
            for entry, decision in zip(entries, decisions, strict=True)
        ]
    try:
        return adjudicate(proposal, decisions, text, double_review=reviews is not None)
    except AdjudicationError as error:
        raise PlanNotAdjudicable(str(error)) from error


def _proposal(plan: Plan, placed: list[PlanEntry]) -> SegmentationPlan:
    return SegmentationPlan(
        source_sha256=plan.document.sha256,
        # The spans are in the stored text, so that is the extraction the plan names.
        extractor_id=plan.document.extractor_id,
        extractor_version=plan.document.extractor_version,
        proposed_by=plan.proposed_by,
        adjudicated=False,
        entries=tuple(placed),
    )


def _at_current_span(base: PlanEntry, entry: Entry, text: str) -> PlanEntry:
    start, end = entry.span_start, entry.span_end
    return PlanEntry(
        path=base.path,
        title=base.title,
        span=(start, end),
        anchor=make_anchor(text, start, end),
        derived=base.derived,
    )


def _placed(entry: Entry, text: str) -> PlanEntry:
    """The entry as proposed, at the place its anchor is found in the stored text: the
    plan the decisions are decisions on."""
    proposed = entry.proposed
    start, end = proposed_span_now(
        text, tuple(proposed["span"]), Anchor.from_dict(proposed["anchor"])
    )
    if not 0 <= start < end <= len(text):
        if entry.state != Entry.State.EDITED:
            raise PlanNotAdjudicable(
                f"entry #{entry.number} ({entry.path!r}): its proposed span {[start, end]} "
                f"is not in the stored text ({len(text)} characters) and its anchor is "
                f"{entry.anchor_status}; edit its span"
            )
        # The proposal has no place in this text: the edited span is the first it has.
        start, end = entry.span_start, entry.span_end
    return PlanEntry(
        path=proposed["path"],
        title=proposed["title"],
        span=(start, end),
        anchor=make_anchor(text, start, end),
        derived=(PROPOSED_MARKER, *entry.rules),
    )


def _decision_for(entry: Entry, base: PlanEntry) -> EntryDecision | None:
    if entry.state == Entry.State.PROPOSED:
        return None
    by = entry.decided_by.username if entry.decided_by_id else "unknown"
    at = entry.decided_at or timezone.now()
    if entry.state == Entry.State.MERGED:
        return EntryDecision.merge(by, at, entry.note)
    if entry.state == Entry.State.REJECTED:
        return EntryDecision.reject(by, at, entry.note)
    span = (entry.span_start, entry.span_end)
    changes = {
        "title": entry.title if entry.title != base.title else None,
        "path": entry.path if entry.path != base.path else None,
        "span": span if span != base.span else None,
    }
    if entry.state == Entry.State.EDITED and any(value is not None for value in changes.values()):
        return EntryDecision.edit(by, at, entry.note, **changes)
    # Accepted, or an edit that ends where the entry already was: nothing changed.
    return EntryDecision.accept(by, at, entry.note)


def _json_kind(value: object) -> str:
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    return {**kinds, type(None): "null"}.get(type(value), "a number")
