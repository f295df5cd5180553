"""Builders for the revision tests: the demo building code and its second revision (a changed
paragraph in 3.2, section 3.4 moved before 3.3, section 4.1 removed and 4.4 added)."""

from __future__ import annotations

from review.actions.entries import accept_entry
from review.actions.revisions import add_revision
from review.adapters.plans import propose_document
from review.management.commands.demo import DEMO_DATA
from review.models import Entry, Plan

NAME = "byggteknisk-brann.md"
FIRST = (DEMO_DATA / NAME).read_bytes()
SECOND = (DEMO_DATA / "byggteknisk-brann-revisjon-2.md").read_bytes()

UNTOUCHED = "1 Innledning"
CHANGED = "3.2 Bæreevne og stabilitet"
MOVED = "3.4 Brannceller"
REMOVED = "4.1 Tid for rømning"
ADDED = "4.4 Rømning for personer med nedsatt funksjonsevne"


def first_plan() -> Plan:
    return propose_document(NAME, FIRST)


def decided_plan(actor) -> Plan:
    """The first revision's plan with every entry accepted by `actor`."""
    plan = first_plan()
    for entry in plan.entries.order_by("position"):
        accept_entry(entry, actor=actor, expected_version=entry.version)
    return plan


def revise(plan: Plan, actor, data: bytes = SECOND):
    return add_revision(plan.document, NAME, data, actor=actor)


def titled(plan: Plan, title: str) -> Entry:
    return plan.entries.get(title=title)
