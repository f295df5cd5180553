"""Imports: a plan proposed elsewhere (as plan JSON, W3C Web Annotations or a Label Studio
export), moderation cases, answers. The one way every door (the upload form, the API, a job, a
command) imports; each action asks who acts, as `review.actions.documents` does, then calls the
adapter, which refuses bad input (ImportRefused) and then stores nothing."""

from __future__ import annotations

from collections.abc import Iterable

from review.actions.documents import acting_user
from review.adapters import annotations, answers, cases, label_studio, plans
from review.adapters.jsonl import ImportResult
from review.models import Document, Plan
from review.permissions import (
    can_decide_answers,
    can_decide_cases,
    can_decide_plans,
    project_id_of,
)

Lines = Iterable[str | bytes] | str | bytes


def import_plan(document: Document, payload_text: str | bytes, *, actor) -> Plan:
    """Store a plan proposed elsewhere for `document`; see
    `review.adapters.plans.import_plan`. The editors of the document's project only: the
    plan is of that project."""
    user = acting_user(actor, can_decide_plans, "only Editors import plans", document.project_id)
    return plans.import_plan(document, payload_text, actor=user)


def import_annotations(document: Document, text: str | bytes, *, actor) -> Plan:
    """Store the proposal a W3C Web Annotation collection stands for as a plan for
    `document`; see `review.adapters.annotations.import_annotations`. Whoever may import a
    plan: it is one."""
    user = acting_user(actor, can_decide_plans, "only Editors import plans", document.project_id)
    return annotations.import_annotations(document, text, actor=user)


def import_label_studio(document: Document, text: str | bytes, *, actor) -> Plan:
    """Store the labelling a Label Studio export holds for `document` as a proposed plan; see
    `review.adapters.label_studio.import_label_studio`. Whoever may import a plan: it is one."""
    user = acting_user(actor, can_decide_plans, "only Editors import plans", document.project_id)
    return label_studio.import_label_studio(document, text, actor=user)


def import_cases(
    lines: Lines, *, actor, project, skip_invalid=False, on_line=None, max_lines=None
) -> ImportResult:
    """Import a cases file into `project`, whole or (with skip_invalid) its good lines; see
    `review.adapters.cases.import_cases`. The project's moderators only."""
    acting_user(actor, can_decide_cases, "only Moderators import cases", project)
    return cases.import_cases(
        lines,
        skip_invalid=skip_invalid,
        on_line=on_line,
        max_lines=max_lines,
        project_id=project_id_of(project),
    )


def import_answers(
    lines: Lines, *, actor, project, skip_invalid=False, on_line=None, max_lines=None
) -> ImportResult:
    """Import an answers file into `project`, whole or (with skip_invalid) its good lines;
    see `review.adapters.answers.import_answers`. The project's editors only: publishing is
    theirs."""
    acting_user(actor, can_decide_answers, "only Editors import answers", project)
    return answers.import_answers(
        lines,
        skip_invalid=skip_invalid,
        on_line=on_line,
        max_lines=max_lines,
        project_id=project_id_of(project),
    )
