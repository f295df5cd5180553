"""The discussion region of the case, answer and entry pages: reading, adding (htmx and a
plain form), replying, editing one's own, the export, and the dashboard's mentions."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from review.actions.plan_reviews import open_review_copy
from review.models import Comment, Mention
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.pages import html_of
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.reviews import double_review
from tests.builders.users import member, user_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def comments_url(kind, pk):
    return f"/p/default/discussion/{kind}/{pk}/"


def test_a_comment_added_over_htmx_answers_with_the_region_holding_it(client, moderator):
    case = make_case("c-1")

    response = client.post(comments_url("case", case.pk), {"text": "Check **e1**."}, headers=HTMX)

    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body and 'id="comments"' in body
    assert "<strong>e1</strong>" in body
    assert Comment.objects.get().author == moderator


def test_a_plain_comment_post_redirects_to_the_item_page_where_it_shows(client, moderator):
    case = make_case("c-1")

    response = client.post(comments_url("case", case.pk), {"text": "plain"})

    assert response.status_code == 302
    assert response["Location"] == f"/p/default/cases/{case.pk}/#comments"
    assert "plain" in client.get(f"/p/default/cases/{case.pk}/").content.decode()


def test_the_answer_page_shows_its_discussion(client, editor):
    answer = make_answer("a-1")
    client.post(comments_url("answer", answer.pk), {"text": "cite [2]?"})
    body = client.get(f"/p/default/answers/{answer.pk}/").content.decode()
    assert "Discussion (1)" in body and "cite [2]?" in body


def test_a_script_in_a_comment_is_shown_as_text(client, moderator):
    case = make_case("c-1")
    client.post(
        comments_url("case", case.pk),
        {"text": "<script>alert(1)</script> [x](javascript:alert(1))"},
    )

    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    assert "<script>alert(1)" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert 'href="javascript:' not in body


def test_an_empty_comment_is_refused_with_the_reason(client, moderator):
    case = make_case("c-1")
    response = client.post(comments_url("case", case.pk), {"text": " "}, headers=HTMX)
    assert response.status_code == 422
    assert "needs some text" in response.content.decode()
    assert not Comment.objects.exists()


def test_a_comment_needs_the_csrf_token(moderator):
    case = make_case("c-1")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(moderator)
    assert strict.post(comments_url("case", case.pk), {"text": "x"}).status_code == 403
    assert not Comment.objects.exists()


def test_editing_and_marking_read_are_post_only_where_they_change_something(client, moderator):
    assert client.get("/mentions/1/read/").status_code == 405


def test_someone_who_may_not_see_the_entry_gets_404_for_its_discussion(client, django_user_model):
    first = user_in(django_user_model, "first_editor", "Editors")
    other = user_in(django_user_model, "other_editor", "Editors")
    double_review("plans")
    copy = open_review_copy(make_plan(2), actor=first)
    entry = entries_of(copy)[0]
    client.force_login(other)

    assert client.get(comments_url("entry", entry.pk)).status_code == 404
    assert client.post(comments_url("entry", entry.pk), {"text": "x"}).status_code == 404
    assert client.get(comments_url("entry", entry.pk) + "comments.json").status_code == 404
    assert not Comment.objects.exists()


def test_an_entry_is_discussed_on_its_own_page_linked_from_its_row(client, editor):
    plan = make_plan(2)
    entry = entries_of(plan)[0]

    assert comments_url("entry", entry.pk) in html_of(client.get(f"/p/default/plans/{plan.pk}/"))
    client.post(comments_url("entry", entry.pk), {"text": "Split here?"})
    body = client.get(comments_url("entry", entry.pk)).content.decode()
    assert "Split here?" in body and entry.title in body


def test_a_reply_is_drawn_under_its_comment(client, moderator):
    case = make_case("c-1")
    client.post(comments_url("case", case.pk), {"text": "top"})
    top = Comment.objects.get()

    client.post(comments_url("case", case.pk), {"text": "answering", "reply_to": top.pk})

    body = client.get(comments_url("case", case.pk), headers=HTMX).content.decode()
    replies = body.split('class="comment-replies"', 1)[1]
    assert "answering" in replies
    assert Comment.objects.get(text="answering").reply_to == top


def test_editing_ones_own_comment_shows_it_edited_and_keeps_the_earlier_text(client, moderator):
    case = make_case("c-1")
    client.post(comments_url("case", case.pk), {"text": "first words"})
    comment = Comment.objects.get()

    response = client.post(
        f"/p/default/comments/{comment.pk}/edit/", {"text": "better words", "version": 1}
    )

    assert response.status_code == 302
    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()
    assert "better words" in body and ">edited<" in body
    assert "first words" not in body
    assert list(comment.revisions.values_list("text", flat=True)) == ["first words"]


def test_a_stale_edit_is_refused_with_409_and_the_text_stays_as_it_was(client, moderator):
    case = make_case("c-1")
    client.post(comments_url("case", case.pk), {"text": "v1"})
    comment = Comment.objects.get()
    client.post(f"/p/default/comments/{comment.pk}/edit/", {"text": "v2", "version": 1})

    response = client.post(f"/p/default/comments/{comment.pk}/edit/", {"text": "v3", "version": 1})

    assert response.status_code == 409
    assert "moderator saved a newer version" in response.content.decode()
    comment.refresh_from_db()
    assert comment.text == "v2"


def test_nobody_edits_anothers_comment(client, moderator, moderator2):
    case = make_case("c-1")
    client.force_login(moderator)
    client.post(comments_url("case", case.pk), {"text": "mine"})
    comment = Comment.objects.get()
    client.force_login(moderator2)

    response = client.post(
        f"/p/default/comments/{comment.pk}/edit/", {"text": "yours", "version": 1}
    )

    assert response.status_code == 404
    comment.refresh_from_db()
    assert comment.text == "mine"


def test_the_discussion_export_has_each_comment_with_its_earlier_texts(client, moderator):
    case = make_case("c-1")
    client.post(comments_url("case", case.pk), {"text": "v1"})
    comment = Comment.objects.get()
    client.post(f"/p/default/comments/{comment.pk}/edit/", {"text": "v2", "version": 1})

    exported = json.loads(client.get(comments_url("case", case.pk) + "comments.json").content)

    assert exported["item"] == {"kind": "case", "id": case.pk}
    [row] = exported["comments"]
    assert (row["text"], row["author"], row["version"]) == ("v2", "moderator", 2)
    assert [earlier["text"] for earlier in row["earlier_texts"]] == ["v1"]


def test_a_mention_shows_on_the_dashboard_until_it_is_marked_read(client, moderator, moderator2):
    case = make_case("c-1")
    member(moderator2, case.project_id)  # mentioned: a member of the case's project
    client.force_login(moderator)
    client.post(comments_url("case", case.pk), {"text": "@moderator2 what do you think?"})
    client.force_login(moderator2)

    body = client.get("/").content.decode()
    assert "Mentions of you (1 unread)" in body and "what do you think?" in body
    mention = Mention.objects.get()
    assert f'href="/p/default/cases/{case.pk}/#comments"' in body

    response = client.post(f"/mentions/{mention.pk}/read/", headers=HTMX)
    assert response.status_code == 200 and "Mentions of you" not in response.content.decode()
    assert "Mentions of you" not in client.get("/").content.decode()


def test_only_the_person_mentioned_marks_their_mention_read(client, moderator, moderator2):
    case = make_case("c-1")
    member(moderator2, case.project_id)  # mentioned: a member of the case's project
    client.force_login(moderator)
    client.post(comments_url("case", case.pk), {"text": "@moderator2 look"})

    response = client.post(f"/mentions/{Mention.objects.get().pk}/read/")

    assert response.status_code == 404
    assert Mention.objects.get().read_at is None


def test_under_blind_review_the_second_reviewer_reads_the_first_ones_comment_only_once_settled(
    client, moderator, moderator2
):
    double_review("cases")
    case = make_case("c-1")
    client.force_login(moderator)
    client.post(f"/p/default/cases/{case.pk}/uphold/", {"version": case.version, "note": ""})
    client.post(comments_url("case", case.pk), {"text": "I upheld: rule 4"})
    client.force_login(moderator2)

    assert "rule 4" not in client.get(f"/p/default/cases/{case.pk}/").content.decode()
    assert (
        "rule 4" not in client.get(comments_url("case", case.pk) + "comments.json").content.decode()
    )

    case.refresh_from_db()
    client.post(f"/p/default/cases/{case.pk}/uphold/", {"version": case.version, "note": ""})
    assert "rule 4" in client.get(f"/p/default/cases/{case.pk}/").content.decode()


def test_the_comment_form_drawn_on_the_case_page_carries_its_csrf_token(moderator):
    case = make_case("c-1")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(moderator)

    region = (
        strict.get(f"/p/default/cases/{case.pk}/").content.decode().split('id="comments"', 1)[1]
    )

    assert 'name="csrfmiddlewaretoken"' in region.split("</section>", 1)[0]
