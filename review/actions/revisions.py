"""What an editor does when a document changes: add its new revision, and carry the latest
plan of the revision before onto it.

A carried decision is a decision: each entry that keeps one gets its own "entry.carry" row in
the log, by the person who uploaded, naming the earlier decision and the revision it came
from. Only an entry whose anchor was placed exact or moved keeps its decision; everything
else comes back proposed, with the earlier decision beside it as a suggestion.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from review.adapters.revisions import (
    CarriedRow,
    carried_plan,
    plan_to_carry,
    store_revision,
)
from review.decisions import decide, record_made
from review.models import Decision, Document, Entry, Lease, Plan
from review.webhooks import events as webhook_events

CARRY = "entry.carry"
SUPERSEDE = "plan.supersede"


@dataclass(frozen=True)
class Revised:
    """A new revision, and the plan carried onto it (None when the earlier one had none, or
    nothing of it or of the proposer's entries has a place in the new text)."""

    revision: Document
    plan: Plan | None
    carried: tuple[Decision, ...] = ()


def add_revision(document: Document, name: str, data: bytes, *, actor) -> Revised:
    """Store `data` as the next revision of `document` and carry its latest plan, all or
    nothing. Refused (ImportRefused) when `document` already has a next revision or the
    bytes are stored already."""
    with transaction.atomic():
        revision = store_revision(document, name, data)
        supersede_plans(document, revision, actor=actor)
        earlier = plan_to_carry(document)
        if earlier is None:
            return Revised(revision, None)
        plan, rows = carried_plan(earlier, revision, uploader=actor)
        if plan is None:
            return Revised(revision, None)
        carried = tuple(
            _record_carry(row, revision, actor)
            for row in rows
            if row.entry.state != Entry.State.PROPOSED
        )
        revised = Revised(revision, plan, carried)
        webhook_events.revision_carried(revised, actor=actor)
    return revised


def _record_carry(row: CarriedRow, revision: Document, actor) -> Decision:
    entry, kept = row.entry, row.kept
    source = entry.carried
    came_from = f"revision {source['revision']} (plan {source['plan']}, entry #{source['number']})"
    if kept is not None:
        came_from += f": decision {kept.pk}, {kept.action} by {kept.actor_name}"
    return record_made(
        entry,
        actor=actor,
        action=CARRY,
        # What an undo puts back: the entry as proposed on this revision.
        before={
            "state": Entry.State.PROPOSED,
            "decided_by_id": None,
            "decided_at": None,
            "note": "",
        },
        after={
            "state": entry.state,
            "decided_by_id": entry.decided_by_id,
            "decided_at": entry.decided_at.isoformat() if entry.decided_at else None,
            "note": entry.note,
            "carried_from": {
                "decision": kept.pk if kept else None,
                "revision": source["revision"],
                "plan": source["plan"],
                "entry": source["entry"],
                "to_revision": revision.revision,
            },
        },
        note=f"carried from {came_from}",
    )


def supersede_plans(document: Document, revision: Document, *, actor) -> list[Decision]:
    """Take `document`'s open plans (and open review copies of them) out of review now that
    `revision` follows it: each is marked superseded, logged as "plan.supersede" by whoever
    stored the revision, and let go by whoever held it. Its page then names the plan that
    stands for it (`Plan.current_plan`). Called in the revision's own transaction
    (`add_revision`)."""
    with transaction.atomic():
        # Locked as adjudication locks a plan: one of the two waits for the other, and a
        # plan adjudicated meanwhile stays adjudicated.
        plans = list(
            Plan.objects.select_for_update()
            .filter(document=document, status=Plan.Status.OPEN)
            .order_by("pk")
        )
        note = f"superseded by revision {revision.revision} (document {revision.pk})"
        decisions = [
            decide(
                plan,
                expected_version=plan.version,
                actor=actor,
                action=SUPERSEDE,
                changes={"status": Plan.Status.SUPERSEDED},
                note=note,
            )
            for plan in plans
        ]
        Lease.objects.filter(
            queue=Lease.Queue.PLANS, item_id__in=[plan.pk for plan in plans]
        ).delete()
    return decisions
