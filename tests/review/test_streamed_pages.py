"""The plan page is sent as it is drawn: the same page as drawn whole, in pieces, with everything
that touches the request (messages, CSRF) settled before the first piece goes."""

from __future__ import annotations

import re

import pytest
from django.shortcuts import render
from django.test import RequestFactory

from review.views import plan as plan_views
from review.views.streaming import PIECE_CHARS, streamed_page
from tests.builders.pages import html_of
from tests.builders.plan_views import entries_of, make_plan

pytestmark = pytest.mark.django_db

# What differs between two answers of the same page: the masked CSRF token and the moment the
# page was drawn (the presence poll's "seen").
VARYING = re.compile(r'(csrfmiddlewaretoken" value="|x-csrftoken": "|name="seen" value=")[^"]*')


def drawn_whole(monkeypatch, client, plan) -> str:
    def whole(request, template_name, context, *, streamed, status=200):
        return render(request, template_name, context, status=status)

    with monkeypatch.context() as patch:
        patch.setattr(plan_views, "streamed_page", whole)
        response = client.get(f"/p/default/plans/{plan.pk}/")
    assert not response.streaming
    return response.content.decode()


def test_the_streamed_plan_page_is_the_page_drawn_whole(monkeypatch, client, editor) -> None:
    plan = make_plan(60, paragraphs=3)
    client.force_login(editor)
    streamed = client.get(f"/p/default/plans/{plan.pk}/")
    assert streamed.streaming
    assert VARYING.sub("", html_of(streamed)) == VARYING.sub(
        "", drawn_whole(monkeypatch, client, plan)
    )


def test_a_long_plan_goes_in_pieces_the_first_holding_the_page_up_to_the_document(
    client, editor
) -> None:
    plan = make_plan(120, paragraphs=3)
    client.force_login(editor)
    pieces = [
        piece.decode() for piece in client.get(f"/p/default/plans/{plan.pk}/").streaming_content
    ]
    assert len(pieces) > 4
    first = pieces[0]
    assert "<h1>handbook.md</h1>" in first and 'name="csrfmiddlewaretoken"' in first
    assert '<div class="doc-chunk">' not in first
    # Each list's rows are sent in pieces of about PIECE_CHARS, not one piece per run or list.
    assert all(len(piece) < 3 * PIECE_CHARS for piece in pieces)
    body = "".join(pieces)
    assert [int(pk) for pk in re.findall(r'<li id="entry-(\d+)"', body)] == [
        entry.pk for entry in entries_of(plan)
    ]


def test_a_refusal_shown_above_the_page_is_in_its_first_piece(client, editor) -> None:
    # A plain form's refused decision: the message is drawn (and so used up) before the page
    # starts to go, while the session can still record that.
    plan = make_plan(3)
    first = entries_of(plan)[0]
    client.force_login(editor)
    response = client.post(
        f"/p/default/plans/{plan.pk}/entries/{first.pk}/merge/", {"version": first.version}
    )
    assert response.status_code == 422
    assert "has no entry before it to merge into" in next(iter(response.streaming_content)).decode()
    again = html_of(client.get(f"/p/default/plans/{plan.pk}/"))
    assert "has no entry before it to merge into" not in again


def test_a_template_that_does_not_mark_a_streamed_list_is_refused_before_anything_goes(
    editor,
) -> None:
    plan = make_plan(2)
    request = RequestFactory().get("/")
    request.user = editor
    with pytest.raises(ValueError, match="live_reload.html does not mark where rows goes"):
        streamed_page(
            request,
            "review/plans/live_reload.html",
            {"plan": plan, "rows": []},
            streamed={"rows": "review/plans/plan.html#entry-row"},
        )
