"""Evidence citations in moderation rationales.

A moderation model gathers evidence by calling tools. Each tool result gets an
id, "ev-1", "ev-2", ... in the order it was gathered, and the model's rationale
must cite the evidence behind each claim as "[ev-N]". This module checks a
rationale against its evidence three ways: one verdict (`validate_citations`),
sentence by sentence (`assess_sentences`), and the successful evidence the
rationale ignored (`uncited_evidence`). `assess_rationale` bundles the three into
the `RationaleReport` that the review screens render and store.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

SUCCESS = "success"
EVIDENCE_STATUSES = (SUCCESS, "failure", "timeout", "skipped")

# In the order validate_citations checks them; the first that fails is reported.
VALIDATION_REASONS = (
    "empty_rationale",
    "no_citations",
    "hallucinated_evidence_ids",
    "cited_non_success_evidence",
    "uncited_claims",
    "cited_field_mismatch",
)
# What each reason means, for people.
REASON_DESCRIPTIONS = {
    "empty_rationale": "empty rationale",
    "no_citations": "no citations",
    "hallucinated_evidence_ids": "cites evidence that does not exist",
    "cited_non_success_evidence": "cites evidence that did not succeed",
    "uncited_claims": "claims without a citation",
    "cited_field_mismatch": "declared ids differ from the ids in the text",
}

# Shorter sentences ("High risk.", "No match found.") are fragments, not claims.
MIN_CLAIM_WORDS = 6

# Openers that announce a conclusion drawn from what came before; the comma or
# colon after them is required so that an ordinary sentence starting with
# "Overall" or "Given" is still read as a claim.
FRAMING_OPENERS = (
    "in summary",
    "in conclusion",
    "to summarize",
    "overall",
    "based on the above",
    "given the above",
    "considering the evidence",
)

# Labels of a line that proposes what to do rather than states what happened.
RECOMMENDATION_LABELS = (
    "recommend",
    "recommendation",
    "recommended action",
    "suggestion",
    "suggested action",
    "verdict",
    "action",
    "decision",
)


class EvidenceError(ValueError):
    """A tool result that cannot serve as evidence."""


class RationaleReportError(ValueError):
    """A stored rationale report that cannot be read back."""


class _Labelled(StrEnum):
    """A string enum whose members also carry a label a person reads."""

    label: str

    def __new__(cls, value: str, label: str):
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        return member


class SentenceStatus(_Labelled):
    """What a sentence of a rationale is, as far as its evidence goes."""

    SUPPORTED = "supported", "supported"
    UNKNOWN_ID = "cites_unknown_id", "cites unknown id"
    NON_SUCCESS = "cites_non_success_evidence", "cites non-success evidence"
    UNCITED_CLAIM = "uncited_claim", "uncited claim"
    NOT_A_CLAIM = "not_a_claim", "not a claim"


class SentenceKind(_Labelled):
    """Why a sentence does or does not need a citation of its own."""

    CLAIM = "claim", "claim"
    FRAMING = "framing", "framing: sums up what came before"
    RECOMMENDATION = "recommendation", "recommendation: proposes an action"
    FRAGMENT = "fragment", f"fragment: fewer than {MIN_CLAIM_WORDS} words"


@dataclass(frozen=True)
class ToolResult:
    """One piece of evidence: what a tool call returned, or that it did not."""

    tool: str
    status: str
    summary: str
    latency_ms: int
    data: Any = None

    def __post_init__(self) -> None:
        if self.status not in EVIDENCE_STATUSES:
            raise EvidenceError(
                f"the result of tool {self.tool!r} has status {self.status!r}; "
                f"use one of: {', '.join(EVIDENCE_STATUSES)}"
            )

    @property
    def succeeded(self) -> bool:
        return self.status == SUCCESS

    def to_dict(self) -> dict[str, Any]:
        """JSON-able as long as `data` is."""
        return {
            "tool": self.tool,
            "status": self.status,
            "summary": self.summary,
            "latency_ms": self.latency_ms,
            "data": self.data,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolResult:
        return cls(
            tool=data["tool"],
            status=data["status"],
            summary=data["summary"],
            latency_ms=data["latency_ms"],
            data=data.get("data"),
        )


class EvidenceAccumulator:
    """The evidence gathered for one decision, each result under its id.

    Ids are "ev-1", "ev-2", ... in the order the results were appended. Like a
    dict, it iterates over the ids and `in` asks about an id.
    """

    def __init__(self, results: Iterable[ToolResult] = ()) -> None:
        self._results: dict[str, ToolResult] = {}
        for result in results:
            self.append(result)

    def append(self, result: ToolResult) -> str:
        if not isinstance(result, ToolResult):
            raise TypeError(f"evidence must be a ToolResult, not {type(result).__name__}")
        evidence_id = f"ev-{len(self._results) + 1}"
        self._results[evidence_id] = result
        return evidence_id

    def get(self, evidence_id: str) -> ToolResult | None:
        return self._results.get(evidence_id)

    def items(self) -> list[tuple[str, ToolResult]]:
        return list(self._results.items())

    def __len__(self) -> int:
        return len(self._results)

    def __iter__(self) -> Iterator[str]:
        return iter(self._results)

    def __contains__(self, evidence_id: object) -> bool:
        return evidence_id in self._results

    def __repr__(self) -> str:
        return f"EvidenceAccumulator({list(self._results.values())!r})"


@dataclass(frozen=True)
class ValidationResult:
    """The verdict on a rationale: passed, or the first reason it failed.

    `details` holds what a moderator needs to see the failure, e.g. the
    offending ids; its values are JSON-able.
    """

    passed: bool
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def ok(cls) -> ValidationResult:
        return cls(passed=True)

    @classmethod
    def failed(cls, reason: str, **details: Any) -> ValidationResult:
        return cls(passed=False, reason=reason, details=details)

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "reason": self.reason, "details": dict(self.details)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ValidationResult:
        return cls(passed=data["passed"], reason=data["reason"], details=dict(data["details"]))


@dataclass(frozen=True)
class SentenceAssessment:
    """One sentence of a rationale, where it is, what it cites and its status.

    `offending_ids` are the cited ids behind a bad status: the unknown ones for
    UNKNOWN_ID, the non-success ones for NON_SUCCESS, otherwise none.
    """

    text: str
    start: int
    end: int
    cited_ids: tuple[str, ...]
    status: SentenceStatus
    kind: SentenceKind | None = None
    offending_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.end - self.start != len(self.text) or self.start < 0:
            raise ValueError(
                f"sentence {self.text[:40]!r} has {len(self.text)} characters, "
                f"but its span [{self.start}, {self.end}) does not"
            )
        # Accept plain strings and lists (as read back from JSON) and store the
        # enum members and tuples the type promises.
        object.__setattr__(self, "status", SentenceStatus(self.status))
        kind = sentence_kind(self.text) if self.kind is None else SentenceKind(self.kind)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "cited_ids", tuple(self.cited_ids))
        object.__setattr__(self, "offending_ids", tuple(self.offending_ids))

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "start": self.start,
            "end": self.end,
            "cited_ids": list(self.cited_ids),
            "status": self.status.value,
            "kind": self.kind.value,
            "offending_ids": list(self.offending_ids),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SentenceAssessment:
        return cls(
            text=data["text"],
            start=data["start"],
            end=data["end"],
            cited_ids=data["cited_ids"],
            status=data["status"],
            kind=data.get("kind"),
            offending_ids=data.get("offending_ids", ()),
        )


@dataclass(frozen=True)
class RationaleReport:
    """Everything the review screens show about one rationale.

    `cited_ids` are in order of first appearance; `declared_ids` are the ids the
    model said it cited, or None when it did not say.
    """

    validation: ValidationResult
    sentences: tuple[SentenceAssessment, ...]
    uncited_evidence: tuple[tuple[str, ToolResult], ...]
    cited_ids: tuple[str, ...]
    declared_ids: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "validation": self.validation.to_dict(),
            "sentences": [sentence.to_dict() for sentence in self.sentences],
            "uncited_evidence": [
                {"id": evidence_id, **result.to_dict()}
                for evidence_id, result in self.uncited_evidence
            ],
            "cited_ids": list(self.cited_ids),
            "declared_ids": None if self.declared_ids is None else list(self.declared_ids),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RationaleReport:
        where = "rationale report"
        try:
            validation = ValidationResult.from_dict(data["validation"])
            where = "rationale report, sentences"
            sentences = []
            for index, sentence in enumerate(data["sentences"]):
                where = f"rationale report, sentence {index}"
                sentences.append(SentenceAssessment.from_dict(sentence))
            where = "rationale report, uncited_evidence"
            uncited = tuple(
                (entry["id"], ToolResult.from_dict(entry)) for entry in data["uncited_evidence"]
            )
            where = "rationale report"
            declared = data["declared_ids"]
            return cls(
                validation=validation,
                sentences=tuple(sentences),
                uncited_evidence=uncited,
                cited_ids=tuple(data["cited_ids"]),
                declared_ids=None if declared is None else tuple(declared),
            )
        except KeyError as exc:
            raise RationaleReportError(f"{where}: the key {exc} is missing") from exc
        except (TypeError, ValueError) as exc:
            raise RationaleReportError(f"{where}: {exc}") from exc


# --- Reading a rationale ------------------------------------------------------

_EV_REFERENCE = re.compile(r"\[(ev-\d+)\]")
_LINE = re.compile(r"[^\n]+")
# A list marker at the start of a line is layout, not part of the sentence.
_LIST_MARKER = re.compile(r"\s*(?:(?:[-*+\u2022]|\d{1,3}[.)])\s+)?")
# A sentence ends at terminal punctuation (with any closing quotes) followed by
# whitespace or the end of the line. Citations right after the punctuation
# ("... spam. [ev-1] Next") belong to the sentence they close: a citation
# never opens a sentence in the rationales we read. The lookbehind starts a
# match only at the first mark of a run, which keeps "....." linear.
_SENTENCE_END = re.compile(r"(?<![.!?])([.!?]+[\"'\u201d\u2019)]*(?:\s*\[ev-\d+\])*)(?:\s+|\Z)")
# Markdown emphasis, headings and quotes may wrap the opening words.
_DECORATION = r"[\s*_#>]*"


def _phrases(phrases: Sequence[str]) -> str:
    return "|".join(re.escape(phrase).replace(r"\ ", r"\s+") for phrase in phrases)


_FRAMING = re.compile(rf"{_DECORATION}(?:{_phrases(FRAMING_OPENERS)})[*_]*\s*[,:]", re.IGNORECASE)
_RECOMMENDATION = re.compile(
    rf"{_DECORATION}(?:{_phrases(RECOMMENDATION_LABELS)})[*_]*\s*:", re.IGNORECASE
)


def parse_ev_references(text: str) -> set[str]:
    """The evidence ids that `text` cites as "[ev-N]" (exactly that form)."""
    return {match.group(1) for match in _EV_REFERENCE.finditer(text)}


def contains_ev_reference(text: str) -> bool:
    return _EV_REFERENCE.search(text) is not None


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, stripped, in order."""
    return [text[start:end] for start, end in _sentence_spans(text)]


def sentence_kind(sentence: str) -> SentenceKind:
    """Whether a sentence is a claim, or why it is not."""
    bare = _EV_REFERENCE.sub(" ", sentence)
    if _RECOMMENDATION.match(bare):
        return SentenceKind.RECOMMENDATION
    if _FRAMING.match(bare):
        return SentenceKind.FRAMING
    if not _has_words(bare, MIN_CLAIM_WORDS):
        return SentenceKind.FRAGMENT
    return SentenceKind.CLAIM


def is_substantive(sentence: str) -> bool:
    """Whether the sentence states something that evidence must back."""
    return sentence_kind(sentence) is SentenceKind.CLAIM


def uncited_substantive_sentences(text: str) -> list[str]:
    """The claims in `text` that cite nothing at all."""
    return [
        text[start:end]
        for start, end in _sentence_spans(text)
        if _EV_REFERENCE.search(text, start, end) is None and is_substantive(text[start:end])
    ]


def validate_citations(
    rationale: str,
    accumulator: EvidenceAccumulator,
    cited_evidence_ids: Sequence[str] | None = None,
) -> ValidationResult:
    """Check a rationale against its evidence; report the first failing check.

    `cited_evidence_ids`, when given, are the ids the model declared it cited;
    they must be exactly the ids the rationale cites.
    """
    declared = _declared(cited_evidence_ids)
    if not rationale.strip():
        return ValidationResult.failed("empty_rationale")
    cited = _ids_in_order(rationale)
    if not cited:
        return ValidationResult.failed("no_citations")

    unknown = [evidence_id for evidence_id in cited if evidence_id not in accumulator]
    if unknown:
        return ValidationResult.failed("hallucinated_evidence_ids", ids=unknown)

    statuses = {
        evidence_id: accumulator.get(evidence_id).status
        for evidence_id in cited
        if not accumulator.get(evidence_id).succeeded
    }
    if statuses:
        return ValidationResult.failed(
            "cited_non_success_evidence", ids=list(statuses), statuses=statuses
        )

    uncited = uncited_substantive_sentences(rationale)
    if uncited:
        return ValidationResult.failed("uncited_claims", sentences=uncited)

    if declared is not None and set(declared) != set(cited):
        declared_set, cited_set = set(declared), set(cited)
        return ValidationResult.failed(
            "cited_field_mismatch",
            # missing: cited in the rationale but not declared;
            # extra: declared but not cited in the rationale.
            missing=[evidence_id for evidence_id in cited if evidence_id not in declared_set],
            extra=_unique(evidence_id for evidence_id in declared if evidence_id not in cited_set),
        )
    return ValidationResult.ok()


def assess_sentences(
    rationale: str, accumulator: EvidenceAccumulator
) -> tuple[SentenceAssessment, ...]:
    """Each sentence of the rationale with its offsets, citations and status."""
    return tuple(
        _assess(rationale, start, end, accumulator) for start, end in _sentence_spans(rationale)
    )


def uncited_evidence(
    rationale: str, accumulator: EvidenceAccumulator
) -> tuple[tuple[str, ToolResult], ...]:
    """The successful evidence that the rationale never cites, in id order."""
    cited = parse_ev_references(rationale)
    return tuple(
        (evidence_id, result)
        for evidence_id, result in accumulator.items()
        if result.succeeded and evidence_id not in cited
    )


def assess_rationale(
    rationale: str,
    accumulator: EvidenceAccumulator,
    cited_evidence_ids: Sequence[str] | None = None,
) -> RationaleReport:
    """The verdict, the sentence assessment and the ignored evidence together."""
    declared = _declared(cited_evidence_ids)
    return RationaleReport(
        validation=validate_citations(rationale, accumulator, declared),
        sentences=assess_sentences(rationale, accumulator),
        uncited_evidence=uncited_evidence(rationale, accumulator),
        cited_ids=tuple(_ids_in_order(rationale)),
        declared_ids=declared,
    )


# --- Helpers --------------------------------------------------------------------


def _sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    # Every line break ends a sentence: in model output a line is a unit of its
    # own (a list item, a verdict line), and joining lines would let one line's
    # citation cover the claim on the next.
    for line in _LINE.finditer(text):
        line_end = line.end()
        start = _LIST_MARKER.match(text, line.start(), line_end).end()
        for sentence_end in _SENTENCE_END.finditer(text, start, line_end):
            yield from _stripped(text, start, sentence_end.end(1))
            start = sentence_end.end()
        yield from _stripped(text, start, line_end)


def _stripped(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        yield start, end


def _assess(
    rationale: str, start: int, end: int, accumulator: EvidenceAccumulator
) -> SentenceAssessment:
    text = rationale[start:end]
    cited = tuple(_unique(m.group(1) for m in _EV_REFERENCE.finditer(rationale, start, end)))
    kind = sentence_kind(text)
    unknown = tuple(evidence_id for evidence_id in cited if evidence_id not in accumulator)
    non_success = tuple(
        evidence_id
        for evidence_id in cited
        if evidence_id in accumulator and not accumulator.get(evidence_id).succeeded
    )
    # An unknown id outranks a good one beside it: the model invented evidence,
    # and we cannot tell which part of the sentence each id was meant to back,
    # so the good id cannot vouch for the sentence. The order also matches
    # validate_citations, which reports invented ids before anything else.
    if unknown:
        status, offending = SentenceStatus.UNKNOWN_ID, unknown
    elif non_success:
        status, offending = SentenceStatus.NON_SUCCESS, non_success
    elif cited:
        status, offending = SentenceStatus.SUPPORTED, ()
    elif kind is SentenceKind.CLAIM:
        status, offending = SentenceStatus.UNCITED_CLAIM, ()
    else:
        status, offending = SentenceStatus.NOT_A_CLAIM, ()
    return SentenceAssessment(text, start, end, cited, status, kind, offending)


def _has_words(text: str, count: int) -> bool:
    # A word is a whitespace-separated token with a letter or digit in it, so
    # dashes and bullets do not count.
    seen = 0
    for token in text.split():
        if any(char.isalnum() for char in token):
            seen += 1
            if seen >= count:
                return True
    return False


def _ids_in_order(text: str) -> list[str]:
    return _unique(match.group(1) for match in _EV_REFERENCE.finditer(text))


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _declared(cited_evidence_ids: Sequence[str] | None) -> tuple[str, ...] | None:
    if cited_evidence_ids is None:
        return None
    # A lone string would be read character by character and fail obscurely.
    if isinstance(cited_evidence_ids, str):
        raise TypeError(
            f"cited_evidence_ids must be a list of ids such as ['ev-1'], "
            f"not the string {cited_evidence_ids!r}"
        )
    return tuple(cited_evidence_ids)
