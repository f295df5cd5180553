"""For the double-review tests: review policies set as staff would, through the action, and
a review copy decided and handed in."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from review.actions.entries import accept_entry, reject_entry
from review.actions.plan_reviews import adjudicate_plan
from review.actions.reviews import policy_for, set_policy
from review.models import Plan, ReviewPolicy
from review.models.projects import default_project_id
from tests.builders.plan_views import entries_of


def double_review(queue: str, *, share_percent: int = 100, **conditions) -> ReviewPolicy:
    staff, _ = get_user_model().objects.get_or_create(username="staff", is_staff=True)
    set_policy(
        queue,
        project=default_project_id(),
        actor=staff,
        expected_version=policy_for(queue, default_project_id()).version,
        mode=ReviewPolicy.Mode.DOUBLE,
        share_percent=share_percent,
        **conditions,
    )
    return policy_for(queue, default_project_id())


def hand_in_review(copy: Plan, actor, *, reject=()) -> None:
    """Decide every entry of a review copy as `actor`, rejecting those at the indexes in
    `reject` (-1 is the last) and accepting the rest, then adjudicate the copy, which hands
    the review in."""
    entries = entries_of(copy)
    rejected = {entries[index].pk for index in reject}
    for entry in entries:
        entry.plan = copy
        act = reject_entry if entry.pk in rejected else accept_entry
        act(entry, actor=actor, expected_version=entry.version)
    copy.refresh_from_db()
    adjudicate_plan(copy, actor=actor, expected_version=copy.version)
