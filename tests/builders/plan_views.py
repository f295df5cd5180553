"""Builders for the plan pages' tests: a handbook with N sections, proposed through the same
door the upload form uses."""

from __future__ import annotations

from review.adapters.plans import propose_document
from review.models import Entry, Plan


def handbook_text(sections: int, *, paragraphs: int = 2, title: str = "Handbook") -> str:
    """A Markdown handbook: a preamble no heading covers, then `sections` numbered sections."""
    parts = [f"# {title}\n\nThis preamble sits before the first numbered section.\n\n"]
    for number in range(1, sections + 1):
        parts.append(f"## {number} Section number {number}\n\n")
        for paragraph in range(1, paragraphs + 1):
            parts.append(
                f"Paragraph {paragraph} of section {number} says what section {number} "
                f"requires, in words an editor can read.\n\n"
            )
    return "".join(parts)


def make_plan(
    sections: int = 4, *, name: str = "handbook.md", actor=None, project=None, **options
) -> Plan:
    """A plan proposed in `project` (a Project; None for "Default")."""
    text = handbook_text(sections, **options)
    project_id = project.pk if project is not None else None
    return propose_document(name, text.encode(), actor=actor, project_id=project_id)


def entries_of(plan: Plan) -> list[Entry]:
    return list(plan.entries.order_by("position"))
