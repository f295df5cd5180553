"""Moderation cases, their evidence, and the cases queue's counts."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from review.models.decided import Decided, SecondOpinions, SecondOpinionsQuerySet
from review.models.projects import InProject
from review.permissions import can_decide_cases


class Case(SecondOpinions, Decided, InProject):
    class Verdict(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        UPHELD = "upheld", "Upheld"
        OVERTURNED = "overturned", "Overturned"
        NEEDS_REWRITE = "needs_rewrite", "Needs rewrite"

    # Unique within its project (`case_id_per_project`).
    case_id = models.CharField(max_length=100)
    content_text = models.TextField()
    author = models.CharField(max_length=200, blank=True)
    community = models.CharField(max_length=200, blank=True)
    report_reason = models.CharField(max_length=200, blank=True)
    rationale_text = models.TextField()
    # None when the rationale declared no list; the validator then skips that check.
    declared_ids = models.JSONField(null=True, blank=True)
    recommended_action = models.CharField(max_length=100, blank=True)
    model = models.CharField(max_length=200, blank=True)
    # grounding.evidence.RationaleReport.to_dict(), computed once at import.
    report = models.JSONField(default=dict)
    flagged = models.BooleanField(default=False)
    validator_reason = models.CharField(max_length=64, blank=True)
    # The import line as received, for idempotent re-imports.
    source_sha256 = models.CharField(max_length=64)
    verdict = models.CharField(max_length=16, choices=Verdict.choices, default=Verdict.PROPOSED)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = SecondOpinionsQuerySet.as_manager()

    # The queue's order (its list's, and the one "Next" hands cases out in): flagged first,
    # then the oldest, the id breaking ties.
    QUEUE_ORDER = ("-flagged", "created_at", "pk")

    class Meta:
        ordering = ["-flagged", "created_at", "pk"]
        # The queue's order, alone and under each filter, so that a page (and "Next", which
        # takes from the proposed ones) is a walk along an index, not a sort of every case.
        constraints = [
            models.UniqueConstraint(fields=["project", "case_id"], name="case_id_per_project"),
        ]
        # Each begins with the project: every list and Next reads one project's cases.
        indexes = [
            models.Index(fields=["project", "-flagged", "created_at", "id"], name="case_queue"),
            models.Index(
                fields=["project", "validator_reason", "-flagged", "created_at", "id"],
                name="case_queue_by_reason",
            ),
            models.Index(
                fields=["project", "verdict", "-flagged", "created_at", "id"],
                name="case_queue_by_verdict",
            ),
            # "Next"'s two small stages of double review (`actions.reviews.review_stages`).
            models.Index(
                fields=["project", "-flagged", "created_at", "id"],
                name="case_awaiting_second",
                condition=~Q(first_opinion="") & Q(second_opinion=""),
            ),
            models.Index(
                fields=["project", "-flagged", "created_at", "id"],
                name="case_both_opinions",
                condition=~Q(first_opinion="") & ~Q(second_opinion="") & Q(verdict="proposed"),
            ),
        ]

    # What a double review decides, and its value before anyone has (`SecondOpinions`).
    OUTCOME_FIELD = "verdict"
    UNDECIDED = Verdict.PROPOSED

    def __str__(self) -> str:
        return self.case_id

    def is_decider(self, user) -> bool:
        return can_decide_cases(user, self.project_id)

    @property
    def outcome(self) -> str:
        return self.verdict

    @property
    def external_id(self) -> str:
        return self.case_id


class CaseFacet(models.Model):
    """The cases queue's counts, per project: cases per validator reason ("reason"), evidence
    items per tool ("tool"). Kept by the database's triggers (`review.counter_triggers`) in the
    same transaction as whatever wrote the rows; never written by the app."""

    class Kind(models.TextChoices):
        REASON = "reason", "Validator reason"
        TOOL = "tool", "Evidence tool"

    project = models.ForeignKey("review.Project", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    value = models.CharField(max_length=100, blank=True)
    count = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["project", "kind", "value"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "kind", "value"], name="case_facet_once_in_project"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.value!r}: {self.count}"


class Evidence(models.Model):
    class Status(models.TextChoices):
        SUCCESS = "success", "Success"
        FAILURE = "failure", "Failure"
        TIMEOUT = "timeout", "Timeout"
        SKIPPED = "skipped", "Skipped"

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="evidence")
    position = models.PositiveIntegerField()
    ev_id = models.CharField(max_length=20)
    tool = models.CharField(max_length=100, db_index=True)
    status = models.CharField(max_length=16, choices=Status.choices, db_index=True)
    summary = models.TextField(blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["case", "position"]
        constraints = [
            models.UniqueConstraint(fields=["case", "ev_id"], name="evidence_id_unique"),
        ]
        verbose_name_plural = "evidence"

    def __str__(self) -> str:
        return f"{self.case} {self.ev_id}"
