"""What the case page shows of the validator's report: each sentence of the rationale with
its status and its citations linked to the evidence, each evidence item with the sentences
that cite it, the declared ids against the cited ones, and the validator's details."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from grounding.evidence import RationaleReport, SentenceStatus
from review.models import Evidence

# A mark beside each status; the status is always written out too.
STATUS_MARKS = {
    Evidence.Status.SUCCESS: "✓",
    Evidence.Status.FAILURE: "✗",
    Evidence.Status.TIMEOUT: "◷",
    Evidence.Status.SKIPPED: "–",
}
SENTENCE_MARKS = {
    SentenceStatus.SUPPORTED: "✓",
    SentenceStatus.UNKNOWN_ID: "?",
    SentenceStatus.NON_SUCCESS: "!",
    SentenceStatus.UNCITED_CLAIM: "✗",
    SentenceStatus.NOT_A_CLAIM: "·",
}
_EV_REFERENCE = re.compile(r"\[(ev-\d+)\]")
CITE_LINK = '<a class="cite" href="#{}" data-ev="{}">[{}]</a>'
CITE_UNKNOWN = '<span class="cite cite-unknown" title="No evidence has this id">[{}]</span>'


@dataclass
class SentenceView:
    number: int
    text: str
    status: SentenceStatus
    mark: str
    html: SafeString  # the text, escaped, with its citations linked
    cited_ids: tuple[str, ...]
    offending_ids: tuple[str, ...]
    kind_label: str


@dataclass
class EvidenceView:
    item: Evidence
    mark: str
    cited_in: list[int] = field(default_factory=list)  # sentence numbers
    raw: str = ""

    @property
    def ignored(self) -> bool:
        return not self.cited_in


def case_report(report: RationaleReport, evidence_items: list[Evidence]) -> dict:
    """The sentences, the evidence rows, the id comparison and the details, for the page."""
    evidence = [
        EvidenceView(item, STATUS_MARKS.get(item.status, "?"), raw=_pretty(item.data))
        for item in evidence_items
    ]
    by_id = {row.item.ev_id: row for row in evidence}
    sentences = []
    for number, sentence in enumerate(report.sentences, start=1):
        for ev_id in sentence.cited_ids:
            if ev_id in by_id:
                by_id[ev_id].cited_in.append(number)
        sentences.append(_sentence_view(number, sentence, by_id))
    return {
        "sentences": sentences,
        "evidence": evidence,
        "id_comparison": _id_comparison(report),
        "details": _validation_details(report.validation.details),
    }


def _sentence_view(number: int, sentence, by_id: dict) -> SentenceView:
    return SentenceView(
        number=number,
        text=sentence.text,
        status=sentence.status,
        mark=SENTENCE_MARKS[sentence.status],
        html=_linked_citations(sentence.text, by_id),
        cited_ids=sentence.cited_ids,
        offending_ids=sentence.offending_ids,
        kind_label=sentence.kind.label,
    )


def _linked_citations(text: str, by_id: dict) -> SafeString:
    """The sentence, escaped, with each [ev-N] a link to its evidence row (or, for an
    id no evidence has, marked as unknown). Built here rather than in the template:
    a 200-sentence rationale would otherwise be thousands of template nodes."""
    pieces = []
    cursor = 0
    for match in _EV_REFERENCE.finditer(text):
        pieces.append(escape(text[cursor : match.start()]))
        ev_id = match.group(1)
        if ev_id in by_id:
            pieces.append(format_html(CITE_LINK, ev_id, ev_id, ev_id))
        else:
            pieces.append(format_html(CITE_UNKNOWN, ev_id))
        cursor = match.end()
    pieces.append(escape(text[cursor:]))
    return mark_safe("".join(pieces))  # noqa: S308 - each piece is escaped or format_html's


def _id_comparison(report: RationaleReport) -> list[dict] | None:
    """Each id the model declared or the text cites, and where it appears."""
    if report.declared_ids is None:
        return None
    declared, cited = set(report.declared_ids), set(report.cited_ids)
    ids = list(dict.fromkeys([*report.cited_ids, *report.declared_ids]))
    return [{"id": ev_id, "declared": ev_id in declared, "cited": ev_id in cited} for ev_id in ids]


DETAIL_LABELS = {
    "ids": "Ids",
    "statuses": "Statuses",
    "sentences": "Sentences",
    "missing": "Cited but not declared",
    "extra": "Declared but not cited",
}


def _validation_details(details: dict) -> list[tuple[str, list[str]]]:
    """The validator's details as label and values, whatever their JSON shape."""
    out = []
    for key, value in details.items():
        if isinstance(value, dict):
            values = [f"{name}: {item}" for name, item in value.items()]
        elif isinstance(value, list | tuple):
            values = [str(item) for item in value]
        else:
            values = [str(value)]
        out.append((DETAIL_LABELS.get(key, key), values))
    return out


def _pretty(data) -> str:
    if data in (None, {}, []):
        return ""
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True)
