"""The append-only decision log (`review.decisions` is its one writer)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Cast
from django.utils import timezone

from review.models.answers import Answer
from review.models.cases import Case
from review.models.entries import Entry
from review.models.guidelines import Guideline
from review.models.plans import Plan
from review.models.projects import InProject, Project
from review.permissions import is_member


class DecisionQuerySet(models.QuerySet):
    """The log is append-only; bulk changes are refused before they reach the database."""

    def on_plan_entries(self, plan: Plan) -> DecisionQuerySet:
        """The rows on `plan`'s entries (the log names an entry by its id as text)."""
        keys = Entry.objects.filter(plan=plan).annotate(
            key=Cast("pk", output_field=models.CharField())
        )
        return self.filter(object_type="entry", object_id__in=keys.values("key"))

    def on_plan(self, plan: Plan) -> DecisionQuerySet:
        """The rows on `plan` itself and on its entries."""
        return self.filter(object_type="plan", object_id=str(plan.pk)) | self.on_plan_entries(plan)

    def update(self, **kwargs):
        raise AppendOnlyError("the decision log is append-only: rows are never updated")

    def delete(self):
        raise AppendOnlyError("the decision log is append-only: rows are never deleted")

    def visible_to(self, reader) -> DecisionQuerySet:
        """The rows of the projects `reader` works in: another project's log is not theirs to
        read, nor to count. `reader` None (a command's operator) reads every project's."""
        if reader is None:
            return self.all()
        return self.filter(project__in=Project.objects.of_member(reader))

    def blind_to(self, reader) -> DecisionQuerySet:
        """The rows `reader` may read (`visible_to`), each annotated `withheld`: whether it
        belongs to a double review that `reader` may not see yet, by the pages' rules
        (`SecondOpinions.hides_first_opinion_from`, `Plan.blind_to`). Withheld: the rows on a
        case or answer whose second opinion is awaited, except the reader's own; the rows on
        a review copy and its entries while its plan is open, except to its reviewer, and to
        curators once both copies are in. `reader` None (a command, read by no one in
        particular) sees none of them."""
        as_key = Cast("pk", output_field=models.CharField())
        withheld = Q(pk__in=[])
        for model in (Case, Answer):
            pending = model.objects.filter(model.awaiting_second_q()).annotate(key=as_key)
            withheld |= Q(object_type=model._meta.model_name, object_id__in=pending.values("key"))
        if reader is not None:
            withheld &= ~Q(actor=reader)
        copies = Plan.objects.blind_to(reader)
        copy_entries = Entry.objects.filter(plan__in=copies.values("pk")).annotate(key=as_key)
        withheld |= Q(object_type="plan", object_id__in=copies.annotate(key=as_key).values("key"))
        withheld |= Q(object_type="entry", object_id__in=copy_entries.values("key"))
        return self.visible_to(reader).annotate(
            withheld=models.Case(
                models.When(withheld, then=models.Value(True)),
                default=models.Value(False),
                output_field=models.BooleanField(),
            )
        )


class AppendOnlyError(Exception):
    pass


class Decision(InProject):
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
    # The "accept all proposed of a rule" this accept was one of ("" for any other
    # decision): one undo takes the batch back, and the rule's record knows nobody looked.
    batch = models.CharField(max_length=10, blank=True, default="")
    # The version of the project's guidelines in force when it was decided (None: the
    # project had none yet, or the row is older than guidelines).
    guideline_version = models.PositiveIntegerField(null=True, blank=True)

    objects = DecisionQuerySet.as_manager()

    class Meta:
        ordering = ["at", "pk"]
        indexes = [
            models.Index(fields=["object_type", "object_id", "at"]),
            # One person's decisions over a window (the dashboard's own figures, progress).
            models.Index(fields=["actor", "at"], name="decision_by_actor"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.object_type}"

    def visible_to(self, reader) -> bool:
        """The members of its project read a row of the log (`DecisionQuerySet.visible_to`
        is the twin); what of it they see under double review is `blind_to`'s."""
        return is_member(reader, self.project_id)

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnlyError("the decision log is append-only: rows are never updated")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("the decision log is append-only: rows are never deleted")

    @staticmethod
    def guideline_in_force(project_id: int) -> models.Subquery:
        """The version of the project's guidelines a decision made now is made under, as a
        subquery of the log row's INSERT: a query of its own per decision put an "accept all
        of a rule" over its bound (test_accept_and_undo_make_the_same_few_queries_...)."""
        rows = Guideline.objects.filter(project_id=project_id).order_by("-version")
        return models.Subquery(rows.values("version")[:1])

    # "Accept all proposed of a rule" logs one entry.accept per entry, each with this note
    # (the entry keeps it too, which tells the rule's record to ask the log) and one `batch`.
    RULE_BATCH_NOTE = "accepted with all of {rule}"

    @property
    def rule_batch(self) -> str:
        """The "accept all of a rule" batch this accept belongs to ("" for any other)."""
        return self.batch if self.action == "entry.accept" else ""

    @classmethod
    def rule_batch_q(cls, prefix: str = "") -> Q:
        """Decisions with a `rule_batch`, as a filter (a test holds the two to one answer)."""
        return Q(**{f"{prefix}action": "entry.accept"}) & ~Q(**{f"{prefix}batch": ""})
