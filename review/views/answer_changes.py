"""What the answer page shows of finalization: every change it made to the model's text,
read back from the record `grounding.citations.finalize` stored at import."""

from __future__ import annotations

from dataclasses import dataclass

from grounding.citations import (
    AddedCitation,
    Backfill,
    Finalization,
    PhantomCitation,
    SyntaxRewrite,
    added_citation_spans,
)
from review.models import Answer

# Characters of raw text shown on each side of a dropped phantom citation.
CONTEXT_CHARS = 40


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
    # Backfills that stand in for phantom citations: told first, as "replaced, unverified".
    replacements: tuple[Backfill, ...]
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


def added_citations(answer: Answer) -> list[AddedCitation]:
    """The citations finalization added to the answer's body, for the page to mark."""
    return added_citation_spans(finalization(answer)) if answer.changes else []


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
        replacements=result.replacements,
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
