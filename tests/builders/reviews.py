"""Review policies for the double-review tests: set as staff would, through the action."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from review.actions.reviews import policy_for, set_policy
from review.models import ReviewPolicy


def double_review(queue: str, *, share_percent: int = 100, **conditions) -> ReviewPolicy:
    staff, _ = get_user_model().objects.get_or_create(username="staff", is_staff=True)
    set_policy(
        queue,
        actor=staff,
        expected_version=policy_for(queue).version,
        mode=ReviewPolicy.Mode.DOUBLE,
        share_percent=share_percent,
        **conditions,
    )
    return policy_for(queue)
