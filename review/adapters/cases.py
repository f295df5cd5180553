"""Moderation cases in: a JSON-lines file of flagged content, the evidence the
model gathered, and its rationale. The rationale is checked by
`grounding.evidence` once, at import, and the report is stored with the case.

A line (see docs/formats.md):
    {"case_id": "c-1001",
     "content": {"text": "...", "author": "u/name", "community": "r/name",
                 "report_reason": "harassment"},
     "evidence": [{"tool": "policy_match", "status": "success",
                   "summary": "Rule 2 matched", "latency_ms": 41, "data": {}}],
     "rationale": {"text": "... [ev-1] ...", "cited_evidence_ids": ["ev-1"],
                   "recommended_action": "remove", "model": "name"}}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from grounding.evidence import (
    EVIDENCE_STATUSES,
    EvidenceAccumulator,
    RationaleReport,
    ToolResult,
    assess_rationale,
)
from review.adapters.jsonl import (
    MISSING,
    Checker,
    ImportResult,
    import_lines,
    rows_with_children,
)
from review.models import Case, Evidence

# Column widths in review.models; PostgreSQL enforces them and SQLite does not,
# so they are checked here to refuse the same lines on both.
MAX_ID = Case._meta.get_field("case_id").max_length
MAX_LABEL = Case._meta.get_field("author").max_length
MAX_ACTION = Case._meta.get_field("recommended_action").max_length
MAX_TOOL = Evidence._meta.get_field("tool").max_length
MAX_LATENCY_MS = 2_147_483_647


@dataclass(frozen=True)
class CaseRecord:
    case_id: str
    content: dict[str, str]
    evidence: tuple[ToolResult, ...]
    rationale_text: str
    declared_ids: tuple[str, ...] | None
    recommended_action: str
    model: str


def import_cases(
    lines: Iterable[str | bytes] | str | bytes,
    *,
    skip_invalid=False,
    on_line=None,
    max_lines=None,
    project_id: int | None = None,
) -> ImportResult:
    """Import a cases file: all of it, or (with skip_invalid) its good lines.

    Raises ImportRefused listing every bad line. The same case_id with the same
    content is left unchanged; with other content it is a bad line.
    """
    return import_lines(
        lines,
        parse=parse_case,
        identify=lambda record: record.case_id,
        model=Case,
        prepare=prepare_case,
        write=rows_with_children(Evidence, "case"),
        skip_invalid=skip_invalid,
        kind="case_id",
        on_line=on_line,
        max_lines=max_lines,
        project_id=project_id,
    )


def report_for(case: Case) -> RationaleReport:
    """The validator's report on the case's rationale, as computed at import."""
    return RationaleReport.from_dict(case.report)


def parse_case(value: Any) -> CaseRecord:
    """Check one line's JSON value strictly; raise LineProblems naming each fault."""
    check = Checker()
    if not check.object(value, "", required=("case_id", "content", "evidence", "rationale")):
        check.done()
    case_id = None
    if "case_id" in value:
        case_id = check.string(value["case_id"], "case_id", max_length=MAX_ID, identifier=True)
    content = _content(check, value.get("content", MISSING))
    evidence = _evidence(check, value.get("evidence", MISSING))
    rationale = _rationale(check, value.get("rationale", MISSING))
    check.done()
    return CaseRecord(case_id=case_id, content=content, evidence=evidence, **rationale)


def _content(check: Checker, value: Any) -> dict[str, str]:
    content = {"text": "", "author": "", "community": "", "report_reason": ""}
    if value is MISSING or not check.object(
        value, "content", required=("text",), optional=("author", "community", "report_reason")
    ):
        return content
    if "text" in value:
        content["text"] = check.string(value["text"], "content.text", non_empty=True)
    for key in ("author", "community", "report_reason"):
        if key in value:
            content[key] = check.string(value[key], f"content.{key}", max_length=MAX_LABEL)
    return content


def _evidence(check: Checker, value: Any) -> tuple[ToolResult, ...]:
    items = None if value is MISSING else check.list(value, "evidence")
    results = []
    for index, item in enumerate(items or ()):
        result = _evidence_item(check, item, index)
        if result is not None:
            results.append(result)
    return tuple(results)


def _evidence_item(check: Checker, item: Any, index: int) -> ToolResult | None:
    path = f"evidence[{index}]"
    required = ("tool", "status", "summary", "latency_ms")
    if not check.object(item, path, required=required, optional=("id", "data")):
        return None
    expected_id = f"ev-{index + 1}"
    if "id" in item and item["id"] != expected_id:
        # Ids are positional; another one means the list was reordered or cut.
        check.fail(
            f"{path}.id", f"{item['id']!r} should be {expected_id!r} (ids follow list order)"
        )
    if any(key not in item for key in required):
        return None
    tool = check.string(item["tool"], f"{path}.tool", max_length=MAX_TOOL, non_empty=True)
    status = check.choice(item["status"], f"{path}.status", EVIDENCE_STATUSES)
    summary = check.string(item["summary"], f"{path}.summary")
    latency = check.integer(
        item["latency_ms"], f"{path}.latency_ms", minimum=0, maximum=MAX_LATENCY_MS
    )
    data = item.get("data", {})
    if not isinstance(data, dict):
        check.fail(f"{path}.data", "must be an object")
        return None
    if None in (tool, status, summary, latency):
        return None
    return ToolResult(tool, status, summary, latency, data)


def _rationale(check: Checker, value: Any) -> dict[str, Any]:
    rationale = {
        "rationale_text": "",
        "declared_ids": None,
        "recommended_action": "",
        "model": "",
    }
    if value is MISSING or not check.object(
        value,
        "rationale",
        required=("text",),
        optional=("cited_evidence_ids", "recommended_action", "model"),
    ):
        return rationale
    # An empty rationale is importable: the validator reports it as empty_rationale.
    if "text" in value:
        rationale["rationale_text"] = check.string(value["text"], "rationale.text")
    # Absent or null: the model declared nothing, and the validator skips that check.
    declared = value.get("cited_evidence_ids")
    if declared is not None and check.list(declared, "rationale.cited_evidence_ids") is not None:
        for index, evidence_id in enumerate(declared):
            check.string(evidence_id, f"rationale.cited_evidence_ids[{index}]", identifier=True)
        rationale["declared_ids"] = tuple(declared)
    for key, limit in (("recommended_action", MAX_ACTION), ("model", MAX_LABEL)):
        if key in value:
            rationale[key] = check.string(value[key], f"rationale.{key}", max_length=limit)
    return rationale


def prepare_case(record: CaseRecord, sha256: str, project_id: int) -> tuple[Case, list[Evidence]]:
    """The unsaved rows of a new case: the validator's report is computed here, once."""
    accumulator = EvidenceAccumulator(record.evidence)
    report = assess_rationale(record.rationale_text, accumulator, record.declared_ids)
    case = Case(
        project_id=project_id,
        case_id=record.case_id,
        content_text=record.content["text"],
        author=record.content["author"],
        community=record.content["community"],
        report_reason=record.content["report_reason"],
        rationale_text=record.rationale_text,
        declared_ids=None if record.declared_ids is None else list(record.declared_ids),
        recommended_action=record.recommended_action,
        model=record.model,
        report=report.to_dict(),
        flagged=not report.validation.passed,
        validator_reason=report.validation.reason,
        source_sha256=sha256,
    )
    evidence = [
        Evidence(
            position=position,
            ev_id=evidence_id,
            tool=result.tool,
            status=result.status,
            summary=result.summary,
            latency_ms=result.latency_ms,
            data=result.data,
        )
        for position, (evidence_id, result) in enumerate(accumulator.items())
    ]
    return case, evidence
