"""Segmentation plans: which spans of a document become which entries, and who said so.

A plan is either *proposed* (made by a machine, every entry marked PROPOSED, nobody has
looked at it) or *adjudicated* (a person decided every entry). The rule this module
exists to enforce: a proposal nobody looked at must never be replayable as an
adjudication. `parse_segmentation_plan` is the gate every plan passes before it is used,
so it refuses every payload in which the two could be confused.

Proposed payload (no "rejected" key at all):

    {"source_sha256": hex64, "extractor_id": str, "extractor_version": str,
     "proposed_by": str, "adjudicated": false,
     "entries": [{"path": "n500-vegbygging/3-1-brannkonsept", "title": "3.1 Brannkonsept",
                  "span": [start, end], "anchor": {"quote", "prefix", "suffix"},
                  "derived": ["PROPOSED", "rule:heading", ...]}]}

Adjudicated payload: the same provenance, "adjudicated": true, entries whose "derived"
holds only rules, each with an "adjudication" record, and a "rejected" list (possibly
empty) of what the editor took out:

    entry["adjudication"] = {"decision": "accept" | "edit", "by": str, "at": ISO-8601,
                             "note": str,
                             "was": {"title"?, "path"?, "span"?},      # edit only: the old values
                             "merged": [record, ...]}                  # only when non-empty
    record = {"path", "title", "span", "derived": [rules],
              "adjudication": {"decision": "merge" | "reject", "by", "at", "note"}}

Merges live inside the entry that absorbed them, rejections in the top-level "rejected"
list, so every proposed entry is accounted for exactly once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from grounding.anchors import PLACED, Anchor, Location, relocate

PROPOSED_MARKER = "PROPOSED"
RULE_PREFIX = "rule:"

ACCEPT = "accept"
EDIT = "edit"
MERGE = "merge"
REJECT = "reject"
# Where each decision may appear: on a kept entry, inside "merged", inside "rejected".
ENTRY_DECISIONS = frozenset({ACCEPT, EDIT})
MERGED_DECISIONS = frozenset({MERGE})
REJECTED_DECISIONS = frozenset({REJECT})

_HEX64 = re.compile(r"[0-9a-f]{64}")
_SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
_PATH = re.compile(rf"{_SLUG}(?:/{_SLUG})*")
_RULE = re.compile(r"rule:[a-z0-9]+(?:-[a-z0-9]+)*")

# Where a plan comes from: the text it was made for, the extractor that read it, its proposer.
PROVENANCE_KEYS = ("source_sha256", "extractor_id", "extractor_version", "proposed_by")
_PROPOSED_KEYS = frozenset({*PROVENANCE_KEYS, "adjudicated", "entries"})
# "double_review": true says the policy asked for two people on every entry (see below).
_ADJUDICATED_KEYS = _PROPOSED_KEYS | {"rejected", "double_review"}
_ENTRY_KEYS = frozenset({"path", "title", "span", "anchor", "derived"})
_ANCHOR_KEYS = frozenset({"quote", "prefix", "suffix"})
_RECORD_KEYS = frozenset({"path", "title", "span", "derived", "adjudication"})
_ADJUDICATION_KEYS = frozenset({"decision", "by", "at", "note"})
# A double review's record: the two who reviewed the entry, and who settled it if they differed.
_DOUBLE_REVIEW_KEYS = frozenset({"reviewers", "curator"})
_WAS_KEYS = ("title", "path", "span")


class PlanError(ValueError):
    """A payload that is not a plan this project may replay. Names where it went wrong."""

    def __init__(self, where: str, field: str, problem: str) -> None:
        super().__init__(f"{where}: field {field!r}: {problem}")
        self.where = where
        self.field = field
        self.problem = problem


def shown_number(index: int) -> int:
    """The number a person reads for the item at `index` of a plan's list (entries, rejected
    and merged records), in every message: #1 is the first, as the screen numbers them."""
    return index + 1


class DriftError(ValueError):
    """The text moved under the plan: some entries cannot be placed exactly any more."""

    def __init__(self, drifted: Sequence[tuple[int, str, Location]]) -> None:
        described = "; ".join(
            f"entry #{shown_number(index)} ({path!r}) is {location.status}"
            for index, path, location in drifted
        )
        super().__init__(
            f"{len(drifted)} entr{'y' if len(drifted) == 1 else 'ies'} can no longer be placed "
            f"exactly, review the plan against the new text: {described}"
        )
        self.drifted = tuple(drifted)


@dataclass(frozen=True)
class PriorValues:
    """What an edit changed, as it was before: None for a field the edit left alone."""

    title: str | None = None
    path: str | None = None
    span: tuple[int, int] | None = None

    def to_dict(self) -> dict:
        values = {"title": self.title, "path": self.path, "span": self.span}
        return {
            key: list(value) if key == "span" else value
            for key, value in values.items()
            if value is not None
        }


@dataclass(frozen=True)
class Adjudication:
    """Who decided an entry, when, and what."""

    decision: str
    by: str
    at: str
    note: str = ""
    was: PriorValues | None = None
    merged: tuple[RecordedEntry, ...] = ()
    # Under double review: the two reviewers, and the curator who settled their difference.
    reviewers: tuple[str, ...] = ()
    curator: str = ""

    def __getitem__(self, key: str) -> Any:
        # Dict-like reading for templates and callers that treat the record as JSON.
        return self.to_dict()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_dict().get(key, default)

    def to_dict(self) -> dict:
        record: dict[str, Any] = {
            "decision": self.decision,
            "by": self.by,
            "at": self.at,
            "note": self.note,
        }
        if self.was is not None:
            record["was"] = self.was.to_dict()
        if self.merged:
            record["merged"] = [item.to_dict() for item in self.merged]
        if self.reviewers:
            record["reviewers"] = list(self.reviewers)
        if self.curator:
            record["curator"] = self.curator
        return record


@dataclass(frozen=True)
class RecordedEntry:
    """A proposed entry that left the plan by a decision (merged or rejected), kept on record."""

    path: str
    title: str
    span: tuple[int, int]
    derived: tuple[str, ...]
    adjudication: Adjudication

    def to_dict(self) -> dict:
        return {
            "path": self.path,
            "title": self.title,
            "span": list(self.span),
            "derived": list(self.derived),
            "adjudication": self.adjudication.to_dict(),
        }


@dataclass(frozen=True)
class PlanEntry:
    path: str
    title: str
    span: tuple[int, int]
    anchor: Anchor
    derived: tuple[str, ...]
    adjudication: Adjudication | None = None

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(name for name in self.derived if name.startswith(RULE_PREFIX))

    @property
    def is_proposed(self) -> bool:
        return PROPOSED_MARKER in self.derived

    def to_dict(self) -> dict:
        payload = {
            "path": self.path,
            "title": self.title,
            "span": list(self.span),
            "anchor": self.anchor.to_dict(),
            "derived": list(self.derived),
        }
        if self.adjudication is not None:
            payload["adjudication"] = self.adjudication.to_dict()
        return payload


@dataclass(frozen=True)
class SegmentationPlan:
    source_sha256: str
    extractor_id: str
    extractor_version: str
    proposed_by: str
    adjudicated: bool
    entries: tuple[PlanEntry, ...]
    rejected: tuple[RecordedEntry, ...] = field(default=())
    # Every entry was settled by two reviewers (or a curator): replay refuses one that was not.
    double_review: bool = False


def plan_to_payload(plan: SegmentationPlan) -> dict:
    """The JSON form; `parse_segmentation_plan` of it gives the same plan back."""
    payload: dict[str, Any] = {
        "source_sha256": plan.source_sha256,
        "extractor_id": plan.extractor_id,
        "extractor_version": plan.extractor_version,
        "proposed_by": plan.proposed_by,
        "adjudicated": plan.adjudicated,
        "entries": [entry.to_dict() for entry in plan.entries],
    }
    if plan.adjudicated:
        payload["rejected"] = [record.to_dict() for record in plan.rejected]
        if plan.double_review:
            payload["double_review"] = True
    return payload


def is_valid_path(path: object) -> bool:
    """Lower-case slugs of letters, digits and single dashes, separated by "/"."""
    return isinstance(path, str) and _PATH.fullmatch(path) is not None


def parse_segmentation_plan(payload: object, text: str | None = None) -> SegmentationPlan:
    """Validate a plan payload; with `text`, also check every anchor quotes its span there."""
    if not isinstance(payload, Mapping):
        raise PlanError("plan", "(payload)", f"must be a JSON object, not {_kind(payload)}")
    adjudicated = payload.get("adjudicated")
    if not isinstance(adjudicated, bool):
        raise PlanError("plan", "adjudicated", f"must be true or false, not {_show(adjudicated)}")
    if "rejected" in payload and not adjudicated:
        raise PlanError(
            "plan", "rejected", "a proposed plan has no rejections: nobody has decided anything"
        )
    _refuse_unknown_keys(payload, _ADJUDICATED_KEYS if adjudicated else _PROPOSED_KEYS, "plan")
    source_sha256 = payload.get("source_sha256")
    if not isinstance(source_sha256, str) or not _HEX64.fullmatch(source_sha256):
        raise PlanError(
            "plan", "source_sha256", f"must be 64 lower-case hex digits, not {_show(source_sha256)}"
        )
    provenance = {key: _text_field(payload, key, "plan") for key in PROVENANCE_KEYS[1:]}

    entries = _parse_entries(payload, adjudicated, text)
    rejected = _parse_rejected(payload, text) if adjudicated else ()
    double_review = payload.get("double_review", False)
    if double_review is not False:
        if double_review is not True:
            raise PlanError(
                "plan", "double_review", f"must be true when given, not {_show(double_review)}"
            )
        _check_double_reviewed(entries, rejected)
    return SegmentationPlan(
        source_sha256=source_sha256,
        adjudicated=adjudicated,
        entries=entries,
        rejected=rejected,
        double_review=double_review,
        **provenance,
    )


def _parse_entries(payload: Mapping, adjudicated: bool, text: str | None) -> tuple[PlanEntry, ...]:
    raw_entries = payload.get("entries")
    if not isinstance(raw_entries, list):
        raise PlanError("plan", "entries", f"must be a list, not {_kind(raw_entries)}")
    if not raw_entries:
        raise PlanError("plan", "entries", "is empty: a plan with no entries replays nothing")
    entries = tuple(
        _parse_entry(raw, index, adjudicated, text) for index, raw in enumerate(raw_entries)
    )
    _check_order_and_uniqueness(entries)
    return entries


def _parse_rejected(payload: Mapping, text: str | None) -> tuple[RecordedEntry, ...]:
    if "rejected" not in payload:
        raise PlanError(
            "plan",
            "rejected",
            "is missing: an adjudicated plan lists its rejections, even none",
        )
    raw_rejected = payload["rejected"]
    if not isinstance(raw_rejected, list):
        raise PlanError("plan", "rejected", f"must be a list, not {_kind(raw_rejected)}")
    return tuple(
        _parse_record(raw, f"rejected record #{shown_number(index)}", REJECTED_DECISIONS, text)
        for index, raw in enumerate(raw_rejected)
    )


def _check_double_reviewed(entries: tuple[PlanEntry, ...], rejected: tuple[RecordedEntry, ...]):
    """A plan whose policy asked for two people: no entry may be settled by one."""
    records = [
        (_where("entry", i, {"path": e.path}), e.adjudication) for i, e in enumerate(entries)
    ]
    records += [
        (f"rejected record #{shown_number(i)}", r.adjudication) for i, r in enumerate(rejected)
    ]
    for where, record in list(records):
        records += [
            (f"{where} merged record #{shown_number(i)}", m.adjudication)
            for i, m in enumerate(record.merged)
        ]
    for where, record in records:
        if len(record.reviewers) != 2:
            raise PlanError(
                where,
                "adjudication.reviewers",
                "is missing: the plan is double-reviewed, and one person settled this entry",
            )


def slice_segments(text: str, plan: SegmentationPlan) -> list[tuple[PlanEntry, str]]:
    """Each entry with its body, found by its anchor; loud when any entry cannot be placed."""
    locations = relocate(
        text, [entry.anchor for entry in plan.entries], [entry.span[0] for entry in plan.entries]
    )
    drifted = [
        (index, entry.path, location)
        for index, (entry, location) in enumerate(zip(plan.entries, locations, strict=True))
        if location.status not in PLACED
    ]
    if drifted:
        raise DriftError(drifted)
    return [
        (entry, text[location.start : location.end])
        for entry, location in zip(plan.entries, locations, strict=True)
    ]


# --- parsing pieces ---------------------------------------------------------------------


def _parse_entry(raw: object, index: int, adjudicated: bool, text: str | None) -> PlanEntry:
    where = _where("entry", index, raw)
    if not isinstance(raw, Mapping):
        raise PlanError(where, "(entry)", f"must be a JSON object, not {_kind(raw)}")
    allowed = _ENTRY_KEYS | {"adjudication"} if adjudicated else _ENTRY_KEYS
    if not adjudicated and "adjudication" in raw:
        raise PlanError(
            where,
            "adjudication",
            'claims an adjudication in a plan that says "adjudicated": false',
        )
    _refuse_unknown_keys(raw, allowed, where)
    path = _path_field(raw, "path", where)
    title = _title_field(raw, "title", where)
    span = _span_field(raw, "span", where, text)
    anchor = _anchor_field(raw, where, span, text)
    derived = _derived_field(raw, where, proposed=not adjudicated)
    adjudication = None
    if adjudicated:
        if "adjudication" not in raw:
            raise PlanError(
                where, "adjudication", "is missing: an adjudicated entry records who decided it"
            )
        adjudication = _parse_adjudication(
            raw["adjudication"], where, ENTRY_DECISIONS, text, container_span=span
        )
        if adjudication.was is not None:
            _check_edit_changed_something(adjudication.was, path, title, span, where)
    return PlanEntry(path, title, span, anchor, derived, adjudication)


def _parse_record(
    raw: object,
    where: str,
    decisions: frozenset[str],
    text: str | None,
    container_span: tuple[int, int] | None = None,
) -> RecordedEntry:
    if isinstance(raw, Mapping) and isinstance(raw.get("path"), str):
        where = f"{where} ({raw['path']!r})"
    if not isinstance(raw, Mapping):
        raise PlanError(where, "(record)", f"must be a JSON object, not {_kind(raw)}")
    _refuse_unknown_keys(raw, _RECORD_KEYS, where)
    path = _path_field(raw, "path", where)
    title = _title_field(raw, "title", where)
    span = _span_field(raw, "span", where, text)
    if container_span is not None and not (
        container_span[0] <= span[0] and span[1] <= container_span[1]
    ):
        raise PlanError(
            where,
            "span",
            f"{list(span)} lies outside the entry it was merged into {list(container_span)}: "
            "a merge must lose no text",
        )
    derived = _derived_field(raw, where, proposed=False)
    if "adjudication" not in raw:
        raise PlanError(where, "adjudication", "is missing: a decision records who made it")
    adjudication = _parse_adjudication(raw["adjudication"], where, decisions, text)
    return RecordedEntry(path, title, span, derived, adjudication)


def _parse_adjudication(
    raw: object,
    where: str,
    decisions: frozenset[str],
    text: str | None,
    container_span: tuple[int, int] | None = None,
) -> Adjudication:
    name = "adjudication"
    if not isinstance(raw, Mapping):
        raise PlanError(where, name, f"must be a JSON object, not {_kind(raw)}")
    allowed = set(_ADJUDICATION_KEYS | _DOUBLE_REVIEW_KEYS)
    if EDIT in decisions:
        allowed.add("was")
    if container_span is not None:
        allowed.add("merged")
    _refuse_unknown_keys(raw, allowed, where, within=name)
    decision = raw.get("decision")
    if decision not in decisions:
        known = " or ".join(repr(value) for value in sorted(decisions))
        raise PlanError(where, f"{name}.decision", f"must be {known} here, not {_show(decision)}")
    by = raw.get("by")
    if not isinstance(by, str) or not by.strip():
        raise PlanError(where, f"{name}.by", f"must name who decided, not {_show(by)}")
    at = raw.get("at")
    if not isinstance(at, str) or not _is_iso_datetime(at):
        raise PlanError(where, f"{name}.at", f"must be an ISO-8601 date and time, not {_show(at)}")
    note = raw.get("note")
    if not isinstance(note, str):
        raise PlanError(
            where, f"{name}.note", f"must be a string (may be empty), not {_kind(note)}"
        )
    was = _parse_edit_record(raw, decision, where, text)
    merged = _parse_merged(raw, where, text, container_span)
    reviewers, curator = _parse_double_review(raw, where)
    return Adjudication(decision, by, at, note, was, merged, reviewers, curator)


def _parse_edit_record(
    raw: Mapping, decision: str, where: str, text: str | None
) -> PriorValues | None:
    """An edit's "was" (what it changed, as it was); refused on any other decision."""
    if decision == EDIT:
        if "was" not in raw:
            raise PlanError(
                where, "adjudication.was", "is missing: an edit records what it changed"
            )
        return _parse_was(raw["was"], where, text)
    if "was" in raw:
        raise PlanError(
            where, "adjudication.was", f"only an edit records old values, not {decision!r}"
        )
    return None


def _parse_merged(
    raw: Mapping, where: str, text: str | None, container_span: tuple[int, int] | None
) -> tuple[RecordedEntry, ...]:
    if "merged" not in raw:
        return ()
    raw_merged = raw["merged"]
    if not isinstance(raw_merged, list) or not raw_merged:
        raise PlanError(
            where, "adjudication.merged", "must be a non-empty list (leave it out when none)"
        )
    return tuple(
        _parse_record(
            item,
            f"{where} merged record #{shown_number(index)}",
            MERGED_DECISIONS,
            text,
            container_span,
        )
        for index, item in enumerate(raw_merged)
    )


def _parse_double_review(raw: Mapping, where: str) -> tuple[tuple[str, ...], str]:
    reviewers = raw.get("reviewers", [])
    named = isinstance(reviewers, list) and all(isinstance(r, str) and r.strip() for r in reviewers)
    if not named or len(reviewers) not in (0, 2) or len(set(reviewers)) != len(reviewers):
        raise PlanError(
            where,
            "adjudication.reviewers",
            f"must name two different reviewers, not {_show(reviewers)}",
        )
    curator = raw.get("curator", "")
    if not isinstance(curator, str) or (curator and not reviewers) or curator in reviewers:
        raise PlanError(
            where,
            "adjudication.curator",
            "must name the person, not one of the two reviewers, who settled their difference",
        )
    return tuple(reviewers), curator


def _parse_was(raw: object, where: str, text: str | None) -> PriorValues:
    name = "adjudication.was"
    if not isinstance(raw, Mapping) or not raw:
        raise PlanError(where, name, "must be a non-empty object of the values an edit changed")
    _refuse_unknown_keys(raw, frozenset(_WAS_KEYS), where, within=name)
    return PriorValues(
        title=_title_field(raw, "title", where, prefix=name) if "title" in raw else None,
        path=_path_field(raw, "path", where, prefix=name) if "path" in raw else None,
        span=_span_field(raw, "span", where, text, prefix=name) if "span" in raw else None,
    )


def _check_edit_changed_something(
    was: PriorValues, path: str, title: str, span: tuple[int, int], where: str
) -> None:
    for name, old, new in (
        ("title", was.title, title),
        ("path", was.path, path),
        ("span", was.span, span),
    ):
        if old is not None and old == new:
            raise PlanError(
                where, f"adjudication.was.{name}", "equals the current value: that is no edit"
            )


def _derived_field(raw: Mapping, where: str, *, proposed: bool) -> tuple[str, ...]:
    derived = raw.get("derived")
    if not isinstance(derived, list) or not all(isinstance(item, str) for item in derived):
        raise PlanError(where, "derived", f"must be a list of strings, not {_show(derived)}")
    markers = derived.count(PROPOSED_MARKER)
    if proposed and (markers != 1 or derived[0] != PROPOSED_MARKER):
        raise PlanError(
            where, "derived", f"a proposed entry starts with {PROPOSED_MARKER!r}, once: {derived}"
        )
    if not proposed and markers:
        raise PlanError(
            where,
            "derived",
            f"still {PROPOSED_MARKER}: an adjudicated plan may hold no unreviewed entry",
        )
    rules = derived[1:] if proposed else derived
    if not rules:
        raise PlanError(where, "derived", "names no rule: every entry is traceable to one")
    for name in rules:
        if not _RULE.fullmatch(name):
            raise PlanError(where, "derived", f"{name!r} is not a rule name like 'rule:heading'")
    if len(set(rules)) != len(rules):
        raise PlanError(where, "derived", f"names a rule twice: {derived}")
    return tuple(derived)


def _anchor_field(raw: Mapping, where: str, span: tuple[int, int], text: str | None) -> Anchor:
    anchor = raw.get("anchor")
    if not isinstance(anchor, Mapping):
        raise PlanError(where, "anchor", f"must be an object, not {_kind(anchor)}")
    _refuse_unknown_keys(anchor, _ANCHOR_KEYS, where, within="anchor")
    for key in sorted(_ANCHOR_KEYS):
        if not isinstance(anchor.get(key), str):
            raise PlanError(
                where, f"anchor.{key}", f"must be a string, not {_kind(anchor.get(key))}"
            )
    quote, prefix, suffix = anchor["quote"], anchor["prefix"], anchor["suffix"]
    start, end = span
    if len(quote) != end - start:
        raise PlanError(
            where,
            "anchor.quote",
            f"is {len(quote)} characters long but the span {list(span)} is {end - start}",
        )
    if text is not None:
        if text[start:end] != quote:
            raise PlanError(where, "anchor.quote", f"does not quote the text at {list(span)}")
        # endswith/startswith with bounds: slicing here would copy the text per entry.
        if not text.endswith(prefix, 0, start):
            raise PlanError(where, "anchor.prefix", f"does not match the text before {start}")
        if not text.startswith(suffix, end):
            raise PlanError(where, "anchor.suffix", f"does not match the text after {end}")
    return Anchor(quote=quote, prefix=prefix, suffix=suffix)


def _span_field(
    raw: Mapping, name: str, where: str, text: str | None, prefix: str = ""
) -> tuple[int, int]:
    label = f"{prefix}.{name}" if prefix else name
    span = raw.get(name)
    if (
        not isinstance(span, list)
        or len(span) != 2
        or not all(isinstance(value, int) and not isinstance(value, bool) for value in span)
    ):
        raise PlanError(where, label, f"must be [start, end] as two integers, not {_show(span)}")
    start, end = span
    if not 0 <= start < end:
        raise PlanError(where, label, f"{span} must satisfy 0 <= start < end")
    if text is not None and end > len(text):
        raise PlanError(where, label, f"{span} runs past the end of the text ({len(text)} chars)")
    return (start, end)


def _path_field(raw: Mapping, name: str, where: str, prefix: str = "") -> str:
    label = f"{prefix}.{name}" if prefix else name
    path = raw.get(name)
    if not is_valid_path(path):
        raise PlanError(
            where,
            label,
            f"{_show(path)} is not lower-case slugs (a-z, 0-9, single dashes) separated by '/'",
        )
    return path


def _title_field(raw: Mapping, name: str, where: str, prefix: str = "") -> str:
    label = f"{prefix}.{name}" if prefix else name
    title = raw.get(name)
    if not isinstance(title, str) or not title.strip() or "\n" in title:
        raise PlanError(where, label, f"must be one non-blank line of text, not {_show(title)}")
    return title


def _text_field(raw: Mapping, name: str, where: str) -> str:
    value = raw.get(name)
    if not isinstance(value, str) or not value.strip():
        raise PlanError(where, name, f"is missing provenance: {_show(value)}")
    return value


def _check_order_and_uniqueness(entries: Sequence[PlanEntry]) -> None:
    seen: dict[str, int] = {}
    for index, entry in enumerate(entries):
        where = f"entry #{shown_number(index)} ({entry.path!r})"
        if entry.path in seen:
            raise PlanError(
                where, "path", f"duplicates the path of entry #{shown_number(seen[entry.path])}"
            )
        seen[entry.path] = index
        if index:
            previous = entries[index - 1]
            if entry.span[0] < previous.span[1]:
                raise PlanError(
                    where,
                    "span",
                    f"{list(entry.span)} starts before entry #{shown_number(index - 1)} "
                    f"({previous.path!r}) "
                    f"ends at {previous.span[1]}: spans must be in order and not overlap",
                )


def _refuse_unknown_keys(
    raw: Mapping, allowed: frozenset[str] | set[str], where: str, within: str = ""
) -> None:
    unknown = sorted(str(key) for key in raw if key not in allowed)
    if unknown:
        label = f"{within}.{unknown[0]}" if within else unknown[0]
        raise PlanError(where, label, f"is not a known key (known: {', '.join(sorted(allowed))})")


def _where(kind: str, index: int, raw: object) -> str:
    if isinstance(raw, Mapping) and isinstance(raw.get("path"), str):
        return f"{kind} #{shown_number(index)} ({raw['path']!r})"
    return f"{kind} #{shown_number(index)}"


def _is_iso_datetime(value: str) -> bool:
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return "T" in value or " " in value


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _show(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
