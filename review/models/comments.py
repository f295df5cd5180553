"""Discussion on an item: comments on an entry, a case or an answer, their replies, the
earlier texts of an edited comment, and the mentions of members in them.

Comments are not decisions: they never go in the decision log. Who may read one follows the
item's blindness (part 14's one rule): while a blind double review is under way, a reviewer
does not read the others' comments on the item (`Comment.visible_to`, and its twin
`CommentQuerySet.visible_to`)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from review.models.answers import Answer
from review.models.cases import Case
from review.models.entries import Entry
from review.models.plans import Plan
from review.models.projects import InProject


class CommentQuerySet(models.QuerySet):
    def on(self, item) -> CommentQuerySet:
        """The comments on `item` (an entry, a case or an answer)."""
        return self.filter(**{Comment.field_for(item): item})

    def visible_to(self, reader) -> CommentQuerySet:
        """The comments `reader` may read: the twin of `Comment.visible_to` (a test holds the
        two to the same answer). Withheld, unless the reader wrote it: a comment on a case or
        an answer that hides its first opinion from the reader, and one on an entry of a
        review copy whose log rows the reader may not read yet (`Plan.objects.blind_to`)."""
        withheld = Q(entry__plan__in=Plan.objects.blind_to(reader).values("pk"))
        for model, field in ((Case, "case"), (Answer, "answer")):
            pending = model.objects.filter(model.awaiting_second_q()).exclude(first_by=reader)
            withheld |= Q(**{f"{field}__in": pending.values("pk")})
        return self.exclude(withheld & ~Q(author=reader))


class Comment(InProject):
    # Three nullable keys, exactly one set (a constraint says so), rather than a type and an
    # id as text: the database keeps each comment to a real item, deletes it with its item,
    # and the blindness query joins the item directly.
    entry = models.ForeignKey(
        Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="comments"
    )
    case = models.ForeignKey(
        Case, null=True, blank=True, on_delete=models.CASCADE, related_name="comments"
    )
    answer = models.ForeignKey(
        Answer, null=True, blank=True, on_delete=models.CASCADE, related_name="comments"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="comments"
    )
    text = models.TextField()
    # One level of replies: a reply to a reply joins the comment the thread started with.
    reply_to = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    edited_at = models.DateTimeField(null=True, blank=True)
    # Optimistic, as a decision's is: an edit made against an older text is refused.
    version = models.PositiveIntegerField(default=1)

    objects = CommentQuerySet.as_manager()

    ITEM_FIELDS = {"entry": Entry, "case": Case, "answer": Answer}

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(entry__isnull=False, case__isnull=True, answer__isnull=True)
                    | Q(entry__isnull=True, case__isnull=False, answer__isnull=True)
                    | Q(entry__isnull=True, case__isnull=True, answer__isnull=False)
                ),
                name="comment_on_one_item",
            ),
        ]
        indexes = [
            models.Index(fields=["entry", "created_at"], name="comment_on_entry"),
            models.Index(fields=["case", "created_at"], name="comment_on_case"),
            models.Index(fields=["answer", "created_at"], name="comment_on_answer"),
        ]

    def __str__(self) -> str:
        return f"comment {self.pk} by {self.author}"

    @classmethod
    def field_for(cls, item) -> str:
        """The key that names `item`'s kind ("entry", "case" or "answer")."""
        for field, model in cls.ITEM_FIELDS.items():
            if isinstance(item, model):
                return field
        raise TypeError(f"Comments are on entries, cases and answers, not on {type(item)}.")

    @property
    def kind(self) -> str:
        """The kind of item it is on: "entry", "case" or "answer"."""
        return next(field for field in self.ITEM_FIELDS if getattr(self, f"{field}_id"))

    @property
    def item(self):
        return self.entry or self.case or self.answer

    def visible_to(self, reader) -> bool:
        """Whether `reader` may read this comment (`CommentQuerySet.visible_to` is the twin)."""
        if reader is not None and self.author_id == reader.pk:
            return True
        if self.entry_id is not None:
            return not self.entry.plan.blind_to(reader)
        item = self.case or self.answer
        if reader is None:
            return item.review_stage != item.AWAITING_SECOND
        return not item.hides_first_opinion_from(reader)

    @property
    def edited(self) -> bool:
        return self.edited_at is not None


class CommentRevision(models.Model):
    """A comment's text as it was before an edit replaced it."""

    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="revisions")
    version = models.PositiveIntegerField()
    text = models.TextField()
    replaced_at = models.DateTimeField()

    class Meta:
        ordering = ["comment", "version"]
        constraints = [
            models.UniqueConstraint(fields=["comment", "version"], name="comment_revision_unique"),
        ]

    def __str__(self) -> str:
        return f"comment {self.comment_id} as of version {self.version}"


class MentionQuerySet(models.QuerySet):
    def unread_for(self, user) -> MentionQuerySet:
        """The person's unread mentions in comments they may read, newest first."""
        readable = Comment.objects.visible_to(user).values("pk")
        rows = self.filter(user=user, read_at__isnull=True, comment__in=readable)
        return rows.select_related("comment__author").order_by("-comment__created_at", "-pk")


class Mention(models.Model):
    """`@username` of a project's member in a comment: shown on their dashboard until read."""

    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="mentions")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mentions"
    )
    read_at = models.DateTimeField(null=True, blank=True)

    objects = MentionQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["comment", "user"], name="mention_unique"),
        ]
        indexes = [models.Index(fields=["user", "read_at"], name="mention_unread")]

    def __str__(self) -> str:
        return f"@{self.user} in comment {self.comment_id}"
