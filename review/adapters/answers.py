"""Finalized answers in: a JSON-lines file of raw LLM answers and the sources they
were given. `grounding.citations.finalize` runs once, at import; the final body, its
references and every change finalization made are stored with the answer.

A line (see docs/formats.md):
    {"answer_id": "a-77", "question": "...", "text": "raw answer with [1] citations ...",
     "sources": [{"title": "...", "year": 2021, "authors": ["..."], "url": "...",
                  "venue": "...", "doi": "...", "snippet": "..."}],
     "model": "name"}

Many answer sets list their sources at the foot of the text instead, as `[n] URL` lines
(`[n] Title - URL`, `[n]: URL "Title"`, …): a line without "sources" has them read from
there (`grounding.sources.parse_source_list`), the list taken off the text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from grounding.citations import finalize
from grounding.sources import InvalidSourceListError, parse_source_list
from review.adapters.jsonl import (
    MISSING,
    Checker,
    ImportResult,
    LineProblems,
    import_lines,
    rows_with_children,
)
from review.models import Answer, AnswerReference

MAX_ID = Answer._meta.get_field("answer_id").max_length
MAX_MODEL = Answer._meta.get_field("model").max_length
MAX_DOI = AnswerReference._meta.get_field("doi").max_length
SOURCE_TEXT_FIELDS = ("url", "venue", "doi", "snippet")


@dataclass(frozen=True)
class AnswerRecord:
    answer_id: str
    question: str
    text: str
    sources: tuple[dict, ...]
    model: str


def import_answers(
    lines: Iterable[str | bytes] | str | bytes,
    *,
    skip_invalid=False,
    on_line=None,
    max_lines=None,
    project_id: int | None = None,
) -> ImportResult:
    """Import an answers file: all of it, or (with skip_invalid) its good lines.

    Raises ImportRefused listing every bad line. The same answer_id with the same
    content is left unchanged; with other content it is a bad line.
    """
    return import_lines(
        lines,
        parse=parse_answer,
        identify=lambda record: record.answer_id,
        model=Answer,
        prepare=prepare_answer,
        write=rows_with_children(AnswerReference, "answer"),
        skip_invalid=skip_invalid,
        kind="answer_id",
        on_line=on_line,
        max_lines=max_lines,
        project_id=project_id,
    )


def parse_answer(value: Any) -> AnswerRecord:
    """Check one line's JSON value strictly; raise LineProblems naming each fault."""
    check = Checker()
    if not check.object(
        value, "", required=("answer_id", "question", "text"), optional=("sources", "model")
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
    if "sources" in value:
        sources = _sources(check, value["sources"])
    else:
        sources = _listed_sources(check, fields)
    check.done()
    return AnswerRecord(sources=sources, **fields)


def _listed_sources(check: Checker, fields: dict) -> tuple[dict, ...]:
    """Sources listed as `[n] URL` lines at the foot of the text; the text keeps the rest."""
    if not isinstance(fields["text"], str):
        return ()
    try:
        body, listed = parse_source_list(fields["text"])
    except InvalidSourceListError as error:
        check.fail("text", f"its source list: {error}")
        return ()
    if not listed:
        check.fail("sources", "missing, and the text lists no sources as [n] URL lines at its end")
        return ()
    fields["text"] = body
    return tuple(source.as_source() for source in listed)


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


def prepare_answer(
    record: AnswerRecord, sha256: str, project_id: int
) -> tuple[Answer, list[AnswerReference]]:
    """The unsaved rows of a new answer: finalization runs here, once."""
    try:
        result = finalize(record.text, record.sources)
    except ValueError as exc:
        raise LineProblems(f"finalization refused the answer: {exc}") from exc
    answer = Answer(
        project_id=project_id,
        answer_id=record.answer_id,
        question=record.question,
        raw_text=record.text,
        body=result.body,
        model=record.model,
        sources=list(record.sources),
        changes=result.to_dict(),
        changed=result.changed,
        **{f"change_{kind}": True for kind in result.change_kinds},
        source_sha256=sha256,
    )
    references = [
        AnswerReference(
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
    ]
    return answer, references
