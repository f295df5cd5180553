"""/invitations/<token>/: the page a mailed invitation leads to. Someone signed out makes an
account there and joins; someone signed in joins with theirs. A link that no longer works says
why: 404 for one nobody sent, 410 for one used, expired or void."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from review.actions.invitations import InvitationGone, accept_invitation, accept_with_new_account
from review.forms import InvitedAccountForm
from review.models import Invitation
from review.refusals import ActionRefused
from review.views import HtmxHttpRequest

UNKNOWN = "No invitation has this link. Check that it was copied whole from the mail."


def _gone(request: HtmxHttpRequest, reason: str, status: int) -> HttpResponse:
    heading = "This invitation no longer works" if status == 410 else "No such invitation"
    context = {"heading": heading, "reason": reason}
    return render(request, "review/invitations/gone.html", context, status=status)


@login_not_required
@require_http_methods(["GET", "POST"])
def invitation(request: HtmxHttpRequest, token: str) -> HttpResponse:
    found = Invitation.objects.select_related("project", "invited_by").with_token(token)
    if found is None:
        return _gone(request, UNKNOWN, 404)
    if reason := found.refusal(timezone.now()):
        return _gone(request, reason, 410)
    signed_in = request.user.is_authenticated
    form = None if signed_in else InvitedAccountForm(request.POST or None, email=found.email)
    context = {"invitation": found, "form": form}
    if request.method == "GET" or (form is not None and not form.is_valid()):
        status = 200 if request.method == "GET" else 422
        return render(request, "review/invitations/accept.html", context, status=status)
    try:
        if signed_in:
            accept_invitation(found, request.user, request=request)
        else:
            data = form.cleaned_data
            user = accept_with_new_account(
                found, data["username"], data["password1"], request=request
            )
            login(request, user, backend="review.backends.PasswordBackend")
    except InvitationGone as gone:
        return _gone(request, str(gone), 410)
    except ActionRefused as refused:
        field = getattr(refused, "field", None)
        if form is not None and field in form.fields:
            form.add_error(field, str(refused))
        else:
            context["refusal"] = str(refused)
        return render(request, "review/invitations/accept.html", context, status=409)
    messages.success(request, f"You are a member of {found.project} now.")
    return redirect("dashboard")
