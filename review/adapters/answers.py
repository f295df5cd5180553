"""Finalized answers in: a JSON-lines file of raw LLM answers and the sources they
were given. `grounding.citations.finalize` runs once, at import; the final body, its
references and every change finalization made are stored with the answer.

A line (see README, "Importing cases and answers"):
    {"answer_id": "a-77", "question": "...", "text": "raw answer with [1] citations ...",
     "sources": [{"title": "...", "year": 2021, "authors": ["..."], "url": "...",
                  "venue": "...", "doi": "...", "snippet": "..."}],
     "model": "name"}
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from grounding.citations import (
    Backfill,
    Finalization,
    PhantomCitation,
    SyntaxRewrite,
    finalize,
)
from review.adapters.jsonl import (
    CREATED,
    MISSING,
    UNCHANGED,
    Checker,
    ImportResult,
    LineProblems,
    already_imported,
    import_lines,
)
from review.models import Answer, AnswerReference

MAX_ID = Answer._meta.get_field("answer_id").max_length
MAX_MODEL = Answer._meta.get_field("model").max_length
MAX_DOI = AnswerReference._meta.get_field("doi").max_length
SOURCE_TEXT_FIELDS = ("url", "venue", "doi", "snippet")
# Characters of raw text shown on each side of a dropped phantom citation.
CONTEXT_CHARS = 40


@dataclass(frozen=True)
class AnswerRecord:
    answer_id: str
    question: str
    text: str
    sources: tuple[dict, ...]
    model: str


def import_answers(
    lines: Iterable[str | bytes] | str | bytes, *, skip_invalid=False
) -> ImportResult:
    """Import an answers file: all of it, or (with skip_invalid) its good lines.

    Raises ImportRefused listing every bad line. The same answer_id with the same
    content is left unchanged; with other content it is a bad line.
    """
    return import_lines(
        lines,
        parse=parse_answer,
        identify=lambda record: record.answer_id,
        store=_store_answer,
        skip_invalid=skip_invalid,
        kind="answer_id",
    )


def parse_answer(value: Any) -> AnswerRecord:
    """Check one line's JSON value strictly; raise LineProblems naming each fault."""
    check = Checker()
    if not check.object(
        value, "", required=("answer_id", "question", "text", "sources"), optional=("model",)
    ):
        check.done()
    fields: dict[str, Any] = {"answer_id": None, "question": None, "text": None, "model": ""}
    if "answer_id" in value:
        fields["answer_id"] = check.string(
            value["answer_id"], "answer_id", max_length=MAX_ID, identifier=True
        )
    for key in ("question", "text"):
        if key in value:
            fields[key] = check.string(value[key], key, non_empty=True)
    if "model" in value:
        fields["model"] = check.string(value["model"], "model", max_length=MAX_MODEL)
    sources = _sources(check, value.get("sources", MISSING))
    check.done()
    return AnswerRecord(sources=sources, **fields)


def _sources(check: Checker, value: Any) -> tuple[dict, ...]:
    items = None if value is MISSING else check.list(value, "sources")
    for index, source in enumerate(items or ()):
        path = f"sources[{index}]"
        if not check.object(
            source, path, required=("title",), optional=("year", "authors", *SOURCE_TEXT_FIELDS)
        ):
            continue
        if "title" in source:
            check.string(source["title"], f"{path}.title", non_empty=True)
        # null stands for "not known", as a missing key does.
        if source.get("year") is not None:
            check.integer(source["year"], f"{path}.year", minimum=1, maximum=9999)
        if source.get("authors") is not None and check.list(source["authors"], f"{path}.authors"):
            for position, name in enumerate(source["authors"]):
                check.string(name, f"{path}.authors[{position}]", non_empty=True)
        for key in SOURCE_TEXT_FIELDS:
            if source.get(key) is not None:
                limit = MAX_DOI if key == "doi" else None
                check.string(source[key], f"{path}.{key}", max_length=limit)
    return tuple(items or ())


def _store_answer(record: AnswerRecord, sha256: str) -> str:
    if already_imported(Answer, "answer_id", record.answer_id, sha256):
        return UNCHANGED
    try:
        result = finalize(record.text, record.sources)
    except ValueError as exc:
        raise LineProblems(f"finalization refused the answer: {exc}") from exc
    answer = Answer.objects.create(
        answer_id=record.answer_id,
        question=record.question,
        raw_text=record.text,
        body=result.body,
        model=record.model,
        sources=list(record.sources),
        changes=result.to_dict(),
        changed=result.changed,
        source_sha256=sha256,
    )
    AnswerReference.objects.bulk_create(
        AnswerReference(
            answer=answer,
            number=shown,
            original_number=original,
            title=source["title"],
            authors=list(source.get("authors") or []),
            year=source.get("year"),
            url=source.get("url") or "",
            venue=source.get("venue") or "",
            doi=source.get("doi") or "",
            snippet=source.get("snippet") or "",
        )
        for (original, shown), source in zip(
            result.number_map.items(), result.canonical_sources, strict=True
        )
    )
    return CREATED


# --- What finalization changed ------------------------------------------------------


@dataclass(frozen=True)
class Renumbering:
    """One cited source: its number in the raw answer and the number shown."""

    original: int
    shown: int
    title: str

    @property
    def moved(self) -> bool:
        return self.original != self.shown


@dataclass(frozen=True)
class DroppedCitation:
    """A citation with phantom numbers in it, the raw text around it so a reader can find
    it, and the numbers dropped from it (a range like [3-12] may drop ten at once)."""

    numbers: tuple[int, ...]
    position: int
    citation: str  # as written, e.g. "[7]" or "[2, 7]"
    before: str
    after: str


@dataclass(frozen=True)
class UncitedSource:
    original: int
    title: str


@dataclass(frozen=True)
class FinalizationChanges:
    """What the "What finalization changed" panel shows for one answer."""

    changed: bool
    raw_text: str
    renumbered: tuple[Renumbering, ...]  # every cited source, in shown order
    dropped: tuple[DroppedCitation, ...]
    rewrites: tuple[SyntaxRewrite, ...]
    backfills: tuple[Backfill, ...]
    uncited_sources: tuple[UncitedSource, ...]  # given to the model, never cited

    @property
    def moved(self) -> tuple[Renumbering, ...]:
        return tuple(item for item in self.renumbered if item.moved)

    @property
    def citations_changed(self) -> bool:
        return bool(self.moved or self.dropped or self.rewrites or self.backfills)

    @property
    def only_references_rebuilt(self) -> bool:
        """Changed, but only because the reference list was written from the sources
        (the raw answer had none, or wrote it differently)."""
        return self.changed and not self.citations_changed


def finalization(answer: Answer) -> Finalization:
    """The stored finalization record, read back through grounding."""
    return Finalization.from_dict(answer.changes)


def finalization_changes(answer: Answer) -> FinalizationChanges:
    result = finalization(answer)
    raw = answer.raw_text
    titles = [str(source.get("title", "")) for source in answer.sources]
    renumbered = tuple(
        Renumbering(original, shown, titles[original - 1] if original <= len(titles) else "")
        for original, shown in sorted(result.number_map.items(), key=lambda item: item[1])
    )
    return FinalizationChanges(
        changed=result.changed,
        raw_text=raw,
        renumbered=renumbered,
        dropped=_dropped(raw, result.dropped),
        rewrites=result.rewrites,
        backfills=result.backfills,
        uncited_sources=tuple(
            UncitedSource(number, title)
            for number, title in enumerate(titles, start=1)
            if number not in result.number_map
        ),
    )


def _dropped(raw: str, phantoms: tuple[PhantomCitation, ...]) -> tuple[DroppedCitation, ...]:
    numbers_at: dict[int, list[int]] = {}
    for phantom in phantoms:
        numbers_at.setdefault(phantom.position, []).append(phantom.number)
    dropped = []
    for start, numbers in numbers_at.items():
        end = raw.find("]", start) + 1 or start
        dropped.append(
            DroppedCitation(
                numbers=tuple(numbers),
                position=start,
                citation=raw[start:end],
                before=raw[max(0, start - CONTEXT_CHARS) : start],
                after=raw[end : end + CONTEXT_CHARS],
            )
        )
    return tuple(dropped)
