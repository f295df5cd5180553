"""Which happenings are webhook events, and the outbox they go into.

An event is written in the transaction of what caused it, with one delivery per enabled
endpoint of its project that wants its type: it exists exactly when that committed (nothing
lost, nothing phantom), and nothing is written when no endpoint listens. The worker is told
only after the commit (`review.webhooks.delivery.send_after_commit`); a task lost on the way is
made up for by the worker's sweep.

Where each is caused, once: the decision log's one writer (`review.decisions._record`) hands
every row it appends to `on_decision`, which picks the plans adjudicated, the entries decided,
the cases' verdicts and the answers published or withdrawn; a revision carried is the
revisions action's (`review.actions.revisions.add_revision`), a job finished the worker's
(`review.jobs`).
"""

from __future__ import annotations

from django.db import transaction
from django.urls import reverse

from review.models import Answer, Decision, Job, Plan, WebhookDelivery, WebhookEndpoint
from review.models import WebhookEvent as Event

PLAN_ADJUDICATED = "plan.adjudicated"
ENTRY_DECIDED = "entry.decided"
CASE_SETTLED = "case.settled"
ANSWER_PUBLISHED = "answer.published"
ANSWER_WITHDRAWN = "answer.withdrawn"
REVISION_CARRIED = "revision.carried"
JOB_FINISHED = "job.finished"

# The types an endpoint may ask for, in the order the form lists them, with their labels.
EVENT_TYPES = {
    PLAN_ADJUDICATED: "A plan adjudicated",
    ENTRY_DECIDED: "An entry decided (or its decision undone)",
    CASE_SETTLED: "A case's verdict settled (or undone)",
    ANSWER_PUBLISHED: "An answer published",
    ANSWER_WITHDRAWN: "An answer withdrawn",
    REVISION_CARRIED: "A revision carried its plan",
    JOB_FINISHED: "A job finished (succeeded or failed)",
}

ANSWER_STATES = {Answer.State.PUBLISHED: ANSWER_PUBLISHED, Answer.State.WITHDRAWN: ANSWER_WITHDRAWN}
# An entry's carrying is the revision's event, not one per entry.
CARRY = "entry.carry"


def on_decision(decision: Decision, obj) -> Event | None:
    """The event `decision` (just appended, on `obj`) causes, if it is one and anyone wants
    it. In the decision's transaction."""
    kind = _event_type(decision, obj)
    if kind is None:
        return None
    target = obj.plan if decision.object_type == "entry" else obj
    return emit(
        decision.project_id,
        kind,
        obj=(decision.object_type, obj.pk),
        url=lambda slug: _url_of(target, slug),
        actor=decision.actor_name,
        at=decision.at,
        decision=decision.pk,
        action=decision.action,
        **_outcome(decision),
    )


def _event_type(decision: Decision, obj) -> str | None:
    after, before = decision.after, decision.before
    if decision.object_type == "plan" and decision.action == "plan.adjudicate":
        return PLAN_ADJUDICATED
    if decision.object_type == "entry" and "state" in after and decision.action != CARRY:
        # A review copy's entries are one reviewer's blind opinions; the plan's own entries
        # are settled from them (their decisions are events).
        return None if obj.plan.review_of_id else ENTRY_DECIDED
    # A first opinion, or a second that differs, leaves the verdict as it was: no event.
    if decision.object_type == "case" and "verdict" in after:
        return CASE_SETTLED if after["verdict"] != before.get("verdict") else None
    if decision.object_type == "answer" and after.get("state") != before.get("state"):
        return ANSWER_STATES.get(after.get("state"))
    return None


def _outcome(decision: Decision) -> dict:
    """What the decision left, in the payload: the entry's state, the case's verdict."""
    names = {"entry": "state", "case": "verdict", "answer": "state", "plan": "status"}
    name = names[decision.object_type]
    return {name: decision.after[name]} if name in decision.after else {}


def revision_carried(revised, *, actor) -> Event | None:
    """A revision stored and its plan carried (`add_revision`), in its transaction."""
    revision, plan = revised.revision, revised.plan
    return emit(
        revision.project_id,
        REVISION_CARRIED,
        obj=("document", revision.pk),
        url=lambda slug: _url_of(plan, slug) if plan else "",
        actor=getattr(actor, "username", "") or str(actor or "system"),
        at=revision.created_at,
        revision=revision.revision,
        plan=plan.pk if plan else None,
        carried=len(revised.carried),
    )


def job_finished(job: Job) -> Event | None:
    """A job succeeded or failed, in the transaction that says so."""
    return emit(
        job.project_id,
        JOB_FINISHED,
        obj=("job", job.pk),
        url=lambda slug: reverse("api:job", kwargs={"project": slug, "job_id": job.pk}),
        actor=job.created_by.username if job.created_by_id else "system",
        at=job.finished_at,
        kind=job.kind,
        status=job.status,
    )


def emit(project_id: int, event_type: str, *, obj: tuple[str, int], url, actor: str, at, **facts):
    """Write the event `event_type` of project `project_id`, and a delivery to each of its enabled
    endpoints that wants it; nothing when none does. `url(slug)` is the path to fetch the
    object from. Must run inside the transaction of what caused it."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("a webhook event is written in the transaction of what caused it")
    endpoints = [
        endpoint
        for endpoint in WebhookEndpoint.objects.filter(project_id=project_id, enabled=True)
        .select_related("project")
        .only("pk", "events", "enabled", "project__slug")
        if endpoint.wants(event_type)
    ]
    if not endpoints:
        return None
    slug = endpoints[0].project.slug
    data = {
        "project": slug,
        "object": {"type": obj[0], "id": obj[1]},
        "actor": actor,
        "at": at.isoformat(),
        "path": url(slug),
        **facts,
    }
    event = Event.objects.create(project_id=project_id, type=event_type, data=data, at=at)
    WebhookDelivery.objects.bulk_create(
        WebhookDelivery(endpoint=endpoint, event=event, next_attempt_at=at)
        for endpoint in endpoints
    )
    from review.webhooks.delivery import send_after_commit

    send_after_commit()
    return event


def _url_of(obj, slug: str) -> str:
    """Where a receiver fetches the whole object: the API where it has it, else its page."""
    if isinstance(obj, Plan):
        return reverse("api:get_plan", kwargs={"project": slug, "plan_id": obj.pk})
    return reverse(obj._meta.model_name, kwargs={"project": slug, "pk": obj.pk})
