"""Answers with their references, and what answer search matches."""

from __future__ import annotations

from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Q

from review.models.decided import Decided, SecondOpinions, SecondOpinionsQuerySet
from review.models.projects import InProject
from review.permissions import can_decide_answers

SEARCH_CONFIG = "english"


class AnswerSearchVector(SearchVector):
    """What answer search matches: the question and the body, stemmed (PostgreSQL). SQLite has
    no text search vectors; its column stays empty and its search reads the text itself."""

    def __init__(self):
        super().__init__("question", "body", config=SEARCH_CONFIG)

    def as_sqlite(self, compiler, connection, **extra_context):
        return "NULL", []


class Answer(SecondOpinions, Decided, InProject):
    class State(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        PUBLISHED = "published", "Published"
        WITHDRAWN = "withdrawn", "Withdrawn"

    # Unique within its project (`answer_id_per_project`).
    answer_id = models.CharField(max_length=100)
    question = models.TextField()
    raw_text = models.TextField()
    body = models.TextField()
    model = models.CharField(max_length=200, blank=True)
    sources = models.JSONField(default=list)
    # grounding.citations.Finalization.to_dict(): every change finalization made.
    changes = models.JSONField(default=dict)
    changed = models.BooleanField(default=False)
    # Which kinds of change finalization made (grounding.citations.CHANGE_KINDS), kept as
    # columns so the insights count them in the database.
    change_renumbered = models.BooleanField(default=False)
    change_dropped = models.BooleanField(default=False)
    change_rewritten = models.BooleanField(default=False)
    change_backfilled = models.BooleanField(default=False)
    change_replaced = models.BooleanField(default=False)
    source_sha256 = models.CharField(max_length=64)
    state = models.CharField(max_length=16, choices=State.choices, default=State.PROPOSED)
    created_at = models.DateTimeField(auto_now_add=True)
    # Computed by the database from the question and the body whenever either is written, so
    # a bulk insert needs nothing else; searched through its GIN index (migration 0009).
    search = models.GeneratedField(
        expression=AnswerSearchVector(), output_field=SearchVectorField(), db_persist=True
    )

    objects = SecondOpinionsQuerySet.as_manager()

    class Meta:
        # Newest first; the id breaks ties the same way, so one index serves either direction.
        ordering = ["-created_at", "-pk"]
        # Each index has the list's order (read backwards) and the answers queue's ("Next":
        # the oldest proposed first, read forwards), alone and under each filter.
        constraints = [
            models.UniqueConstraint(fields=["project", "answer_id"], name="answer_id_per_project"),
        ]
        # Each begins with the project: every list and Next reads one project's answers.
        indexes = [
            models.Index(fields=["project", "created_at", "id"], name="answer_list"),
            models.Index(
                fields=["project", "state", "created_at", "id"], name="answer_list_by_state"
            ),
            models.Index(
                fields=["project", "changed", "created_at", "id"], name="answer_list_by_changed"
            ),
            # "Next"'s two small stages of double review (`actions.reviews.review_stages`).
            models.Index(
                fields=["project", "created_at", "id"],
                name="answer_awaiting_second",
                condition=~Q(first_opinion="") & Q(second_opinion=""),
            ),
            models.Index(
                fields=["project", "created_at", "id"],
                name="answer_both_opinions",
                condition=~Q(first_opinion="") & ~Q(second_opinion="") & Q(state="proposed"),
            ),
        ]

    OUTCOME_FIELD = "state"
    UNDECIDED = State.PROPOSED

    def __str__(self) -> str:
        return self.answer_id

    def is_decider(self, user) -> bool:
        return can_decide_answers(user, self.project_id)

    @property
    def outcome(self) -> str:
        return self.state

    @property
    def external_id(self) -> str:
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
