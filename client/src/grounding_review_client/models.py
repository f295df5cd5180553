"""What the API answers, as frozen dataclasses with the fields its schema names.

A field the server adds later is ignored, so an older client keeps working against a newer
server; a field this client needs and the answer lacks is an `ApiError` naming it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, TypeVar

from grounding_review_client.errors import ApiError

T = TypeVar("T")


def parse(cls: type[T], data: Any, **nested: Any) -> T:
    """`cls` made from the JSON object `data`: `nested` gives the fields already made (the
    parts that are dataclasses themselves); a field named `at` or ending in `_at` is a
    moment, as every moment of the API is named."""
    if not isinstance(data, dict):
        raise ApiError(None, f"the API answered {type(data).__name__} where {cls.__name__} was due")
    values = {}
    for part in fields(cls):
        if part.name in nested:
            values[part.name] = nested[part.name]
        elif part.name in data:
            value = data[part.name]
            if value is not None and (part.name == "at" or part.name.endswith("_at")):
                value = dt.datetime.fromisoformat(value)
            values[part.name] = value
        elif part.default is MISSING and part.default_factory is MISSING:
            raise ApiError(None, f"the API's {cls.__name__} has no {part.name!r}")
    return cls(**values)


@dataclass(frozen=True)
class Project:
    slug: str
    name: str
    description: str
    roles: list[str]

    @classmethod
    def from_json(cls, data: dict) -> Project:
        return parse(cls, data)


@dataclass(frozen=True)
class Document:
    id: int
    name: str
    media_type: str
    sha256: str
    extractor_id: str
    extractor_version: str
    text_chars: int
    revision: int
    revision_of: int | None
    created_at: dt.datetime

    @classmethod
    def from_json(cls, data: dict) -> Document:
        return parse(cls, data)


@dataclass(frozen=True)
class Anchor:
    quote: str
    prefix: str
    suffix: str


@dataclass(frozen=True)
class Entry:
    id: int
    position: int
    path: str
    title: str
    span: tuple[int, int]
    anchor: Anchor
    rules: list[str]
    anchor_status: str
    anchor_score: float
    anchor_confirmed: bool
    state: str
    decided_by: str | None
    decided_at: dt.datetime | None
    note: str
    version: int

    @classmethod
    def from_json(cls, data: dict) -> Entry:
        return parse(
            cls,
            data,
            span=tuple(data.get("span", (0, 0))),
            anchor=parse(Anchor, data.get("anchor")),
        )


@dataclass(frozen=True)
class PlanSummary:
    """A plan as a list shows it: no entries."""

    id: int
    document_id: int
    document_name: str
    status: str
    source_sha256: str
    extractor_id: str
    extractor_version: str
    proposed_by: str
    options: dict
    version: int
    created_at: dt.datetime
    adjudicated_by: str | None
    adjudicated_at: dt.datetime | None

    @classmethod
    def from_json(cls, data: dict) -> PlanSummary:
        return parse(cls, data)


@dataclass(frozen=True)
class Plan(PlanSummary):
    """A plan with its entries, in order."""

    entries: list[Entry] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: dict) -> Plan:
        entries = data.get("entries")
        if not isinstance(entries, list):
            raise ApiError(None, "the API's Plan has no 'entries'")
        return parse(cls, data, entries=[Entry.from_json(entry) for entry in entries])


@dataclass(frozen=True)
class CaseSummary:
    """A case as its list shows it: no content, rationale or evidence. Under double review
    neither opinion is shown, only `review_stage` (blind review)."""

    id: int
    case_id: str
    verdict: str
    flagged: bool
    validator_reason: str
    recommended_action: str
    created_at: dt.datetime
    review_stage: str
    decided_by: str | None
    decided_at: dt.datetime | None
    note: str
    version: int

    @classmethod
    def from_json(cls, data: dict) -> CaseSummary:
        return parse(cls, data)


@dataclass(frozen=True)
class Evidence:
    position: int
    ev_id: str
    tool: str
    status: str
    summary: str
    latency_ms: int | None
    data: dict


@dataclass(frozen=True)
class Case(CaseSummary):
    """A case as its page shows it: the content, the rationale, the validator's outcome and
    the evidence, in order."""

    content_text: str = ""
    author: str = ""
    community: str = ""
    report_reason: str = ""
    rationale_text: str = ""
    model: str = ""
    reason_label: str = ""
    evidence: list[Evidence] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: dict) -> Case:
        evidence = data.get("evidence")
        if not isinstance(evidence, list):
            raise ApiError(None, "the API's Case has no 'evidence'")
        return parse(cls, data, evidence=[parse(Evidence, item) for item in evidence])


@dataclass(frozen=True)
class AnswerSummary:
    """An answer as its list shows it: no text, sources or references (opinions as for
    `CaseSummary`)."""

    id: int
    answer_id: str
    question: str
    state: str
    changed: bool
    created_at: dt.datetime
    review_stage: str
    decided_by: str | None
    decided_at: dt.datetime | None
    note: str
    version: int

    @classmethod
    def from_json(cls, data: dict) -> AnswerSummary:
        return parse(cls, data)


@dataclass(frozen=True)
class Reference:
    number: int
    original_number: int
    title: str
    authors: list
    year: int | None
    url: str
    venue: str
    doi: str
    snippet: str


@dataclass(frozen=True)
class Answer(AnswerSummary):
    """An answer as its page shows it: the model's text, the finalized body, its sources,
    what finalizing changed, and its references in order."""

    raw_text: str = ""
    body: str = ""
    model: str = ""
    sources: list = field(default_factory=list)
    changes: dict = field(default_factory=dict)
    references: list[Reference] = field(default_factory=list)

    @classmethod
    def from_json(cls, data: dict) -> Answer:
        references = data.get("references")
        if not isinstance(references, list):
            raise ApiError(None, "the API's Answer has no 'references'")
        return parse(cls, data, references=[parse(Reference, ref) for ref in references])


@dataclass(frozen=True)
class GoneEntry:
    entry: int
    path: str
    title: str
    state: str


@dataclass(frozen=True)
class Revision:
    """A document's next revision, and what became of its latest plan."""

    document: Document
    plan: PlanSummary | None
    carried: int
    need_you: int
    gone: list[GoneEntry]

    @classmethod
    def from_json(cls, data: dict) -> Revision:
        plan = data.get("plan")
        return parse(
            cls,
            data,
            document=Document.from_json(data.get("document")),
            plan=None if plan is None else PlanSummary.from_json(plan),
            gone=[parse(GoneEntry, gone) for gone in data.get("gone", [])],
        )


@dataclass(frozen=True)
class RejectedLine:
    line: int
    raw: str
    problem: str


@dataclass(frozen=True)
class ImportResult:
    """What an import of cases or answers did: the lines it created, those already there, and
    those it turned away (only with skip_invalid; otherwise a bad line refuses the whole)."""

    created: int
    unchanged: int
    rejected: list[RejectedLine]

    @classmethod
    def from_json(cls, data: dict) -> ImportResult:
        rejected = [parse(RejectedLine, line) for line in data.get("rejected", [])]
        return parse(cls, data, rejected=rejected)


@dataclass(frozen=True)
class JobStarted:
    """A 202: the work runs in the background; `Client.wait_for_job` follows it."""

    job: int
    status_url: str

    @classmethod
    def from_json(cls, data: dict) -> JobStarted:
        return parse(cls, data)


@dataclass(frozen=True)
class Job:
    id: int
    kind: str
    status: str
    progress: int
    total: int
    unit: str
    result: dict
    error: str
    problems: list[str]
    attempts: int
    created_at: dt.datetime
    started_at: dt.datetime | None
    finished_at: dt.datetime | None

    @property
    def finished(self) -> bool:
        return self.status in ("succeeded", "failed")

    @classmethod
    def from_json(cls, data: dict) -> Job:
        return parse(cls, data)


@dataclass(frozen=True)
class Decision:
    """One row of the decision log. A row of a double review still under way reads
    `action == "withheld"`, with `withheld` saying why and no actor, before, after or note."""

    id: int
    at: dt.datetime
    actor: str
    action: str
    object_type: str
    object_id: str
    before: dict
    after: dict
    note: str
    undoes: int | None
    withheld: str = ""

    @classmethod
    def from_json(cls, data: dict) -> Decision:
        return parse(cls, data)
