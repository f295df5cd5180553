"""What an editor does to a plan as a whole: accept every proposed entry of one rule, and
freeze the plan once every entry is decided (`do_adjudicate_plan`; what double review adds
to it, `actions.plan_reviews.adjudicate_plan` says)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable

from django.db import transaction
from django.utils import timezone

from review.actions.entries import UNDO, accept_entry, undo_entry
from review.adapters.errors import PlanNotAdjudicable
from review.adapters.plans import adjudicated_payload
from review.decisions import (
    ActionRefused,
    decide,
    decisions_on_plan,
    ensure_open,
    ensure_seen,
    last_undoable,
    undoable,
)
from review.insights import rule_record
from review.models import Decision, Entry, Plan


def rule_candidates(plan: Plan, rule: str) -> list[Entry]:
    """The PROPOSED entries that name `rule`, in order (filtered in Python: JSON lookups
    differ between SQLite and PostgreSQL)."""
    proposed = plan.entries.filter(state=Entry.State.PROPOSED).order_by("position")
    return [entry for entry in proposed if rule in (entry.rules or [])]


class RuleNotValidated(ActionRefused):
    """Accepting a rule's entries unseen asks for a second confirmation while the decisions
    so far do not show the rule to be right (`review.insights`)."""


def accept_rule(
    plan: Plan,
    rule: str,
    *,
    actor,
    versions: dict[int, int],
    unvalidated_confirmed: bool = False,
) -> list[Decision]:
    """Accept every listed PROPOSED entry of `rule`: one decision per entry, all or none.

    `versions` is what the confirmation page showed (entry id -> version); an entry that
    changed since, or one that was not listed, is not touched, and a stale one refuses all.
    A rule that is not validated is refused unless `unvalidated_confirmed`.
    """
    ensure_open(plan)
    record = rule_record(rule, plan.proposed_by, plan.project_id)
    if not unvalidated_confirmed and (record is None or not record.validated):
        why = record.why_not if record else "it has no record yet"
        raise RuleNotValidated(
            f"{rule} is not validated ({why}); confirm that you want its entries accepted "
            "without looking at each."
        )
    decisions = []
    # One batch for the whole accept-all: what its undo looks for in the log.
    note, batch = Decision.RULE_BATCH_NOTE.format(rule=rule), uuid.uuid4().hex[:10]
    with transaction.atomic():
        for entry in rule_candidates(plan, rule):
            if entry.pk in versions:
                entry.plan = plan
                version = versions[entry.pk]
                decisions.append(
                    accept_entry(
                        entry, actor=actor, expected_version=version, note=note, batch=batch
                    )
                )
    if not decisions:
        raise ActionRefused(f"No proposed entry of {rule} is left to accept.")
    return decisions


def rule_batch(decision: Decision) -> str:
    """The batch an "accept all of a rule" decision belongs to ("" for any other)."""
    return decision.rule_batch


def undo_accept_rule(plan: Plan, batch: str, *, actor) -> list[Decision]:
    """Take back every accept of one "accept all of a rule" in one step: one undo per entry
    in the log, all or none. Refused, with nothing undone, when any of those entries was
    decided again since (its latest decision is no longer the batch's accept)."""
    if not re.fullmatch(r"[0-9a-f]{10}", batch):
        raise ActionRefused("That is not an accept-all batch.")
    ensure_open(plan)
    accepts = list(
        undoable(decisions_on_plan(plan), UNDO).filter(action="entry.accept", batch=batch)
    )
    if not accepts:
        raise ActionRefused("Nothing of that accept-all is left to undo.")
    undone = []
    with transaction.atomic():
        for accept in sorted(accepts, key=lambda row: int(row.object_id)):
            entry = Entry.objects.select_related("plan").get(pk=int(accept.object_id))
            if last_undoable(entry, UNDO) != accept:
                raise ActionRefused(
                    f"Entry #{entry.number} (“{entry.title}”) was decided again since; "
                    "nothing was undone. Undo it on its own first, or undo entries one by one."
                )
            undone.append(
                undo_entry(
                    entry,
                    actor=actor,
                    expected_version=entry.version,
                    note=f"undoes {accept.note}",
                )
            )
    return undone


def check_adjudicable(plan: Plan, entries: list[Entry], expected_version: int):
    """The plan's `Blockers` when nothing stands in the way of adjudicating it as the person
    saw it; otherwise refuses (PlanNotAdjudicable, or StaleVersion when someone else
    adjudicated it since). Writes nothing."""
    # Superseded, whatever version the page showed: the answer is the plan to go to.
    if plan.is_superseded:
        raise PlanNotAdjudicable(plan.superseded_reason())
    # Adjudicated by someone else since the page was drawn: their decision, a conflict.
    ensure_seen(plan, expected_version)
    if not plan.is_open:
        raise PlanNotAdjudicable(
            f"plan {plan.pk} is already adjudicated (by {plan.adjudicated_by} at "
            f"{plan.adjudicated_at:%Y-%m-%d %H:%M})",
            blockers=plan.blockers(entries),
        )
    blockers = plan.blockers(entries)
    if blockers.problems():
        raise PlanNotAdjudicable(blockers.problems(), blockers.undecided, blockers)
    return blockers


def do_adjudicate_plan(
    plan: Plan,
    *,
    actor,
    expected_version: int,
    reviews_of: Callable[[Plan], dict | None] = lambda plan: None,
) -> None:
    """Freeze `plan`: status adjudicated, the adjudicated payload stored, "plan.adjudicate"
    logged. Refuses (PlanNotAdjudicable) while anything blocks it (`Plan.blockers`);
    StaleVersion when the plan moved on. `reviews_of(plan)`, asked with the plan's rows
    locked, names each entry's reviewers for the payload (None: one editor decided it).
    Takes the plan's row lock, then its entries'; the caller does no more than that."""
    with transaction.atomic():
        # Hold the rows still while the payload is made from them: the plan first, as every
        # decision on an entry does (its counters), so that the two never wait on each other.
        current = (
            Plan.objects.select_for_update(of=("self",)).select_related("document").get(pk=plan.pk)
        )
        entries = list(Entry.objects.select_for_update().filter(plan=plan).order_by("position"))
        blockers = check_adjudicable(current, entries, expected_version)
        try:
            payload = adjudicated_payload(current, entries, reviews_of(current))
        except PlanNotAdjudicable as refused:
            # grounding's reason, with the counts for the plan's page beside it.
            raise PlanNotAdjudicable(refused.problems, blockers=blockers or None) from refused
        decide(
            current,
            expected_version=expected_version,
            actor=actor,
            action="plan.adjudicate",
            changes={
                "status": Plan.Status.ADJUDICATED,
                "adjudicated_by": actor,
                "adjudicated_at": timezone.now(),
            },
            # The log's before and after keep to the status; the payload is what
            # export_plan serves.
            unlogged={
                "adjudicated_payload": json.dumps(payload, ensure_ascii=False, indent=2) + "\n"
            },
        )
