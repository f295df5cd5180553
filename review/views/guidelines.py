"""A project's guidelines: the current text with its versions, one version (against the one
before it), the edit page, and the side panel the item pages show."""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import SafeString
from django.views.decorators.http import require_GET, require_http_methods

from grounding.guidelines import sections_for
from grounding.revisions import word_diff
from review.actions.guidelines import edit_guidelines, may_edit_guidelines
from review.forms import GuidelineForm
from review.markdown import render_markdown
from review.models import Guideline, Project
from review.refusals import ActionRefused, StaleEdit
from review.views.projects import current_project, project_url


@require_GET
def guidelines_page(request: HttpRequest) -> HttpResponse:
    project = current_project(request)
    versions = list(Guideline.objects.filter(project=project).select_related("author"))
    current = versions[0] if versions else None
    return render(
        request,
        "review/guidelines/page.html",
        {
            "project": project,
            "guideline": current,
            "body_html": render_markdown(current.text) if current else "",
            "versions": versions,
            "may_edit": may_edit_guidelines(request.user, project),
        },
    )


@require_GET
def guidelines_version(request: HttpRequest, version: int) -> HttpResponse:
    """One version as it was, and what it changed from the version before it."""
    project = current_project(request)
    rows = Guideline.objects.filter(project=project, version__in=[version - 1, version])
    found = {row.version: row for row in rows.select_related("author")}
    if version not in found:
        raise Http404("No such version of the guidelines.")
    guideline, previous = found[version], found.get(version - 1)
    return render(
        request,
        "review/guidelines/version.html",
        {
            "project": project,
            "guideline": guideline,
            "previous": previous,
            "body_html": render_markdown(guideline.text),
            "words": word_diff(previous.text, guideline.text) if previous else (),
        },
    )


@require_http_methods(["GET", "POST"])
def guidelines_edit(request: HttpRequest) -> HttpResponse:
    """The edit form, based on the current version; saving against an older one is refused
    (409) naming who saved since, with the text as typed kept in the form."""
    project = current_project(request)
    if not may_edit_guidelines(request.user, project):
        raise PermissionDenied("Only leads and staff edit the guidelines.")
    current = Guideline.objects.current_of(project)
    if request.method == "GET":
        based_on = current.version if current else 0
        form = GuidelineForm(
            initial={"text": current.text if current else "", "based_on": based_on}
        )
        return _edit_page(request, project, form, current)
    form = GuidelineForm(request.POST)
    if not form.is_valid():
        return _edit_page(request, project, form, current, status=422)
    try:
        edit_guidelines(project, actor=request.user, **form.cleaned_data)
    except StaleEdit as stale:
        return _edit_page(request, project, form, stale.current, status=409, error=str(stale))
    except ActionRefused as refused:
        return _edit_page(request, project, form, current, status=422, error=str(refused))
    return redirect(project_url(request, "guidelines"))


def _edit_page(request, project, form, current, *, status=200, error="") -> HttpResponse:
    context = {"project": project, "form": form, "current": current, "error": error}
    return render(request, "review/guidelines/edit.html", context, status=status)


# --- the side panel of an item's page -------------------------------------------------------


@dataclass(frozen=True)
class PanelSection:
    title: str
    html: SafeString
    about_this_kind: bool


def guidelines_panel(project: Project, kind: str) -> dict:
    """What the guidelines panel of an item's page draws: the current guidelines of the
    item's project, the sections about `kind` first (plans, cases, answers)."""
    current = Guideline.objects.current_of(project)
    sections = sections_for(kind, current.sections) if current else ()
    return {
        "guideline": current,
        "sections": [
            PanelSection(section.title, render_markdown(section.markdown), kind in section.kinds)
            for section in sections
        ],
        "page_url": reverse("guidelines", args=[project.slug]),
    }
