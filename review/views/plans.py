"""The plans list: every plan with its progress, the three forms (a document to propose on, a
stored document proposed again with other options, or a plan proposed elsewhere), and the
warning for paths that several documents claim.

Everyone logged in may read; only Editors (and staff) upload, and anyone else gets 403.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from review.actions.documents import propose_document
from review.actions.imports import import_annotations, import_label_studio, import_plan
from review.actions.leases import with_holders
from review.adapters.errors import ImportRefused
from review.adapters.plans import colliding_paths, collision_count
from review.forms import DocumentUploadForm, PlanUploadForm, ProposeAgainForm
from review.jobs import runs_in_background, start_job
from review.models import Job, Lease, Plan
from review.permissions import can_decide_plans, can_lead, is_member
from review.views.lists import order_keys, shown_page
from review.views.projects import current_project, in_current_project, project_url

# --- the list --------------------------------------------------------------------------------


# A page of the list; the page after it starts past the last plan shown (keyset pages, so
# the last page costs what the first does).
PLANS_PER_PAGE = 50
# Colliding paths named above the list, and documents named for each.
COLLISIONS_SHOWN = 20
COLLIDING_DOCUMENTS_SHOWN = 10
COLLISIONS_COUNTED = 1000


@require_GET
def plan_list(request: HttpRequest) -> HttpResponse:
    return _render_list(request)


def _plan_form(request: HttpRequest, *args) -> PlanUploadForm:
    return PlanUploadForm(*args, project=current_project(request))


def _again_form(request: HttpRequest, *args) -> ProposeAgainForm:
    # Its own ids: the import form beside it names a stored document too.
    return ProposeAgainForm(*args, project=current_project(request), auto_id="again-%s")


# The filter that shows every plan, superseded ones too.
ALL = "all"
# The list's order, newest first; the id makes it total, as keyset pages need.
LIST_KEYS = order_keys(Plan, ("-created_at", "-pk"))


def _render_list(
    request, document_form=None, plan_form=None, again_form=None, status: int = 200
) -> HttpResponse:
    status_filter = request.GET.get("status", "")
    project = current_project(request)
    plans = (
        # Double review: each editor's own copy is not a plan of the list.
        in_current_project(request, Plan.objects.filter(review_of__isnull=True))
        .select_related("document")
        .only(
            "pk",
            "status",
            "created_at",
            "proposed_by",
            "options",
            "document__name",
            "document__revision",
            *Plan.COUNTER_FIELDS,
        )
    )
    if status_filter in Plan.Status.values:
        plans = plans.filter(status=status_filter)
    elif status_filter != ALL:
        # Superseded plans are kept, and shown when asked for; by default, the plans that
        # still stand for their document.
        status_filter = ""
        plans = plans.not_superseded()
    page = shown_page(request, with_holders(plans, Lease.Queue.PLANS), LIST_KEYS, PLANS_PER_PAGE)
    collisions, counted = [], 0
    if is_member(request.user, project):
        collisions = colliding_paths(project, COLLISIONS_SHOWN, COLLIDING_DOCUMENTS_SHOWN)
        counted = collision_count(project, COLLISIONS_COUNTED) if collisions else 0
    context = {
        "rows": [(plan, plan.counts) for plan in page.object_list],
        "page": page,
        "statuses": [*Plan.Status.choices, (ALL, "All")],
        "status_filter": status_filter,
        "collisions": collisions,
        "collision_count": counted,
        "collisions_more": counted - len(collisions),
        "collisions_counted": COLLISIONS_COUNTED,
        "can_decide": can_decide_plans(request.user, project),
        "can_lead": can_lead(request.user, project),
        "next_url": project_url(request, "plans-next"),
        "document_form": document_form or DocumentUploadForm(),
        "plan_form": plan_form or _plan_form(request),
        "again_form": again_form or _again_form(request),
    }
    return render(request, "review/plans/list.html", context, status=status)


@require_POST
def upload_document(request: HttpRequest) -> HttpResponse:
    form = _editors_form(request, DocumentUploadForm, refusal="Only editors propose plans.")
    if form.is_valid():
        upload = form.cleaned_data["file"]
        proposed = _propose(request, form, upload.name, upload.read())
        if proposed is not None:
            return proposed
    return _render_list(request, document_form=form, status=422)


@require_POST
def propose_again(request: HttpRequest) -> HttpResponse:
    """A stored document proposed again with other options: what the API's propose does."""
    form = _editors_form(
        request, partial(_again_form, request), refusal="Only editors propose plans."
    )
    if form.is_valid():
        document = form.cleaned_data["document"]
        proposed = _propose(request, form, document.name, bytes(document.data))
        if proposed is not None:
            return proposed
    return _render_list(request, again_form=form, status=422)


def _propose(request: HttpRequest, form, name: str, data: bytes) -> HttpResponse | None:
    """The proposer on `data` with the form's options: the plan's page, or the job's for a
    large document; None with the refusal an error of the form."""
    project, options = current_project(request), form.options()
    if runs_in_background(Job.Kind.PROPOSE, name, data):
        job = start_job(
            Job.Kind.PROPOSE, request.user, project=project, name=name, data=data, options=options
        )
        return redirect(project_url(request, "job", job.pk))
    return _stored_plan(
        request,
        form,
        lambda: propose_document(name, data, actor=request.user, project=project, **options),
        done="Proposed",
    )


@require_POST
def upload_plan(request: HttpRequest) -> HttpResponse:
    plan_form = partial(PlanUploadForm, project=current_project(request))
    form = _editors_form(request, plan_form, refusal="Only editors import plans.")
    if form.is_valid():
        document, payload = form.cleaned_data["document"], form.cleaned_data["file"].read()
        importer = _IMPORTERS.get(form.cleaned_data["format"], import_plan)
        stored = _stored_plan(
            request,
            form,
            lambda: importer(document, payload, actor=request.user),
            done="Imported",
        )
        if stored is not None:
            return stored
    return _render_list(request, plan_form=form, status=422)


# What the upload form's "Format" imports with; "Plan JSON" when none is chosen.
_IMPORTERS = {
    PlanUploadForm.ANNOTATIONS: import_annotations,
    PlanUploadForm.LABEL_STUDIO: import_label_studio,
}


def _editors_form(request: HttpRequest, form_class, *, refusal: str):
    """The upload form as posted, for an editor of the project worked in; 403 saying
    `refusal` to anyone else."""
    if not can_decide_plans(request.user, current_project(request)):
        raise PermissionDenied(refusal)
    return form_class(request.POST, request.FILES)


def _stored_plan(request: HttpRequest, form, store: Callable[[], Plan], *, done: str):
    """The redirect to the plan `store()` made, said in a message beginning with `done`; or
    None, with each reason it was refused an error of the form."""
    try:
        plan = store()
    except ImportRefused as refused:
        for problem in refused.problems:
            form.add_error(None, problem)
        return None
    messages.success(request, f"{done} a plan for {plan.document.label}.")
    return redirect(project_url(request, "plan", plan.pk))
