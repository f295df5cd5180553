"""What the app keeps. Models stay thin: every computation goes through `grounding`
by way of `review.adapters`.

Everything a person changes carries an optimistic `version`; `review.decisions`
is the one place that bumps it and appends to the decision log.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class Document(models.Model):
    class MediaType(models.TextChoices):
        MARKDOWN = "markdown", "Markdown"
        TEXT = "text", "Plain text"
        PDF = "pdf", "PDF"

    name = models.CharField(max_length=255)
    media_type = models.CharField(max_length=16, choices=MediaType.choices)
    # The original bytes, so an export can always be replayed against what was proposed on.
    data = models.BinaryField()
    sha256 = models.CharField(max_length=64, unique=True)
    text = models.TextField()
    extractor_id = models.CharField(max_length=100)
    extractor_version = models.CharField(max_length=50)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name


class Plan(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ADJUDICATED = "adjudicated", "Adjudicated"

    document = models.ForeignKey(Document, on_delete=models.PROTECT, related_name="plans")
    source_sha256 = models.CharField(max_length=64)
    extractor_id = models.CharField(max_length=100)
    extractor_version = models.CharField(max_length=50)
    proposed_by = models.CharField(max_length=200)
    options = models.JSONField(default=dict, blank=True)
    # The proposer's payload exactly as received; never edited.
    original_payload = models.TextField()
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    # Frozen at adjudication: the same bytes export_plan and the download serve.
    adjudicated_payload = models.TextField(blank=True)
    adjudicated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    adjudicated_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"Plan {self.pk} for {self.document}"


class Decided(models.Model):
    """What a person decides on: who decided last, when, their note, and the optimistic
    version that `review.decisions.decide` checks and bumps."""

    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    version = models.PositiveIntegerField(default=1)

    class Meta:
        abstract = True


class Entry(Decided):
    class State(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        ACCEPTED = "accepted", "Accepted"
        EDITED = "edited", "Edited"
        MERGED = "merged", "Merged"
        REJECTED = "rejected", "Rejected"

    class AnchorStatus(models.TextChoices):
        EXACT = "exact", "Exact"
        MOVED = "moved", "Moved"
        FUZZY = "fuzzy", "Fuzzy"
        AMBIGUOUS = "ambiguous", "Ambiguous"
        ORPHANED = "orphaned", "Orphaned"

    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="entries")
    position = models.PositiveIntegerField()
    path = models.CharField(max_length=500)
    title = models.CharField(max_length=500)
    span_start = models.PositiveIntegerField()
    span_end = models.PositiveIntegerField()
    quote = models.TextField()
    prefix = models.TextField(blank=True)
    suffix = models.TextField(blank=True)
    rules = models.JSONField(default=list)
    # The entry as the proposer wrote it, for showing edits beside the original.
    proposed = models.JSONField(default=dict)
    anchor_status = models.CharField(max_length=16, choices=AnchorStatus.choices)
    anchor_score = models.FloatField(default=1.0)
    # A person re-confirmed a fuzzy, ambiguous or orphaned anchor.
    anchor_confirmed = models.BooleanField(default=False)
    state = models.CharField(
        max_length=16, choices=State.choices, default=State.PROPOSED, db_index=True
    )

    class Meta:
        ordering = ["plan", "position"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "position"], name="entry_position_unique"),
        ]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return self.path


class Case(Decided):
    class Verdict(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        UPHELD = "upheld", "Upheld"
        OVERTURNED = "overturned", "Overturned"
        NEEDS_REWRITE = "needs_rewrite", "Needs rewrite"

    case_id = models.CharField(max_length=100, unique=True)
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
    flagged = models.BooleanField(default=False, db_index=True)
    validator_reason = models.CharField(max_length=64, blank=True, db_index=True)
    # The import line as received, for idempotent re-imports.
    source_sha256 = models.CharField(max_length=64)
    verdict = models.CharField(
        max_length=16, choices=Verdict.choices, default=Verdict.PROPOSED, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-flagged", "created_at", "pk"]

    def __str__(self) -> str:
        return self.case_id


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


class Answer(Decided):
    class State(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        PUBLISHED = "published", "Published"
        WITHDRAWN = "withdrawn", "Withdrawn"

    answer_id = models.CharField(max_length=100, unique=True)
    question = models.TextField()
    raw_text = models.TextField()
    body = models.TextField()
    model = models.CharField(max_length=200, blank=True)
    sources = models.JSONField(default=list)
    # grounding.citations.Finalization.to_dict(): every change finalization made.
    changes = models.JSONField(default=dict)
    changed = models.BooleanField(default=False, db_index=True)
    source_sha256 = models.CharField(max_length=64)
    state = models.CharField(
        max_length=16, choices=State.choices, default=State.PROPOSED, db_index=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "pk"]

    def __str__(self) -> str:
        return self.answer_id


class AnswerReference(models.Model):
    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="references")
    number = models.PositiveIntegerField()
    original_number = models.PositiveIntegerField()
    title = models.TextField()
    authors = models.JSONField(default=list, blank=True)
    year = models.IntegerField(null=True, blank=True)
    url = models.TextField(blank=True)
    venue = models.TextField(blank=True)
    doi = models.CharField(max_length=200, blank=True)
    snippet = models.TextField(blank=True)

    class Meta:
        ordering = ["answer", "number"]
        constraints = [
            models.UniqueConstraint(fields=["answer", "number"], name="reference_number_unique"),
        ]

    def __str__(self) -> str:
        return f"[{self.number}] {self.title}"


class DecisionQuerySet(models.QuerySet):
    """The log is append-only; bulk changes are refused before they reach the database."""

    def update(self, **kwargs):
        raise AppendOnlyError("the decision log is append-only: rows are never updated")

    def delete(self):
        raise AppendOnlyError("the decision log is append-only: rows are never deleted")


class AppendOnlyError(Exception):
    pass


class Decision(models.Model):
    """One row per decision on a plan, entry, case or answer. Never updated or deleted:
    the ORM refuses here, and database triggers (migration 0002) refuse underneath it."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # A snapshot, so the log still says who even if the account is renamed.
    actor_name = models.CharField(max_length=150)
    action = models.CharField(max_length=50, db_index=True)
    object_type = models.CharField(max_length=20)
    object_id = models.CharField(max_length=50)
    before = models.JSONField(default=dict)
    after = models.JSONField(default=dict)
    note = models.TextField(blank=True)
    undoes = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="undone_by"
    )
    at = models.DateTimeField(default=timezone.now, db_index=True)

    objects = DecisionQuerySet.as_manager()

    class Meta:
        ordering = ["at", "pk"]
        indexes = [models.Index(fields=["object_type", "object_id", "at"])]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.object_type}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnlyError("the decision log is append-only: rows are never updated")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("the decision log is append-only: rows are never deleted")


class ApiToken(models.Model):
    """A bearer token for the JSON API. Only its SHA-256 is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=100)
    key_sha256 = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.user})"
