"""/projects/<slug>/webhooks/: a project's webhooks, for its leads and staff: register one (its
secret shown once), its delivery log with "send again", disable or enable it, delete it. Each
change is an action of `review.actions.webhooks`, in the project's decision log."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from review.actions.webhooks import delete_endpoint, redeliver, register_endpoint
from review.actions.webhooks import set_endpoint_enabled as set_enabled
from review.decisions import ActionRefused
from review.forms import WebhookForm
from review.models import Project, WebhookDelivery, WebhookEndpoint
from review.views import HtmxHttpRequest
from review.views.deciding import panel_outcome, respond_to_decision
from review.views.projects import project_worked_in
from review.webhooks.events import EVENT_TYPES

# The newest deliveries an endpoint's page lists.
LOGGED = 100


def _get_project_for_manager(request: HtmxHttpRequest, slug: str) -> Project:
    """The project whose webhooks `request.user` manages: 404 to someone who cannot tell it
    exists (not a member), 403 to a member who is not one of its leads."""
    project = project_worked_in(request.user, slug)
    if project is None:
        raise Http404("No such project.")
    if not project.webhooks_managed_by(request.user):
        raise PermissionDenied("Only staff and the project's leads manage its webhooks.")
    return project


def _get_endpoint(project: Project, pk: int) -> WebhookEndpoint:
    # Another project's endpoint is not found here, whoever asks.
    return get_object_or_404(WebhookEndpoint, project=project, pk=pk)


def _list_page(
    request: HtmxHttpRequest, project: Project, form=None, status: int = 200, **extra
) -> HttpResponse:
    endpoints = WebhookEndpoint.objects.filter(project=project).order_by("pk")
    context = {
        "project": project,
        "endpoints": endpoints,
        "form": form or WebhookForm(),
        "event_labels": EVENT_TYPES,
        **extra,
    }
    return render(request, "review/projects/webhooks.html", context, status=status)


@require_GET
def webhook_list(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    return _list_page(request, _get_project_for_manager(request, slug))


@never_cache  # the secret is on this page, once: no cache may keep it
@require_POST
def webhook_new(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    project = _get_project_for_manager(request, slug)
    form = WebhookForm(request.POST)
    if not form.is_valid():
        return _list_page(request, project, form, status=422)
    try:
        endpoint, secret = register_endpoint(project, actor=request.user, **form.cleaned_data)
    except ActionRefused as refused:
        form.add_error("url", str(refused))
        return _list_page(request, project, form, status=422)
    return _list_page(request, project, status=201, made=endpoint, secret=secret)


def _endpoint_page(
    request: HtmxHttpRequest, project: Project, endpoint: WebhookEndpoint, status=200, **outcome
) -> HttpResponse:
    deliveries = WebhookDelivery.objects.filter(endpoint=endpoint).select_related("event")
    context = {
        "project": project,
        "endpoint": endpoint,
        "deliveries": deliveries.order_by("-event_id")[:LOGGED],
        "logged": LOGGED,
        "event_labels": EVENT_TYPES,
        **panel_outcome(request, **outcome),
    }
    return render(request, "review/projects/webhook.html", context, status=status)


@require_GET
def webhook_detail(request: HtmxHttpRequest, slug: str, pk: int) -> HttpResponse:
    project = _get_project_for_manager(request, slug)
    return _endpoint_page(request, project, _get_endpoint(project, pk))


def _respond(request: HtmxHttpRequest, project: Project, endpoint: WebhookEndpoint, act, done):
    """Answer an endpoint's decision as every decision is answered; the page redrawn with the
    endpoint as it is now after a refusal or a conflict."""

    def redraw(status, decision=None, **outcome):
        endpoint.refresh_from_db()
        return _endpoint_page(request, project, endpoint, status=status, **outcome)

    return respond_to_decision(request, act, redraw=redraw, done_url=done)


@require_POST
def webhook_enabled(request: HtmxHttpRequest, slug: str, pk: int) -> HttpResponse:
    project = _get_project_for_manager(request, slug)
    endpoint = _get_endpoint(project, pk)
    enabled = request.POST.get("enabled") == "1"

    def act(version: int):
        decision = set_enabled(endpoint, enabled, actor=request.user, expected_version=version)
        messages.success(request, f"The webhook is {'enabled' if enabled else 'disabled'}.")
        return decision

    page = reverse("project-webhook", kwargs={"slug": project.slug, "pk": endpoint.pk})
    return _respond(request, project, endpoint, act, lambda: page)


@require_POST
def webhook_delete(request: HtmxHttpRequest, slug: str, pk: int) -> HttpResponse:
    project = _get_project_for_manager(request, slug)
    endpoint = _get_endpoint(project, pk)

    def act(version: int):
        decision = delete_endpoint(endpoint, actor=request.user, expected_version=version)
        messages.success(request, f"The webhook to {endpoint.url} is deleted.")
        return decision

    done = reverse("project-webhooks", kwargs={"slug": project.slug})
    return _respond(request, project, endpoint, act, lambda: done)


@require_POST
def webhook_redeliver(request: HtmxHttpRequest, slug: str, pk: int, delivery: int) -> HttpResponse:
    project = _get_project_for_manager(request, slug)
    endpoint = _get_endpoint(project, pk)
    found = get_object_or_404(WebhookDelivery.objects.select_related("endpoint"), pk=delivery)
    if found.endpoint_id != endpoint.pk:
        raise Http404("No such delivery of this webhook.")

    def act(version: int):
        decision = redeliver(found, actor=request.user, expected_version=version)
        messages.success(request, f"Event {found.event_id} will be sent again.")
        return decision

    page = reverse("project-webhook", kwargs={"slug": project.slug, "pk": endpoint.pk})
    return _respond(request, project, endpoint, act, lambda: page)
