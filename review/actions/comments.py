"""Discussion on an item: adding a comment or a reply, editing one's own, and reading the
mentions. None of it is a decision: nothing here writes to the decision log."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from grounding.mentions import mentioned_names
from review.models import Comment, CommentRevision, Mention
from review.refusals import ActionRefused, StaleEdit

MAX_COMMENT_CHARS = 10_000


def check_comment_text(text: str) -> str:
    """The text to store, or ActionRefused saying what is wrong with it."""
    text = (text or "").strip()
    if not text:
        raise ActionRefused("A comment needs some text.")
    if len(text) > MAX_COMMENT_CHARS:
        raise ActionRefused(f"A comment is at most {MAX_COMMENT_CHARS:,} characters long.")
    return text


def add_comment(item, *, author, text: str, reply_to: Comment | None = None) -> Comment:
    """Comment on `item` (an entry, a case or an answer), or reply to a comment on it. A
    reply to a reply joins the thread's first comment: replies go one level deep."""
    text = check_comment_text(text)
    field = Comment.field_for(item)
    if reply_to is not None and getattr(reply_to, f"{field}_id") != item.pk:
        raise ActionRefused("A reply goes on the item of the comment it answers.")
    with transaction.atomic():
        comment = Comment.objects.create(
            project_id=item.decision_project_id,
            author=author,
            text=text,
            reply_to=(reply_to.reply_to or reply_to) if reply_to else None,
            **{field: item},
        )
        _mention(comment)
    return comment


def edit_comment(comment: Comment, *, actor, expected_version: int, text: str) -> Comment:
    """Replace the text of `actor`'s own comment, keeping the earlier text as a revision.
    StaleEdit when it was edited since `expected_version` (in another tab, say)."""
    if comment.author_id != actor.pk:
        raise PermissionDenied("Only its author edits a comment.")
    text = check_comment_text(text)
    with transaction.atomic():
        current = Comment.objects.select_for_update().select_related("author").get(pk=comment.pk)
        if current.version != expected_version:
            raise StaleEdit(current, current.author.get_username())
        if current.text == text:
            raise ActionRefused("The comment is unchanged: there is nothing to save.")
        now = timezone.now()
        CommentRevision.objects.create(
            comment=current, version=current.version, text=current.text, replaced_at=now
        )
        Comment.objects.filter(pk=current.pk).update(
            text=text, edited_at=now, version=F("version") + 1
        )
        current.refresh_from_db()
        _mention(current)
    return current


def _mention(comment: Comment) -> None:
    """A mention for each member of the comment's project it names by `@username` (not its
    author, and not anyone it already mentioned)."""
    names = mentioned_names(comment.text)
    if not names:
        return
    members = (
        get_user_model()
        .objects.filter(username__in=names, is_active=True)
        .filter(Q(memberships__project_id=comment.project_id) | Q(is_staff=True))
        .exclude(pk=comment.author_id)
        .distinct()
    )
    Mention.objects.bulk_create(
        [Mention(comment=comment, user=user) for user in members], ignore_conflicts=True
    )


def mark_mention_read(mention: Mention, *, user) -> None:
    """The person has read the comment they were mentioned in."""
    if mention.user_id != user.pk:
        raise PermissionDenied("Only the person mentioned marks a mention read.")
    Mention.objects.filter(pk=mention.pk, read_at__isnull=True).update(read_at=timezone.now())
