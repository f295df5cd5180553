"""The plans list: status, document, counts and progress; the status filter; the warning for
paths that several documents claim; and the two upload forms."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from review.models import Document, Entry, Plan
from tests.builders.plan_views import entries_of, handbook_text, make_plan
from tests.builders.plans import update_entries
from tests.builders.users import make_project, user_in

pytestmark = pytest.mark.django_db


def test_each_plan_shows_its_status_document_counts_and_progress(client, editor) -> None:
    plan = make_plan(3)
    update_entries(Entry.objects.filter(pk=entries_of(plan)[0].pk), state="accepted")
    client.force_login(editor)
    body = client.get("/p/default/plans/").content.decode()
    assert f'href="/p/default/plans/{plan.pk}/"' in body
    assert "handbook.md" in body
    assert ">Open</span>" in body
    assert "Proposed <b>3</b>" in body
    assert "Accepted <b>1</b>" in body
    assert ">1/4<" in body


def test_the_status_filter_keeps_only_plans_of_that_status(client, editor) -> None:
    open_plan = make_plan(2)
    done = make_plan(2, name="done.md", title="Done")
    Plan.objects.filter(pk=done.pk).update(status="adjudicated")
    client.force_login(editor)
    body = client.get("/p/default/plans/", {"status": "open"}).content.decode()
    assert f'href="/p/default/plans/{open_plan.pk}/"' in body
    assert f'href="/p/default/plans/{done.pk}/"' not in body


def test_a_path_claimed_by_two_documents_is_warned_about_with_the_prefix_fix(
    client, editor
) -> None:
    # Two different documents whose sections are numbered alike propose the same paths.
    make_plan(2, name="a.md", paragraphs=1)
    make_plan(2, name="b.md", paragraphs=2)
    client.force_login(editor)
    body = client.get("/p/default/plans/").content.decode()
    assert "paths claimed by more than one document" in body
    assert "<li><code>handbook/1-section-number-1</code>: a.md, b.md</li>" in body
    assert "--path-prefix" in body


def test_uploading_a_document_proposes_a_plan_with_the_given_options(client, editor) -> None:
    client.force_login(editor)
    upload = SimpleUploadedFile("guide.md", handbook_text(3).encode())
    response = client.post(
        "/p/default/plans/upload-document/",
        {"file": upload, "max_segment_chars": "0", "path_prefix": "guide"},
    )
    plan = Plan.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/p/default/plans/{plan.pk}/"
    assert all(entry.path.startswith("guide/") for entry in plan.entries.all())


def test_an_upload_the_proposer_cannot_read_shows_the_reason_on_the_form(client, editor) -> None:
    client.force_login(editor)
    upload = SimpleUploadedFile("notes.docx", b"not a supported type")
    response = client.post("/p/default/plans/upload-document/", {"file": upload})
    assert response.status_code == 422
    assert 'class="form-errors"' in response.content.decode()
    assert not Document.objects.exists()


def test_importing_a_plan_for_a_stored_document_creates_it(client, editor) -> None:
    source = make_plan(2)
    payload = source.original_payload
    client.force_login(editor)
    upload = SimpleUploadedFile("plan.json", payload.encode().replace(b'"handbook', b'"copy'))
    response = client.post(
        "/p/default/plans/upload-plan/", {"document": source.document_id, "file": upload}
    )
    assert response.status_code == 302
    assert Plan.objects.count() == 2


def test_a_plan_for_other_bytes_is_refused_on_the_form(client, editor) -> None:
    source = make_plan(2)
    payload = json.loads(source.original_payload)
    payload["source_sha256"] = "0" * 64
    client.force_login(editor)
    upload = SimpleUploadedFile("plan.json", json.dumps(payload).encode())
    response = client.post(
        "/p/default/plans/upload-plan/", {"document": source.document_id, "file": upload}
    )
    assert response.status_code == 422
    assert "other bytes" in response.content.decode()
    assert Plan.objects.count() == 1


def test_readers_see_no_upload_forms_and_may_not_post_them(client, django_user_model) -> None:
    client.force_login(user_in(django_user_model, "rita", "Readers"))
    body = client.get("/p/default/plans/").content.decode()
    assert "upload-document" not in body
    upload = SimpleUploadedFile("guide.md", handbook_text(1).encode())
    assert client.post("/p/default/plans/upload-document/", {"file": upload}).status_code == 403
    assert not Document.objects.exists()


def test_the_upload_views_take_only_posts(client, editor) -> None:
    client.force_login(editor)
    assert client.get("/p/default/plans/upload-document/").status_code == 405
    assert client.get("/p/default/plans/upload-plan/").status_code == 405


def _plans_on(body: str, plans) -> list[int]:
    return [plan.pk for plan in plans if f'href="/p/default/plans/{plan.pk}/"' in body]


def _next_url(response) -> str:
    page = response.context["page"]
    return f"/p/default/plans/?{page.next_query}" if page.has_next else ""


def test_the_list_pages_by_keyset_newest_first_through_to_the_last_page(
    client, editor, monkeypatch
) -> None:
    from review.views import plans as plans_view

    monkeypatch.setattr(plans_view, "PLANS_PER_PAGE", 2)
    made = [make_plan(1, name=f"doc-{number}.md", paragraphs=number + 1) for number in range(5)]
    newest_first = sorted(made, key=lambda plan: (plan.created_at, plan.pk), reverse=True)
    client.force_login(editor)
    seen, url = [], "/p/default/plans/"
    while url:
        response = client.get(url)
        assert response.status_code == 200
        seen += [row[0].pk for row in response.context["rows"]]
        url = _next_url(response)
    assert seen == [plan.pk for plan in newest_first]
    last = client.get("/p/default/plans/", {"page": "last"}).content.decode()
    # The last page is a full one: the oldest two.
    assert sorted(_plans_on(last, made)) == sorted(plan.pk for plan in newest_first[3:])
    assert 'rel="next"' not in last
    assert 'rel="first"' in last and 'rel="prev"' in last


def test_a_status_filter_keeps_its_filter_on_the_next_page(client, editor, monkeypatch) -> None:
    from review.views import plans as plans_view

    monkeypatch.setattr(plans_view, "PLANS_PER_PAGE", 1)
    made = [make_plan(1, name=f"doc-{number}.md", paragraphs=number + 1) for number in range(3)]
    Plan.objects.filter(pk=made[1].pk).update(status="adjudicated")
    client.force_login(editor)
    first = client.get("/p/default/plans/", {"status": "open"})
    assert "status=open" in _next_url(first)
    second = client.get(_next_url(first)).content.decode()
    assert _plans_on(second, made) == [made[0].pk]


def test_a_cursor_that_is_not_a_page_of_the_list_is_refused_naming_it(client, editor) -> None:
    client.force_login(editor)
    response = client.get("/p/default/plans/", {"after": "x1"})
    assert response.status_code == 400
    assert response.content.decode().startswith("after: 'x1' is not a page of this list")


def test_the_list_asks_as_many_queries_for_many_plans_as_for_few(client, editor) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(editor)
    make_plan(2, name="a.md", paragraphs=1)
    make_plan(2, name="b.md", paragraphs=2)
    client.get("/p/default/plans/")
    with CaptureQueriesContext(connection) as few:
        client.get("/p/default/plans/")
    for number in range(6):
        make_plan(3, name=f"doc-{number}.md", paragraphs=number + 2)
    with CaptureQueriesContext(connection) as many:
        body = client.get("/p/default/plans/").content.decode()
    assert len(many) == len(few)
    assert "claimed by more than one document" in body


def test_counts_shown_come_from_the_stored_counters_not_the_entries(client, editor) -> None:
    plan = make_plan(3)
    Plan.objects.filter(pk=plan.pk).update(count_accepted=7)
    client.force_login(editor)
    assert "Accepted <b>7</b>" in client.get("/p/default/plans/").content.decode()


def test_the_import_form_offers_the_latest_documents_and_takes_any_stored_one(
    client, editor, monkeypatch
) -> None:
    from review.forms import StoredDocumentForm

    monkeypatch.setattr(StoredDocumentForm, "DOCUMENTS_OFFERED", 1)  # both forms
    older = make_plan(2, name="older.md", paragraphs=1).document
    newer = make_plan(2, name="newer.md", paragraphs=2).document
    client.force_login(editor)
    body = client.get("/p/default/plans/").content.decode()
    assert f'<option value="{newer.pk}">newer.md</option>' in body
    assert f'<option value="{older.pk}">' not in body
    payload = Plan.objects.filter(document=older).get().original_payload
    upload = SimpleUploadedFile("again.json", payload.replace("\\n}", "}").encode())
    response = client.post("/p/default/plans/upload-plan/", {"document": older.pk, "file": upload})
    assert response.status_code == 302


def test_a_stored_document_is_proposed_again_with_other_options(client, editor) -> None:
    """What the API's propose does, from the page: the same bytes, a new plan by new options,
    the first left as it was."""
    first = make_plan(3)
    client.force_login(editor)

    response = client.post(
        "/p/default/plans/propose-again/",
        {"document": first.document_id, "max_segment_chars": "0", "path_prefix": "guide"},
    )

    again = Plan.objects.exclude(pk=first.pk).get()
    assert response.status_code == 302
    assert response["Location"] == f"/p/default/plans/{again.pk}/"
    assert again.document_id == first.document_id
    assert all(entry.path.startswith("guide/") for entry in again.entries.all())
    assert not any(entry.path.startswith("guide/") for entry in first.entries.all())


def test_the_page_offers_a_stored_document_to_propose_again(client, editor) -> None:
    plan = make_plan(2)
    client.force_login(editor)

    body = client.get("/p/default/plans/").content.decode()

    assert 'action="/p/default/plans/propose-again/"' in body
    assert f'<option value="{plan.document_id}">' in body
    assert 'id="again-document"' in body and body.count('id="id_document"') == 1


def test_another_projects_document_is_not_proposed_again_here(client, editor) -> None:
    elsewhere = make_plan(2, project=make_project("shop"))
    client.force_login(editor)

    response = client.post("/p/default/plans/propose-again/", {"document": elsewhere.document_id})

    assert response.status_code == 422
    assert "Select a valid choice" in response.content.decode()
    assert Plan.objects.count() == 1


def test_only_editors_propose_again(client, django_user_model) -> None:
    plan = make_plan(2)
    client.force_login(user_in(django_user_model, "rita", "Readers"))

    response = client.post("/p/default/plans/propose-again/", {"document": plan.document_id})

    assert response.status_code == 403 and Plan.objects.count() == 1
