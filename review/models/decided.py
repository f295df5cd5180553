"""What every decided row shares (`Decided`), and the two opinions of a double review
(`SecondOpinions`) that cases and answers keep."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from review.models.hooks import DecisionHooks
from review.models.projects import Project
from review.permissions import can_curate, is_member


class Decided(DecisionHooks, models.Model):
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


class SecondOpinionsQuerySet(models.QuerySet):
    def visible_to(self, user) -> SecondOpinionsQuerySet:
        """The cases or answers `user` may read: the twin of `SecondOpinions.visible_to` (a
        test holds the two to the same answer), those of the projects they work in. `user`
        None (a command's operator) reads as staff would."""
        if user is None:
            return self.all()
        return self.filter(project__in=Project.objects.of_member(user))


class SecondOpinions(models.Model):
    """The two opinions of a double review, kept on the item so that each is one versioned
    decision (and undo puts it back). The item's own verdict or state stays undecided until
    they agree, or a curator settles their disagreement."""

    first_opinion = models.CharField(max_length=16, blank=True)
    first_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    first_note = models.TextField(blank=True)
    second_opinion = models.CharField(max_length=16, blank=True)
    second_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    second_note = models.TextField(blank=True)

    class Meta:
        abstract = True

    # The stages of a double review, as `review_stage` names them.
    SINGLE = "single"
    AWAITING_SECOND = "awaiting_second"
    IN_CURATION = "in_curation"
    AGREED = "agreed"
    CURATED = "curated"

    @property
    def review_stage(self) -> str:
        if not self.first_opinion:
            return self.SINGLE
        if not self.second_opinion:
            return self.AWAITING_SECOND
        if self.first_opinion == self.second_opinion:
            return self.AGREED
        return self.IN_CURATION if self.outcome == self.UNDECIDED else self.CURATED

    def visible_to(self, user) -> bool:
        """The members of its project read a case or an answer; nobody else may tell it
        exists. `user` None (a command's operator) reads as staff would. Its queryset twin is
        `SecondOpinionsQuerySet.visible_to`."""
        return is_member(user, self.project_id)

    def decidable_by(self, user, *, undoing: bool = False) -> bool:
        """The queue's deciders (`is_decider`) decide; a curator too while the two opinions
        disagree, and, to take a step back, at any stage of a double review
        (`actions.reviews.undo_opinion` says whose step)."""
        stage = self.review_stage
        curating = can_curate(user, self.project_id) and (
            stage != self.SINGLE if undoing else stage == self.IN_CURATION
        )
        return self.is_decider(user) or curating

    def hides_first_opinion_from(self, user) -> bool:
        """Blind review: until the second opinion is in, only its author sees the first."""
        return self.review_stage == self.AWAITING_SECOND and self.first_by_id != user.pk

    @classmethod
    def awaiting_second_q(cls) -> Q:
        return ~Q(first_opinion="") & Q(second_opinion="")

    @classmethod
    def in_curation_q(cls) -> Q:
        return (
            ~Q(first_opinion="")
            & ~Q(second_opinion="")
            & ~Q(first_opinion=models.F("second_opinion"))
            & Q(**{cls.OUTCOME_FIELD: cls.UNDECIDED})
        )
