"""Plans as W3C Web Annotations, beside the plan JSON (`review.adapters.plans`).

Out: `export_annotations` is the adjudicated plan's frozen payload, and nothing else, as an
annotation collection (`grounding.web_annotation`): `export_plan` refuses any other plan, so a
proposal nobody looked at never leaves as annotations either.

In: `import_annotations` reads a collection as the proposal it stands for and imports that as
any plan proposed elsewhere is imported (`review.adapters.plans.import_plan`: the same checks,
its anchors located afresh in the stored text). The plan keeps the proposal it made, so a
second import of the same annotations gives the same plan back.
"""

from __future__ import annotations

import json

from grounding.segmentation import parse_segmentation_plan
from grounding.web_annotation import (
    SOURCE_PREFIX,
    AnnotationError,
    annotation_collection,
    proposal_from_collection,
)
from review.adapters.errors import ImportRefused
from review.adapters.plans import export_plan, import_plan, read_json_object
from review.models import Document, Plan


def export_annotations(plan: Plan, collection_id: str) -> str:
    """The adjudicated plan as a JSON-LD annotation collection identified by `collection_id`
    (an absolute address); PlanNotAdjudicable for any other plan, as `export_plan`."""
    frozen = parse_segmentation_plan(json.loads(export_plan(plan)))
    collection = annotation_collection(
        frozen, collection_id=collection_id, document_title=plan.document.name
    )
    return json.dumps(collection, ensure_ascii=False, indent=2) + "\n"


def import_annotations(document: Document, text: str | bytes, actor=None) -> Plan:
    """Store the proposal an annotation collection stands for as a plan for `document`, or
    refuse (ImportRefused, naming the annotation and the field) and store nothing."""
    _, collection = read_json_object(text, "the annotation collection", entries=_items)
    try:
        proposal = proposal_from_collection(collection)
    except AnnotationError as error:
        raise ImportRefused(str(error)) from error
    if proposal["source_sha256"] != document.sha256:
        raise ImportRefused(
            f"these annotations are of other bytes: their target is "
            f"{SOURCE_PREFIX}{proposal['source_sha256'][:12]}… but {document.name} has sha256 "
            f"{document.sha256[:12]}…; import them with the document they annotate"
        )
    return import_plan(document, json.dumps(proposal, ensure_ascii=False, indent=2) + "\n", actor)


def _items(collection: dict):
    first = collection.get("first")
    return first.get("items") if isinstance(first, dict) else None
