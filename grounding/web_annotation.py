"""Plans as W3C Web Annotations (the Web Annotation Data Model and Vocabulary), in JSON-LD.

Out: `annotation_collection` turns an *adjudicated* plan into an AnnotationCollection, one
Annotation per entry. Its target is the document, named as the plan names it (`urn:sha256:`
and the `source_sha256` of its bytes, with its title), refined by a TextQuoteSelector (the
anchor) and a TextPositionSelector (the span, in the text the plan's extractor made). Its body
is a list of TextualBody values, each with the purpose that says what it is:

    identifying  the entry's path          describing  its title
    tagging      one per rule              assessing   the decision (creator: who, created: when)
    commenting   the decision's note, when there is one

A proposed plan is refused: a proposal nobody looked at never leaves as if decided.

In: `proposal_from_collection` reads such a collection back as a *proposed* plan payload
(every entry PROPOSED, its rules from the tagging bodies). The assessing and commenting bodies
are never read: a decision made elsewhere is not one made here, so an import is always a
proposal for people to decide. Anything else malformed is refused with `AnnotationError`,
naming the annotation and the field.

Terms the W3C context (http://www.w3.org/ns/anno.jsonld) lacks are in `REVIEW_CONTEXT`, beside
it in the collection's `@context`: `title` (dcterms:title), `assessing` (oa:assessing, in the
model's vocabulary but missing from its context), and the extractor the positions count in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from grounding.segmentation import (
    PROPOSED_MARKER,
    PlanEntry,
    PlanError,
    SegmentationPlan,
    parse_segmentation_plan,
    shown_number,
)

ANNO_CONTEXT = "http://www.w3.org/ns/anno.jsonld"
# The media type the W3C's Web Annotation Protocol serves annotations with.
MEDIA_TYPE = f'application/ld+json; profile="{ANNO_CONTEXT}"'
# Our own terms: an absolute IRI each, so the collection expands with nothing left unmapped.
VOCABULARY = "urn:grounding-review:vocab#"
REVIEW_CONTEXT = {
    "review": VOCABULARY,
    "title": "dcterms:title",
    "assessing": "oa:assessing",
    "extractor": "review:extractor",
    "extractorVersion": "review:extractorVersion",
}
SOURCE_PREFIX = "urn:sha256:"

IDENTIFYING = "identifying"
DESCRIBING = "describing"
TAGGING = "tagging"
ASSESSING = "assessing"
COMMENTING = "commenting"
_READ_PURPOSES = frozenset({IDENTIFYING, DESCRIBING, TAGGING})
_IGNORED_PURPOSES = frozenset({ASSESSING, COMMENTING})
_HEX64 = re.compile(r"[0-9a-f]{64}")


class AnnotationError(ValueError):
    """A collection that is not one this project can read as a proposal. Names where."""

    def __init__(self, where: str, field: str, problem: str) -> None:
        super().__init__(f"{where}: field {field!r}: {problem}")
        self.where, self.field, self.problem = where, field, problem


# --- out --------------------------------------------------------------------------------


def annotation_collection(
    plan: SegmentationPlan, *, collection_id: str, document_title: str
) -> dict:
    """The adjudicated `plan` as an AnnotationCollection identified by `collection_id` (an
    absolute IRI); each annotation is `collection_id#entry-N`, N as the plan page numbers it."""
    if not plan.adjudicated:
        raise ValueError(
            "only an adjudicated plan is exported as annotations: this one is a proposal "
            "nobody has decided"
        )
    source = {"id": SOURCE_PREFIX + plan.source_sha256, "type": "Text", "title": document_title}
    annotations = [
        _annotation(f"{collection_id}#entry-{shown_number(index)}", entry, source)
        for index, entry in enumerate(plan.entries)
    ]
    return {
        "@context": [ANNO_CONTEXT, REVIEW_CONTEXT],
        "id": collection_id,
        "type": "AnnotationCollection",
        "label": f"Adjudicated segmentation of {document_title}",
        "creator": {"type": "Software", "name": plan.proposed_by},
        "generator": {"type": "Software", "name": "Grounding Review"},
        "extractor": plan.extractor_id,
        "extractorVersion": plan.extractor_version,
        "total": len(annotations),
        "first": {
            "id": f"{collection_id}#page-1",
            "type": "AnnotationPage",
            "startIndex": 0,
            "items": annotations,
        },
    }


def _annotation(annotation_id: str, entry: PlanEntry, source: dict) -> dict:
    decision = entry.adjudication
    decided_by = {"type": "Person", "nickname": decision.by}
    body = [
        _textual(IDENTIFYING, entry.path),
        _textual(DESCRIBING, entry.title),
        *(_textual(TAGGING, rule) for rule in entry.rules),
        {**_textual(ASSESSING, decision.decision), "creator": decided_by, "created": decision.at},
    ]
    if decision.note:
        body.append({**_textual(COMMENTING, decision.note), "creator": decided_by})
    start, end = entry.span
    return {
        "id": annotation_id,
        "type": "Annotation",
        "motivation": IDENTIFYING,
        "body": body,
        "target": {
            "type": "SpecificResource",
            "source": source,
            "selector": [
                {
                    "type": "TextQuoteSelector",
                    "exact": entry.anchor.quote,
                    "prefix": entry.anchor.prefix,
                    "suffix": entry.anchor.suffix,
                },
                {"type": "TextPositionSelector", "start": start, "end": end},
            ],
        },
    }


def _textual(purpose: str, value: str) -> dict:
    return {"type": "TextualBody", "purpose": purpose, "value": value}


# --- in ---------------------------------------------------------------------------------


def proposal_from_collection(collection: object) -> dict:
    """The proposed plan payload an annotation collection stands for (every entry PROPOSED),
    checked by `parse_segmentation_plan`; AnnotationError naming the annotation and field."""
    where = "collection"
    if not isinstance(collection, Mapping):
        raise AnnotationError(
            where, "(collection)", f"must be a JSON object, not {_kind(collection)}"
        )
    context = collection.get("@context")
    contexts = context if isinstance(context, list) else [context]
    if ANNO_CONTEXT not in contexts:
        raise AnnotationError(where, "@context", f"must name {ANNO_CONTEXT}")
    if collection.get("type") != "AnnotationCollection":
        raise AnnotationError(
            where, "type", f"must be 'AnnotationCollection', not {_show(collection.get('type'))}"
        )
    proposed_by = _mapping(collection, "creator", where).get("name")
    provenance = {
        "proposed_by": _string(proposed_by, where, "creator.name"),
        "extractor_id": _string(collection.get("extractor"), where, "extractor"),
        "extractor_version": _string(collection.get("extractorVersion"), where, "extractorVersion"),
    }
    page = _mapping(collection, "first", where)
    if page.get("next") is not None or collection.get("last") not in (None, page.get("id")):
        raise AnnotationError(
            where, "first.next", "the annotations must all be in the first page, embedded"
        )
    items = page.get("items")
    if not isinstance(items, list) or not items:
        raise AnnotationError(where, "first.items", f"must be a non-empty list, not {_kind(items)}")
    total = collection.get("total")
    if total is not None and total != len(items):
        raise AnnotationError(where, "total", f"is {_show(total)} but there are {len(items)}")
    read = [_entry(item, index) for index, item in enumerate(items)]
    sources = {source for source, _ in read}
    if len(sources) > 1:
        raise AnnotationError(
            where, "target.source", f"the annotations target {len(sources)} documents, not one"
        )
    payload = {
        "source_sha256": sources.pop().removeprefix(SOURCE_PREFIX),
        **provenance,
        "adjudicated": False,
        "entries": [entry for _, entry in read],
    }
    try:
        parse_segmentation_plan(payload)
    except PlanError as error:
        # The plan's words for it ("entry #3"), said of the annotation it came from.
        raise AnnotationError(
            error.where.replace("entry #", "annotation #", 1), error.field, error.problem
        ) from error
    return payload


def _entry(item: object, index: int) -> tuple[str, dict]:
    where = f"annotation #{shown_number(index)}"
    if isinstance(item, Mapping) and isinstance(item.get("id"), str):
        where = f"{where} ({item['id'][:80]!r})"
    if not isinstance(item, Mapping):
        raise AnnotationError(where, "(annotation)", f"must be a JSON object, not {_kind(item)}")
    if item.get("type") != "Annotation":
        raise AnnotationError(where, "type", f"must be 'Annotation', not {_show(item.get('type'))}")
    target = _mapping(item, "target", where)
    source = target.get("source")
    source_id = source.get("id") if isinstance(source, Mapping) else source
    if not isinstance(source_id, str) or not (
        source_id.startswith(SOURCE_PREFIX) and _HEX64.fullmatch(source_id[len(SOURCE_PREFIX) :])
    ):
        raise AnnotationError(
            where,
            "target.source",
            f"must be the document as {SOURCE_PREFIX}<64 lower-case hex digits>, "
            f"not {_show(source_id)}",
        )
    selectors = _by_type(target.get("selector"), where, "target.selector")
    quote = _one(selectors, "TextQuoteSelector", where, "target.selector")
    position = _one(selectors, "TextPositionSelector", where, "target.selector")
    anchor = {
        key: _string(quote.get(name), where, f"TextQuoteSelector.{name}", blank=True)
        for key, name in (("quote", "exact"), ("prefix", "prefix"), ("suffix", "suffix"))
    }
    span = [_offset(position, name, where) for name in ("start", "end")]
    purposes = _purposes(item.get("body"), where)
    return source_id, {
        "path": _only_value(purposes, IDENTIFYING, where, "the entry's path"),
        "title": _only_value(purposes, DESCRIBING, where, "the entry's title"),
        "span": span,
        "anchor": anchor,
        "derived": [PROPOSED_MARKER, *purposes.get(TAGGING, [])],
    }


def _purposes(body: object, where: str) -> dict[str, list[str]]:
    """The body's values by purpose, in order; the decision's are checked for shape only."""
    values: dict[str, list[str]] = {}
    for index, item in enumerate(body if isinstance(body, list) else [body]):
        field = f"body[{index}]"
        if not isinstance(item, Mapping) or item.get("type") != "TextualBody":
            raise AnnotationError(where, field, "must be a TextualBody object")
        purpose = item.get("purpose")
        if purpose not in _READ_PURPOSES | _IGNORED_PURPOSES:
            known = ", ".join(sorted(_READ_PURPOSES | _IGNORED_PURPOSES))
            raise AnnotationError(
                where, f"{field}.purpose", f"must be one of {known}, not {_show(purpose)}"
            )
        value = _string(item.get("value"), where, f"{field}.value", blank=True)
        values.setdefault(purpose, []).append(value)
    return values


def _only_value(purposes: dict[str, list[str]], purpose: str, where: str, what: str) -> str:
    found = purposes.get(purpose, [])
    if len(found) != 1:
        raise AnnotationError(
            where,
            "body",
            f"needs one TextualBody with purpose {purpose!r} ({what}), not {len(found)}",
        )
    return found[0]


def _by_type(value: object, where: str, field: str) -> dict[str, list[Mapping]]:
    found: dict[str, list[Mapping]] = {}
    for item in value if isinstance(value, list) else [value]:
        if not isinstance(item, Mapping):
            raise AnnotationError(where, field, f"must hold objects, not {_kind(item)}")
        found.setdefault(str(item.get("type")), []).append(item)
    return found


def _one(found: dict[str, list[Mapping]], kind: str, where: str, field: str) -> Mapping:
    items = found.get(kind, [])
    if len(items) != 1:
        raise AnnotationError(where, field, f"needs one {kind}, not {len(items)}")
    return items[0]


def _mapping(raw: Mapping, name: str, where: str) -> Mapping:
    value = raw.get(name)
    if not isinstance(value, Mapping):
        raise AnnotationError(where, name, f"must be an object, not {_kind(value)}")
    return value


def _string(value: object, where: str, field: str, *, blank: bool = False) -> str:
    if not isinstance(value, str) or (not blank and not value.strip()):
        wanted = "a string" if blank else "a non-blank string"
        raise AnnotationError(where, field, f"must be {wanted}, not {_show(value)}")
    return value


def _offset(selector: Mapping, name: str, where: str) -> int:
    value = selector.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise AnnotationError(
            where,
            f"TextPositionSelector.{name}",
            f"must be a whole number, 0 or more, not {_show(value)}",
        )
    return value


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _show(value: object) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
