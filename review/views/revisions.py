"""A document's revisions: the page of one revision (the change from the revision before, by
paragraph, beside the entries it touched) and the upload of a new revision, which carries the
latest plan onto it.

Everyone logged in may read; only Editors (and staff) upload.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from grounding.revisions import RevisionError, paragraph_diff
from review.actions.revisions import add_revision
from review.adapters.errors import ImportRefused
from review.adapters.revisions import latest_revision
from review.forms import RevisionUploadForm
from review.models import Document, Plan
from review.permissions import can_decide_plans
from review.views.projects import project_url


def _get_document_for_user(request: HttpRequest, pk: int, *, upload: bool = False) -> Document:
    document = get_object_or_404(Document.objects.select_related("revision_of"), pk=pk)
    if not document.visible_to(request.user):
        raise Http404("No such document.")
    if upload and not can_decide_plans(request.user, document.project_id):
        raise PermissionDenied("Only editors add revisions.")
    return document


@require_GET
def revision_detail(request: HttpRequest, pk: int) -> HttpResponse:
    document = _get_document_for_user(request, pk)
    return _render_revision(request, document, RevisionUploadForm())


@require_POST
def revision_upload(request: HttpRequest, pk: int) -> HttpResponse:
    document = _get_document_for_user(request, pk, upload=True)
    form = RevisionUploadForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            revised = add_revision(document, upload.name, upload.read(), actor=request.user)
        except ImportRefused as refused:
            for problem in refused.problems:
                form.add_error(None, problem)
        else:
            messages.success(request, _stored_message(revised))
            return redirect(project_url(request, "revision", revised.revision.pk))
    return _render_revision(request, document, form, status=422)


def _stored_message(revised) -> str:
    revision, plan = revised.revision, revised.plan
    if plan is None:
        return (
            f"Stored revision {revision.revision}; no plan was carried onto it (the revision "
            "before had none, or none of its text is left)."
        )
    entries = list(plan.entries.all())
    need = sum(entry.needs_a_person for entry in entries)
    return (
        f"Stored revision {revision.revision} and carried plan {plan.carried_from_id} onto it as "
        f"plan {plan.pk}: {len(revised.carried)} entries kept their decision, {need} of "
        f"{len(entries)} entries need you, {len(plan.options.get('gone', []))} gone."
    )


def _render_revision(request, document: Document, form, status: int = 200) -> HttpResponse:
    previous = document.revision_of
    changes, diff_problem = (), ""
    if previous is not None:
        try:
            changes = paragraph_diff(previous.text, document.text)
        except RevisionError as error:
            diff_problem = str(error)
    plan = (
        Plan.objects.filter(document=document, carried_from__isnull=False)
        .order_by("-created_at", "-pk")
        .first()
    )
    latest = latest_revision(document)
    context = {
        "document": document,
        "previous": previous,
        "changes": changes,
        "diff_problem": diff_problem,
        "plan": plan,
        "touched": _touched(plan) if plan else {},
        "plans": Plan.objects.filter(document=document).order_by("-created_at", "-pk"),
        "line": _line(latest),
        "latest": latest,
        "can_upload": can_decide_plans(request.user, document.project_id) and latest == document,
        "form": form,
    }
    return render(request, "review/revisions/revision.html", context, status=status)


def _touched(plan: Plan) -> dict:
    """The carried plan's entries by what the change did to them."""
    entries = list(plan.entries.defer("proposed").order_by("position"))
    return {
        "need": [entry for entry in entries if entry.needs_a_person],
        "kept": [entry for entry in entries if entry.carried.get("fate") == "kept"],
        "new": [entry for entry in entries if entry.carried.get("fate") == "new"],
        "gone": plan.options.get("gone", []),
        "total": len(entries),
    }


def _line(latest: Document) -> list[Document]:
    """Every revision of the document, first to latest."""
    line = [latest]
    while line[-1].revision_of_id is not None:
        line.append(
            Document.objects.only("pk", "name", "revision", "revision_of").get(
                pk=line[-1].revision_of_id
            )
        )
    return line[::-1]
