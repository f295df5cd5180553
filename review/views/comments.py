"""Discussion on an entry, a case or an answer: the comments someone may read, adding one or
a reply, editing one's own, its export, and marking a mention read.

Whoever may see the item may comment on it (`get_plan_for_user`, `get_case_for_user`,
`get_answer_for_user` decide); which comments they read is `Comment.objects.visible_to`."""

from __future__ import annotations

from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from review.actions.comments import add_comment, edit_comment, mark_mention_read
from review.forms import CommentEditForm, CommentForm
from review.markdown import render_markdown
from review.models import Comment, Entry, Mention
from review.refusals import ActionRefused, StaleEdit
from review.views import HtmxHttpRequest
from review.views.answers import get_answer_for_user
from review.views.cases import get_case_for_user
from review.views.plan_context import get_plan_for_user
from review.views.projects import current_project, project_url

REGION = "review/comments/_region.html#comments"


def get_item_for_user(request, kind: str, pk: int):
    """The entry, case or answer `pk` as `request.user` may see it (404 otherwise)."""
    if kind == "entry":
        entry = get_object_or_404(Entry.objects.select_related("plan"), pk=pk)
        get_plan_for_user(request, entry.plan_id)
        return entry
    if kind == "case":
        return get_case_for_user(request, pk)
    if kind == "answer":
        return get_answer_for_user(request, pk)
    raise Http404("Comments are on entries, cases and answers.")


def _get_comment_for_user(request, pk: int) -> Comment:
    """A comment whose item `request.user` may see, and which they may read (404 otherwise)."""
    comment = get_object_or_404(Comment.objects.select_related("author"), pk=pk)
    get_item_for_user(request, comment.kind, getattr(comment, f"{comment.kind}_id"))
    if not comment.visible_to(request.user):
        raise Http404("No such comment.")
    return comment


@require_http_methods(["GET", "POST"])
def item_comments(request: HtmxHttpRequest, kind: str, pk: int) -> HttpResponse:
    """The item's discussion (its region over htmx); a POST adds a comment or a reply."""
    item = get_item_for_user(request, kind, pk)
    if request.method == "GET":
        template = REGION if request.htmx else "review/comments/page.html"
        return render(request, template, discussion(request, item))
    form = CommentForm(request.POST)
    error = ""
    if form.is_valid():
        reply_to = _reply_target(request, item, form.cleaned_data["reply_to"])
        try:
            add_comment(
                item, author=request.user, text=form.cleaned_data["text"], reply_to=reply_to
            )
        except ActionRefused as refused:
            error = str(refused)
        else:
            if not request.htmx:
                return redirect(item_discussion_url(item, current_project(request).slug))
            form = CommentForm()
    else:
        error = "A comment needs some text."
    context = discussion(request, item, form=form, error=error)
    return render(request, REGION, context, status=422 if error else 200)


def _reply_target(request, item, pk: int | None) -> Comment | None:
    if pk is None:
        return None
    visible = Comment.objects.on(item).visible_to(request.user)
    found = visible.filter(pk=pk).first()
    if found is None:
        raise Http404("No such comment to reply to.")
    return found


@require_http_methods(["GET", "POST"])
def comment_edit(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Edit one's own comment; against a newer text (409), the newer text is shown."""
    comment = _get_comment_for_user(request, pk)
    if comment.author_id != request.user.pk:
        raise Http404("No such comment of yours.")
    if request.method == "GET":
        form = CommentEditForm(initial={"text": comment.text, "version": comment.version})
        return _edit_page(request, comment, form)
    form = CommentEditForm(request.POST)
    if not form.is_valid():
        return _edit_page(request, comment, form, status=422, error="A comment needs some text.")
    try:
        edit_comment(
            comment,
            actor=request.user,
            expected_version=form.cleaned_data["version"],
            text=form.cleaned_data["text"],
        )
    except StaleEdit as stale:
        return _edit_page(request, stale.current, form, status=409, error=str(stale))
    except ActionRefused as refused:
        return _edit_page(request, comment, form, status=422, error=str(refused))
    if request.htmx:
        return render(request, REGION, discussion(request, comment.item))
    return redirect(item_discussion_url(comment.item, current_project(request).slug))


def _edit_page(request, comment, form, *, status=200, error="") -> HttpResponse:
    context = {
        "comment": comment,
        "form": form,
        "error": error,
        "back_url": item_discussion_url(comment.item, current_project(request).slug),
    }
    return render(request, "review/comments/edit.html", context, status=status)


@require_GET
def item_comments_export(request: HtmxHttpRequest, kind: str, pk: int) -> JsonResponse:
    """The item's discussion as JSON, each comment with its earlier texts: kept apart from
    a plan's export, which is replay data."""
    item = get_item_for_user(request, kind, pk)
    comments = (
        Comment.objects.on(item)
        .visible_to(request.user)
        .select_related("author")
        .prefetch_related("revisions")
    )
    return JsonResponse(
        {
            "item": {"kind": kind, "id": item.pk},
            "comments": [_exported(comment) for comment in comments],
        }
    )


def _exported(comment: Comment) -> dict:
    return {
        "id": comment.pk,
        "author": comment.author.get_username(),
        "text": comment.text,
        "reply_to": comment.reply_to_id,
        "created_at": comment.created_at.isoformat(),
        "edited_at": comment.edited_at.isoformat() if comment.edited_at else None,
        "version": comment.version,
        "earlier_texts": [
            {
                "version": revision.version,
                "text": revision.text,
                "replaced_at": revision.replaced_at.isoformat(),
            }
            for revision in comment.revisions.all()
        ],
    }


@require_POST
def mention_read(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    mention = get_object_or_404(Mention, pk=pk, user=request.user)
    mark_mention_read(mention, user=request.user)
    if request.htmx:
        return render(request, "review/_mentions.html", {"request": request})
    return redirect("dashboard")


# --- what the region draws -----------------------------------------------------------------


def discussion(request, item, *, form: CommentForm | None = None, error: str = "") -> dict:
    """The item's comments that `request.user` may read, as threads, with the forms."""
    kind = Comment.field_for(item)
    comments = list(Comment.objects.on(item).visible_to(request.user).select_related("author"))
    drawn = {comment.pk: _drawn(request, comment) for comment in comments}
    threads = []
    for comment in comments:
        if comment.reply_to_id is None:
            threads.append(drawn[comment.pk])
        elif comment.reply_to_id in drawn:
            drawn[comment.reply_to_id]["replies"].append(drawn[comment.pk])
    return {
        "item": item,
        "kind": kind,
        "threads": threads,
        "count": len(comments),
        "form": form or CommentForm(),
        "error": error,
        "post_url": project_url(request, "comments", kind, item.pk),
        "export_url": project_url(request, "comments-export", kind, item.pk),
    }


def _drawn(request, comment: Comment) -> dict:
    return {
        "pk": comment.pk,
        "author": comment.author.get_username(),
        "created_at": comment.created_at,
        "edited": comment.edited,
        "html": render_markdown(comment.text),
        "edit_url": project_url(request, "comment-edit", comment.pk)
        if comment.author_id == request.user.pk
        else "",
        "replies": [],
    }


def item_discussion_url(item, project_slug: str) -> str:
    """Where an item's discussion is read (in its project, `project_slug`): its own page for a
    case or an answer, the entry's discussion page for an entry."""
    kind = Comment.field_for(item)
    if kind == "entry":
        return reverse("comments", args=[project_slug, kind, item.pk])
    return reverse(kind, args=[project_slug, item.pk]) + "#comments"
