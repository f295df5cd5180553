"""How each queue is reviewed: by one person or by two."""

from __future__ import annotations

from django.db import models

from review.models.decided import Decided
from review.models.projects import InProject


class ReviewPolicy(Decided, InProject):
    """How one queue is reviewed: by one person (today's default), or by two for a drawn share
    of its items and always for items that match a condition. Changed only through
    `review.actions.reviews.set_policy`, so every change is logged."""

    class Queue(models.TextChoices):
        PLANS = "plans", "Plans"
        CASES = "cases", "Cases"
        ANSWERS = "answers", "Answers"

    class Mode(models.TextChoices):
        SINGLE = "single", "Single review"
        DOUBLE = "double", "Double review"

    # One policy per queue in each project (`policy_per_project_queue`).
    queue = models.CharField(max_length=16, choices=Queue.choices)
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.SINGLE)
    share_percent = models.PositiveSmallIntegerField(default=0)
    seed = models.CharField(max_length=64, blank=True)
    # Always double-reviewed, whatever the draw: cases of these validator reasons ("" for a
    # rationale that passed), plan entries of these proposer rules.
    reasons = models.JSONField(default=list, blank=True)
    rules = models.JSONField(default=list, blank=True)
    # A first opinion against the machine (a case overturned, an answer withdrawn) is checked.
    on_overturn = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "review policies"
        constraints = [
            models.UniqueConstraint(fields=["project", "queue"], name="policy_per_project_queue"),
        ]

    def __str__(self) -> str:
        return f"{self.get_queue_display()}: {self.get_mode_display().lower()}"

    @property
    def is_double(self) -> bool:
        return self.mode == self.Mode.DOUBLE
