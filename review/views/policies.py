"""/policies/: staff set each queue's review policy (single or double review); and the old
"Review next" address, which sends a person on to the queue's Next."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from review.actions.reviews import policy_for, set_policy
from review.decisions import ActionRefused, StaleVersion
from review.forms import ReviewPolicyForm
from review.models import ReviewPolicy
from review.views.projects import current_project, project_url


def _forms(request: HttpRequest, bound: ReviewPolicyForm | None = None) -> list:
    forms = []
    for queue, label in ReviewPolicy.Queue.choices:
        policy = policy_for(queue, current_project(request))
        form = bound if bound is not None and bound.prefix == queue else None
        forms.append((queue, label, policy, form or ReviewPolicyForm.for_policy(policy)))
    return forms


@require_http_methods(["GET", "POST"])
def policies(request: HttpRequest, queue: str = "") -> HttpResponse:
    if not request.user.is_staff:
        raise PermissionDenied("Only staff set review policies.")
    if request.method == "GET":
        return render(request, "review/policies.html", {"forms": _forms(request)})
    if queue not in ReviewPolicy.Queue.values:
        raise Http404("No such queue.")
    form = ReviewPolicyForm(request.POST, prefix=queue)
    if form.is_valid():
        try:
            set_policy(
                queue,
                project=current_project(request),
                actor=request.user,
                expected_version=form.cleaned_data["version"],
                **form.policy_changes(),
            )
        except (ActionRefused, StaleVersion) as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(request, f"The {queue} policy is saved.")
            return redirect(project_url(request, "policies"))
    context = {"forms": _forms(request, form)}
    return render(request, "review/policies.html", context, status=422)


@require_GET
def review_next(request: HttpRequest, queue: str) -> HttpResponse:
    """The old "Review next" address: the queue's own Next now hands out first and second
    reviews and curation alike, under a lease, so this sends people there."""
    if queue not in ReviewPolicy.Queue.values:
        raise Http404("No such queue.")
    return redirect(project_url(request, f"{queue}-next"))
