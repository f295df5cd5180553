"""Double review of a plan: two editors adjudicate it independently, each in their own copy
(so each sees only their own decisions); entries where the copies agree are settled on the
plan, a curator picks between the copies where they differ, and once every entry is settled
the plan is adjudicated, its export naming the reviewers and the curator of each entry.

Replay-safety: a double-reviewed plan is adjudicated only from settled entries (every one's
latest decision is an agreement or a curation), and its payload says "double_review", so
`grounding.segmentation` refuses any entry that one person settled.
"""

from __future__ import annotations

import contextlib

from django.db import transaction
from django.db.models import Case as DbCase
from django.db.models import (
    CharField,
    Count,
    Exists,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce

from review.actions.entries import (
    ANCHOR_FIELDS,
    UNDO,
    EditRequest,
    edit_entry,
    undo_entry,
    undo_target,
)
from review.actions.plans import do_adjudicate_plan
from review.adapters.errors import PlanNotAdjudicable
from review.adapters.plans import entries_stored, provenance
from review.decisions import ActionRefused, decide, decided_by, record_made, undoable
from review.models import Decision, Entry, Plan
from review.permissions import can_curate, can_decide_plans

# What two editors must agree on for an entry to be settled.
AGREEMENT_FIELDS = ("state", "span_start", "span_end", "title", "path")
# What settling copies onto the plan's entry: the agreed values and the anchor made for them.
SETTLED_FIELDS = (*AGREEMENT_FIELDS, *ANCHOR_FIELDS)
AGREED = "entry.agreed"
SETTLING_ACTIONS = (AGREED, "entry.curate")
COPY_FIELDS = (
    "position",
    "path",
    "title",
    "span_start",
    "span_end",
    "rules",
    "proposed",
    *ANCHOR_FIELDS,
)


def open_review_copy(plan: Plan, *, actor) -> Plan:
    """The editor's own copy of `plan`, made the first time they ask; two editors at most."""
    if plan.is_superseded:
        raise ActionRefused(plan.superseded_reason())
    if not plan.is_open:
        raise ActionRefused("This plan is already adjudicated.")
    if not plan.is_double_reviewed():
        raise ActionRefused("This plan is reviewed by one editor: decide it on its own page.")
    with transaction.atomic():
        copies = list(Plan.objects.select_for_update().filter(review_of=plan))
        mine = [copy for copy in copies if copy.reviewer_id == actor.pk]
        if mine:
            return mine[0]
        if len(copies) >= 2:
            raise ActionRefused("Two editors are already reviewing this plan.")
        copy = Plan.objects.create(
            project_id=plan.project_id,  # a review copy is of its plan's project
            document_id=plan.document_id,
            options=plan.options,
            original_payload=plan.original_payload,
            review_of=plan,
            reviewer=actor,
            **provenance(plan),
        )
        entries = Entry.objects.bulk_create(
            Entry(plan=copy, **{name: getattr(entry, name) for name in COPY_FIELDS})
            for entry in plan.entries.order_by("position")
        )
        entries_stored(copy, {entry.path for entry in entries})
        record_made(copy, actor=actor, action="plan.review_copy", after={"review_of": plan.pk})
    return copy


def plans_needing_review_by(user, project) -> QuerySet[Plan]:
    """The plans of `project` the queue may hand `user` (`actions.leases`), annotated
    `review_order`: their own review left unfinished and second reviews (one editor's copy,
    not theirs) first, then plans in curation (both copies in, neither theirs) for curators,
    then plans nobody has begun (single review, or a first review). Never a plan they
    reviewed already."""
    copies = Plan.objects.filter(review_of=OuterRef("pk")).order_by()

    def counted(rows):
        grouped = rows.values("review_of").annotate(n=Count("pk")).values("n")[:1]
        return Coalesce(Subquery(grouped), Value(0))

    plans = (
        Plan.objects.waiting()
        .filter(project=project)
        .annotate(
            copies_n=counted(copies),
            submitted_n=counted(copies.filter(status=Plan.Status.ADJUDICATED)),
            mine=Exists(copies.filter(reviewer=user)),
            mine_open=Exists(copies.filter(reviewer=user, status=Plan.Status.OPEN)),
        )
    )
    wanted = Q(pk__in=[])
    if can_decide_plans(user, project):
        wanted |= Q(copies_n=0) | Q(copies_n=1, mine=False) | Q(mine_open=True)
    if can_curate(user, project):
        wanted |= Q(submitted_n=2, mine=False)
    return plans.filter(wanted).annotate(
        review_order=DbCase(
            When(Q(mine_open=True) | Q(copies_n=1), then=Value(0)),
            When(submitted_n=2, then=Value(1)),
            default=Value(2),
        )
    )


def plans_in_curation_for(user, project) -> QuerySet[Plan]:
    """The plans of `project` in curation that `user` may settle: both copies in, neither
    theirs; none unless they curate there."""
    if not can_curate(user, project):
        return Plan.objects.none()
    return plans_needing_review_by(user, project).filter(submitted_n=2, mine=False)


def plan_to_hold(plan: Plan, user) -> Plan:
    """What a queue's lease holds when `plan` is handed to `user`: under double review, the
    editor's own copy (made now for a first or second review); otherwise (single review, or a
    plan to curate) the plan itself."""
    if (
        can_decide_plans(user, plan.project_id)
        and not plan.in_curation
        and plan.is_double_reviewed()
    ):
        return open_review_copy(plan, actor=user)
    return plan


def review_copies(plan: Plan) -> list[Plan]:
    return list(plan.review_copies.select_related("reviewer").order_by("pk"))


def differing_entries(plan: Plan) -> list[tuple[Entry, Entry, Entry]]:
    """(the plan's entry, the first copy's, the second copy's) for each entry a curator has to
    settle once both copies are in: where they differ, and where an agreement or a curation
    was undone (the entry is proposed again, and only a curator settles it now)."""
    copies = [copy for copy in review_copies(plan) if copy.is_adjudicated]
    if len(copies) != 2:
        return []
    first, second = (list(copy.entries.order_by("position")) for copy in copies)
    return [
        (entry, a, b)
        for entry, a, b in zip(plan.entries.order_by("position"), first, second, strict=True)
        if entry.state == Entry.State.PROPOSED
    ]


def settle_agreements(plan: Plan, *, actor) -> int:
    """Once both copies are submitted: settle every entry on which they agree. Returns how
    many were settled; adjudicates the plan if nothing differs."""
    copies = [copy for copy in review_copies(plan) if copy.is_adjudicated]
    if len(copies) != 2:
        return 0
    first, second = (list(copy.entries.order_by("position")) for copy in copies)
    names = " and ".join(copy.reviewer.username for copy in copies)
    settled = 0
    with transaction.atomic():
        for entry, a, b in zip(plan.entries.order_by("position"), first, second, strict=True):
            if entry.state == Entry.State.PROPOSED and _agreed(a) == _agreed(b):
                _settle(entry, a, actor=actor, action=AGREED, note=f"agreed by {names}")
                settled += 1
    _adjudicate_when_settled(plan, actor=actor)
    return settled


def curate_entry(entry: Entry, pick: str, *, actor, expected_version: int) -> Decision:
    """The curator takes the first or second copy's version of an entry the copies differ on."""
    a, b, settles = _to_settle(entry, actor)
    chosen = {"first": a, "second": b}.get(pick)
    if chosen is None:
        raise ActionRefused("Pick the first or the second review.")
    decision = _settle(
        entry,
        chosen,
        actor=actor,
        action="entry.curate",
        note=f"{settles}: took {pick}",
        expected_version=expected_version,
    )
    _adjudicate_when_settled(entry.plan, actor=actor)
    return decision


def curate_entry_edit(
    entry: Entry, request: EditRequest, state: str | None, *, actor, expected_version: int
) -> Decision:
    """The curator settles an entry the copies differ on with a version of their own: its
    title, path and boundaries edited, kept (or rejected, or merged into the one before), held
    to every rule an editor's edit is (`actions.entries.edit_entry`)."""
    _, _, settles = _to_settle(entry, actor)
    note = f"{settles}: edited" + (f": {request.note}" if request.note else "")
    decision = edit_entry(
        entry,
        request,
        actor=actor,
        expected_version=expected_version,
        action="entry.curate",
        state=state,
        note=note,
    )
    _adjudicate_when_settled(entry.plan, actor=actor)
    return decision


def undo_settlement(entry: Entry, *, actor, expected_version: int) -> Decision:
    """Take back the agreement or the curation that settled an entry of a double-reviewed
    plan still open; the entry goes back to curation. Only curators (not one of the two
    reviewers): reopening what two people settled is curation too."""
    _may_curate(entry.plan, actor)
    latest = undo_target(entry)
    if latest is None or latest.action not in SETTLING_ACTIONS:
        raise ActionRefused("Nothing settled this entry last: there is no settlement to undo.")
    return undo_entry(
        entry,
        actor=actor,
        expected_version=expected_version,
        note=f"undoes {latest.action} by {latest.actor_name}",
    )


def settlements(plan: Plan) -> dict[int, Decision]:
    """Entry id -> the agreement or curation an undo would take back, for the plan's entries
    whose latest undoable decision is one (one query)."""
    keys = Entry.objects.filter(plan=plan).annotate(key=Cast("pk", output_field=CharField()))
    latest: dict[int, Decision] = {}
    rows = undoable(
        Decision.objects.filter(object_type="entry", object_id__in=keys.values("key")), UNDO
    )
    for decision in rows.order_by("at", "pk"):
        latest[int(decision.object_id)] = decision
    return {pk: decision for pk, decision in latest.items() if decision.action in SETTLING_ACTIONS}


def _may_curate(plan: Plan, actor) -> list[Plan]:
    if not can_curate(actor, plan.project_id):
        raise ActionRefused("Only curators settle what two editors disagree on.")
    copies = review_copies(plan)
    if actor.pk in {copy.reviewer_id for copy in copies}:
        raise ActionRefused("A curator settles other people's reviews, not their own.")
    return copies


def _to_settle(entry: Entry, actor) -> tuple[Entry, Entry, str]:
    """The two copies' versions of an entry the curator may settle now, and the log's words
    for what the settlement settles."""
    copies = _may_curate(entry.plan, actor)
    differing = {row[0].pk: row for row in differing_entries(entry.plan)}
    if entry.pk not in differing:
        raise ActionRefused("The two reviews agree on this entry, or it is settled already.")
    _, a, b = differing[entry.pk]
    (name_a, name_b) = (copy.reviewer.username for copy in copies)
    return a, b, f"settles {a.state} by {name_a} and {b.state} by {name_b}"


def entry_reviews(plan: Plan) -> dict[int, tuple[tuple[str, str], str]]:
    """For a double-reviewed plan's export: entry id -> (its two reviewers, its curator).
    Refuses while any entry's latest decision is not an agreement or a curation."""
    reviewers = tuple(copy.reviewer.username for copy in review_copies(plan))
    keys = Entry.objects.filter(plan=plan).annotate(key=Cast("pk", output_field=CharField()))
    latest: dict[str, Decision] = {}
    for decision in Decision.objects.filter(
        object_type="entry", object_id__in=keys.values("key")
    ).order_by("pk"):
        latest[decision.object_id] = decision
    unsettled = [
        entry
        for entry in plan.entries.order_by("position")
        if str(entry.pk) not in latest or latest[str(entry.pk)].action not in SETTLING_ACTIONS
    ]
    if len(reviewers) != 2 or unsettled:
        listed = ", ".join(f"#{entry.number} ({entry.path!r})" for entry in unsettled[:10])
        raise PlanNotAdjudicable(
            [
                f"plan {plan.pk} is double-reviewed; not settled by two reviewers yet: "
                f"{listed or 'all'}"
            ]
        )
    return {
        int(key): (reviewers, decision.actor_name if decision.action == "entry.curate" else "")
        for key, decision in latest.items()
    }


def _agreed(entry: Entry) -> tuple:
    return tuple(getattr(entry, name) for name in AGREEMENT_FIELDS)


def _settle(entry: Entry, source: Entry, *, actor, action: str, note: str, expected_version=None):
    changes = {name: getattr(source, name) for name in SETTLED_FIELDS}
    return decide(
        entry,
        expected_version=entry.version if expected_version is None else expected_version,
        actor=actor,
        action=action,
        changes={**changes, **decided_by(actor, note)},
        note=note,
    )


def adjudicate_plan(plan: Plan, *, actor, expected_version: int) -> Plan:
    """Freeze `plan` (`actions.plans.do_adjudicate_plan`), whoever reviews it: a
    double-reviewed plan only from entries two reviewers (or a curator) settled, its payload
    naming them; and an editor's review copy, once handed in, settles with the other editor's
    the entries they agree on. Every door adjudicates through this."""
    do_adjudicate_plan(
        plan, actor=actor, expected_version=expected_version, reviews_of=_reviews_if_double
    )
    plan.refresh_from_db()
    if plan.is_review_copy:
        # One editor's review is in; with the other's, their agreements settle the plan.
        settle_agreements(plan.review_of, actor=actor)
    return plan


def _reviews_if_double(plan: Plan) -> dict | None:
    return entry_reviews(plan) if plan.is_double_reviewed() else None


def _adjudicate_when_settled(plan: Plan, *, actor) -> None:
    """The plan is adjudicated once every entry is settled; a plan the entries cannot make
    (a merge into a rejected entry, say) stays open, and its page says why."""
    plan.refresh_from_db()
    if not plan.is_open or plan.entries.filter(state=Entry.State.PROPOSED).exists():
        return
    with contextlib.suppress(PlanNotAdjudicable):
        adjudicate_plan(plan, actor=actor, expected_version=plan.version)
