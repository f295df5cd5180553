"""Editing a project's guidelines: each save adds the next version; none is overwritten."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction

from review import permissions
from review.models import Guideline, Project
from review.refusals import ActionRefused, StaleEdit

MAX_GUIDELINE_CHARS = 100_000


def may_edit_guidelines(user, project: Project) -> bool:
    """The project's leads (and staff) edit its guidelines."""
    return permissions.can_lead(user, project)


def edit_guidelines(
    project: Project, *, actor, based_on: int, text: str, summary: str = ""
) -> Guideline:
    """Save `text` as the project's next guidelines. `based_on` is the version the person
    edited (0 when there were none): if another was saved since, StaleEdit names who saved
    it and nothing is written."""
    if not may_edit_guidelines(actor, project):
        raise PermissionDenied("Only leads and staff edit the guidelines.")
    text = (text or "").strip()
    if len(text) > MAX_GUIDELINE_CHARS:
        raise ActionRefused(f"The guidelines are over {MAX_GUIDELINE_CHARS:,} characters long.")
    try:
        with transaction.atomic():
            # Two saves on one project wait for each other here (PostgreSQL); the unique
            # (project, version) catches what a database without row locks lets through.
            Project.objects.select_for_update().filter(pk=project.pk).exists()
            current = Guideline.objects.select_related("author").current_of(project)
            _ensure_based_on_current(current, based_on)
            if current is not None and current.text == text:
                raise ActionRefused("The guidelines are unchanged: there is nothing to save.")
            return Guideline.objects.create(
                project=project,
                version=based_on + 1,
                text=text,
                summary=(summary or "").strip()[:200],
                author=actor,
            )
    except IntegrityError:
        current = Guideline.objects.select_related("author").current_of(project)
        raise StaleEdit(current, _author_name(current)) from None


def _ensure_based_on_current(current: Guideline | None, based_on: int) -> None:
    if current is None and based_on:
        raise ActionRefused(f"The project has no guidelines version {based_on} to edit.")
    if current is not None and current.version != based_on:
        raise StaleEdit(current, _author_name(current))


def _author_name(guideline: Guideline | None) -> str:
    author = guideline.author if guideline else None
    return author.get_username() if author else "someone"
