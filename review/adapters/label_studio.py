"""Plans as Label Studio tasks, beside the plan JSON (`review.adapters.plans`) and the W3C Web
Annotations (`review.adapters.annotations`).

Out: `export_label_studio` is the adjudicated plan's frozen payload, and nothing else, as one
Label Studio task over the document's stored text (`grounding.label_studio`): `export_plan`
refuses any other plan, so a proposal nobody looked at never leaves for Label Studio either.

In: `import_label_studio` reads Label Studio's JSON export, finds the task whose text is the
document's stored text, and imports the labelling it holds as a proposal made on that text
(`review.adapters.plans.import_plan`: the same checks, every anchor quoting its span). A second
import of the same export gives the same plan back.
"""

from __future__ import annotations

import json

from grounding.label_studio import LabelStudioError, label_studio_tasks, proposal_from_tasks
from grounding.segmentation import parse_segmentation_plan
from review.adapters.errors import ImportRefused
from review.adapters.plans import export_plan, import_plan, read_json_object
from review.models import Document, Plan


def export_label_studio(plan: Plan) -> str:
    """The adjudicated plan as Label Studio's JSON import (a list of one task);
    PlanNotAdjudicable for any other plan, as `export_plan`."""
    frozen = parse_segmentation_plan(json.loads(export_plan(plan)))
    tasks = label_studio_tasks(frozen, text=plan.document.text, document_title=plan.document.name)
    return json.dumps(tasks, ensure_ascii=False, indent=2) + "\n"


def import_label_studio(document: Document, text: str | bytes, actor=None) -> Plan:
    """Store the proposal the export's task for `document` stands for as a plan, or refuse
    (ImportRefused, naming the task, the region and the field) and store nothing."""
    # Its size is bounded by the upload's; the regions read are counted as a plan's entries
    # are, when the proposal is imported.
    _, tasks = read_json_object(
        text, "the Label Studio export", entries=lambda tasks: None, top=list
    )
    try:
        proposal = proposal_from_tasks(
            tasks,
            text=document.text,
            source_sha256=document.sha256,
            extractor_id=document.extractor_id,
            extractor_version=document.extractor_version,
            document_title=document.name,
        )
    except LabelStudioError as error:
        raise ImportRefused(str(error)) from error
    return import_plan(document, json.dumps(proposal, ensure_ascii=False, indent=2) + "\n", actor)
