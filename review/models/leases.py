"""Reviewers at work: who holds an item, who has its page open, what each chose for
themselves, and the conflicts they met."""

from __future__ import annotations

from django.apps import apps
from django.conf import settings
from django.db import models
from django.utils import timezone


class Lease(models.Model):
    """One reviewer's hold on one item of a queue, so "Next" hands nobody else the same item.

    A lease steers; it guards nothing: a decision is still checked against the item's version.
    It ends when released, when its holder decides, or when its page stops renewing it.
    """

    class Queue(models.TextChoices):
        PLANS = "plans", "Plans"
        CASES = "cases", "Cases"
        ANSWERS = "answers", "Answers"

    queue = models.CharField(max_length=16, choices=Queue.choices)
    item_id = models.PositiveBigIntegerField()
    holder = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="leases"
    )
    taken_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["queue", "item_id"]
        constraints = [
            # The database's own word that one item has one holder, whatever the race.
            models.UniqueConstraint(fields=["queue", "item_id"], name="lease_one_holder"),
        ]

    def __str__(self) -> str:
        return f"{self.queue} {self.item_id} held by {self.holder_id}"

    @property
    def is_live(self) -> bool:
        return self.expires_at > timezone.now()

    # The model of each queue's items.
    ITEM_MODELS = {Queue.PLANS: "Plan", Queue.CASES: "Case", Queue.ANSWERS: "Answer"}

    @property
    def decision_project_id(self) -> int:
        """A lead's release of this hold is logged in its item's project."""
        items = apps.get_model("review", self.ITEM_MODELS[self.queue]).objects
        return items.filter(pk=self.item_id).values_list("project_id", flat=True).get()


class Presence(models.Model):
    """Who has an item's page open, as of their page's last poll ("Also here: editor2")."""

    queue = models.CharField(max_length=16, choices=Lease.Queue.choices)
    item_id = models.PositiveBigIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["queue", "item_id", "user"], name="presence_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.queue} {self.item_id}"


class ReviewerSettings(models.Model):
    """What a reviewer chose for themselves."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_settings"
    )
    # After a verdict or an adjudication, stay on the item instead of opening the next one.
    stay_after_deciding = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "reviewer settings"

    def __str__(self) -> str:
        return f"settings of {self.user_id}"


class ConflictMet(models.Model):
    """A decision refused because someone else decided first (the 409), for the progress
    page: a reviewer who meets many is working where others are."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    object_type = models.CharField(max_length=20)
    object_id = models.CharField(max_length=50)
    # The project of the object: the progress page counts a project's conflicts alone. Null
    # on the rows met before projects, which only the person's own figures count.
    project = models.ForeignKey(
        "review.Project", null=True, on_delete=models.CASCADE, related_name="+"
    )
    at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"{self.user_id} met a conflict on {self.object_type} {self.object_id}"
