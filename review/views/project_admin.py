"""/projects/: staff make projects; staff and a project's leads say who works in it, with
which roles, and invite people, withdraw and resend their invitations. Each change is an action
of `review.actions.projects` or `review.actions.invitations`, logged."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from review.actions.invitations import (
    InvitationGone,
    invite,
    resend_invitation,
    withdraw_invitation,
)
from review.actions.projects import (
    ProjectRefused,
    create_project,
    remove_membership,
    require_second_factor,
    set_membership,
)
from review.decisions import ActionRefused
from review.forms import (
    InvitationForm,
    MemberAddForm,
    MemberRolesForm,
    ProjectForm,
    ProjectSecondFactorForm,
)
from review.models import Invitation, Membership, Project, WebhookEndpoint
from review.views import HtmxHttpRequest
from review.views.deciding import panel_outcome, respond_to_decision
from review.views.projects import project_worked_in

STAFF_ONLY = "Only staff manage projects."
# The waiting invitations the members page lists, newest first (it says how many wait in all).
INVITATIONS_SHOWN = 100


def _refuse_unless_staff(request: HtmxHttpRequest) -> None:
    if not request.user.is_staff:
        raise PermissionDenied(STAFF_ONLY)


def _get_project_for_manager(request: HtmxHttpRequest, slug: str) -> Project:
    """The project whose members `request.user` manages: 404 to someone who cannot tell it
    exists (not a member), 403 to a member who is not one of its leads."""
    project = project_worked_in(request.user, slug)
    if project is None:
        raise Http404("No such project.")
    if not project.members_managed_by(request.user):
        raise PermissionDenied("Only staff and the project's leads manage its members.")
    return project


def _get_membership(project: Project, pk: int) -> Membership:
    return get_object_or_404(Membership.objects.select_related("user"), project=project, pk=pk)


def _get_invitation(project: Project, pk: int) -> Invitation:
    return get_object_or_404(Invitation.objects.select_related("project"), project=project, pk=pk)


@require_GET
def project_list(request: HtmxHttpRequest) -> HttpResponse:
    _refuse_unless_staff(request)
    projects = Project.objects.annotate(members=Count("memberships"))
    return render(request, "review/projects/list.html", {"projects": projects})


@require_http_methods(["GET", "POST"])
def project_new(request: HtmxHttpRequest) -> HttpResponse:
    _refuse_unless_staff(request)
    form = ProjectForm(request.POST if request.method == "POST" else None)
    if request.method == "GET" or not form.is_valid():
        status = 200 if request.method == "GET" else 422
        return render(request, "review/projects/new.html", {"form": form}, status=status)
    try:
        create_project(actor=request.user, **form.cleaned_data)
    except ActionRefused as refused:
        form.add_error(getattr(refused, "field", None), str(refused))
        return render(request, "review/projects/new.html", {"form": form}, status=422)
    messages.success(request, f"The project {form.cleaned_data['name']} is made.")
    return redirect("project-members", slug=form.cleaned_data["slug"])


def _members_page(
    request: HtmxHttpRequest,
    project: Project,
    *,
    status: int = 200,
    add_form: MemberAddForm | None = None,
    invite_form: InvitationForm | None = None,
    bound: MemberRolesForm | None = None,
    **outcome,
) -> HttpResponse:
    """The members page; `bound` is the roles form just sent (shown with what it said), and
    `outcome` a refusal or the other person's change (409) to show above the list."""
    rows = []
    pending = project.invitations.pending(timezone.now())
    for membership in project.memberships.select_related("user").order_by("user__username"):
        sent = bound is not None and bound.membership_pk == membership.pk
        rows.append((membership, bound if sent else MemberRolesForm.for_membership(membership)))
    context = {
        "project": project,
        "rows": rows,
        "add_form": add_form or MemberAddForm(),
        "invite_form": invite_form or InvitationForm(auto_id="invite-%s"),
        "invitations": pending.select_related("invited_by")[:INVITATIONS_SHOWN],
        "invitations_waiting": pending.count(),
        # A webhook the worker disabled is for the leads to see here too.
        "webhooks_disabled": WebhookEndpoint.objects.filter(project=project, enabled=False).count(),
        "second_factor_form": ProjectSecondFactorForm(
            initial={"require_second_factor": project.require_second_factor}
        ),
        **panel_outcome(request, **outcome),
    }
    return render(request, "review/projects/members.html", context, status=status)


@require_GET
def project_members(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    return _members_page(request, _get_project_for_manager(request, slug))


@require_POST
def member_add(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    project = _get_project_for_manager(request, slug)
    form = MemberAddForm(request.POST)
    if not form.is_valid():
        return _members_page(request, project, status=422, add_form=form)
    username = form.cleaned_data["username"]
    try:
        set_membership(project, username, actor=request.user, roles=form.roles())
    except ActionRefused as refused:
        field = refused.field if isinstance(refused, ProjectRefused) else None
        form.add_error(field, str(refused))
        return _members_page(request, project, status=422, add_form=form)
    messages.success(request, f"{username} is now a member of {project}.")
    return redirect("project-members", slug=project.slug)


@require_POST
def member_roles(request: HtmxHttpRequest, slug: str, pk: int) -> HttpResponse:
    project = _get_project_for_manager(request, slug)
    membership = _get_membership(project, pk)
    form = MemberRolesForm.for_membership(membership, request.POST)
    form.is_valid()  # the roles are checkboxes: absent is "not held"; the version is asked below

    def act(version: int):
        decision = set_membership(
            project,
            membership.user.username,
            actor=request.user,
            roles=form.roles(),
            expected_version=version,
        )
        messages.success(request, f"{membership.user}'s roles in {project} are saved.")
        return decision

    return respond_to_decision(
        request,
        act,
        # After a 409 the member's roles are drawn as they are now, with their new version.
        redraw=lambda status, decision=None, stale=None, **outcome: _members_page(
            request, project, status=status, bound=None if stale else form, stale=stale, **outcome
        ),
        done_url=lambda: reverse("project-members", kwargs={"slug": project.slug}),
    )


@require_POST
def member_remove(request: HtmxHttpRequest, slug: str, pk: int) -> HttpResponse:
    project = _get_project_for_manager(request, slug)
    membership = _get_membership(project, pk)

    def act(version: int):
        decision = remove_membership(membership, actor=request.user, expected_version=version)
        messages.success(request, f"{membership.user} is no longer a member of {project}.")
        return decision

    return respond_to_decision(
        request,
        act,
        redraw=lambda status, decision=None, **outcome: _members_page(
            request, project, status=status, **outcome
        ),
        # A lead who leaves the project can no longer open its members page.
        done_url=lambda: (
            reverse("project-members", kwargs={"slug": project.slug})
            if project.members_managed_by(request.user)
            else reverse("dashboard")
        ),
    )


@require_POST
def member_invite(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    project = _get_project_for_manager(request, slug)
    form = InvitationForm(request.POST, auto_id="invite-%s")
    if not form.is_valid():
        return _members_page(request, project, status=422, invite_form=form)
    try:
        invitation = invite(
            project,
            form.cleaned_data["email"],
            actor=request.user,
            roles=form.roles(),
            link_for=_link_for(request),
            request=request,
        )
    except ActionRefused as refused:
        form.add_error(getattr(refused, "field", None), str(refused))
        return _members_page(request, project, status=422, invite_form=form)
    messages.success(request, f"An invitation to {project} is mailed to {invitation.email}.")
    return redirect("project-members", slug=project.slug)


def _link_for(request: HtmxHttpRequest):
    return lambda token: request.build_absolute_uri(reverse("invitation", args=[token]))


@require_POST
def invitation_withdraw(request: HtmxHttpRequest, slug: str, pk: int) -> HttpResponse:
    project = _get_project_for_manager(request, slug)
    invitation = _get_invitation(project, pk)
    try:
        withdraw_invitation(invitation, actor=request.user, request=request)
    except InvitationGone as gone:
        return _members_page(request, project, status=409, refused=gone)
    messages.success(request, f"The invitation of {invitation.email} is withdrawn.")
    return redirect("project-members", slug=project.slug)


@require_POST
def invitation_resend(request: HtmxHttpRequest, slug: str, pk: int) -> HttpResponse:
    project = _get_project_for_manager(request, slug)
    invitation = _get_invitation(project, pk)
    try:
        resend_invitation(
            invitation, actor=request.user, link_for=_link_for(request), request=request
        )
    except ActionRefused as refused:
        status = 409 if isinstance(refused, InvitationGone) else 422
        return _members_page(request, project, status=status, refused=refused)
    messages.success(
        request, f"A new link is mailed to {invitation.email}; the one sent before no longer works."
    )
    return redirect("project-members", slug=project.slug)


@require_POST
def project_second_factor(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    _refuse_unless_staff(request)
    project = get_object_or_404(Project, slug=slug)
    form = ProjectSecondFactorForm(request.POST)
    form.is_valid()  # a checkbox: absent is "not required"
    required = form.cleaned_data["require_second_factor"]
    require_second_factor(project, required, actor=request.user)
    needs = "need" if required else "no longer need"
    messages.success(request, f"Members of {project} {needs} a second factor.")
    return redirect("project-members", slug=project.slug)
