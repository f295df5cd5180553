"""The revision page, the upload of a revision, and what the plan page adds for a carried plan:
how many entries need you, the earlier decision beside an entry, and a doubtful anchor's diff."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from grounding.revisions import candidate_places
from review.models import Document, Entry
from tests.builders.pages import html_of
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.plans import row_counts, update_entries
from tests.builders.revisions import (
    ADDED,
    CHANGED,
    FIRST,
    NAME,
    REMOVED,
    SECOND,
    decided_plan,
    first_plan,
    revise,
    titled,
)
from tests.builders.urls import url_of

pytestmark = pytest.mark.django_db
HTMX = {"HX-Request": "true"}


@pytest.fixture
def carried(alice):
    return revise(decided_plan(alice), alice)


def upload(client, document: Document, data: bytes = SECOND, name: str = NAME):
    return client.post(
        url_of("revision-upload", document.pk), {"file": SimpleUploadedFile(name, data)}
    )


def test_an_editor_uploads_a_revision_and_lands_on_its_page(client, editor) -> None:
    plan = first_plan()

    response = upload(client, plan.document)

    revision = Document.objects.get(revision_of=plan.document)
    assert response.status_code == 302
    assert response["Location"] == url_of("revision", revision.pk)
    page = client.get(response["Location"])
    assert "entries need you" in html_of(page)
    assert f"Stored revision 2 and carried plan {plan.pk}" in html_of(page)


def test_a_reader_may_not_upload_a_revision(client, reader) -> None:
    plan = first_plan()
    before = row_counts()

    assert upload(client, plan.document).status_code == 403
    assert row_counts() == before


def test_the_upload_takes_only_a_post(client, editor) -> None:
    plan = first_plan()

    assert client.get(url_of("revision-upload", plan.document.pk)).status_code == 405


def test_a_revision_of_an_unknown_document_is_not_found(client, editor) -> None:
    assert upload(client, Document(pk=999)).status_code == 404


def test_a_refused_revision_comes_back_on_the_form_with_the_reason(client, editor) -> None:
    plan = first_plan()
    before = row_counts()

    response = upload(client, plan.document, data=FIRST)

    assert response.status_code == 422
    assert "already stored as document" in html_of(response)
    assert row_counts() == before


def test_the_revision_page_shows_the_change_by_paragraph_beside_the_entries_it_touched(
    client, reader, carried
) -> None:
    response = client.get(url_of("revision", carried.revision.pk))
    page = html_of(response)

    assert response.status_code == 200
    # The changed paragraph's words: 90 minutes became 60.
    assert "<del>90</del><ins>60</ins>" in page
    assert 'class="para para-removed"' in page and 'class="para para-moved"' in page
    need = carried.plan.entries.counts().need_you
    assert f"{need} of {carried.plan.entries.count()} entries need you" in page
    assert REMOVED in page and ADDED in page
    # A reader sees no upload form.
    assert "Upload a revised version" not in page


def test_only_the_latest_revision_offers_the_upload(client, editor, carried) -> None:
    earlier = client.get(url_of("revision", carried.revision.revision_of_id))
    latest = client.get(url_of("revision", carried.revision.pk))

    assert "Upload a revised version" not in html_of(earlier)
    assert "A newer revision exists" in html_of(earlier)
    assert "Upload a revised version" in html_of(latest)


def test_the_plan_page_says_how_many_entries_need_you_and_marks_them(
    client, reader, carried
) -> None:
    plan = carried.plan
    page = html_of(client.get(url_of("plan", plan.pk)))

    counts = plan.entries.counts()
    assert f'<strong class="num">{counts.need_you}</strong> of' in page
    assert page.count("data-needs-you") == counts.need_you
    assert f'carried from <a href="{url_of("plan", plan.carried_from_id)}"' in page


def test_a_doubtful_entry_shows_the_earlier_decision_and_its_quote_against_the_text(
    client, reader, carried
) -> None:
    entry = titled(carried.plan, CHANGED)
    page = html_of(client.get(url_of("plan", carried.plan.pk)))
    row = page[page.index(f'id="entry-{entry.pk}"') :]
    row = row[: row.index("</li>")]

    assert "Suggestion from revision 1: it was accepted by alice" in row
    assert "What the anchor quoted, against the text at its span" in row
    assert "<del>" in row and "<ins>" in row


def test_document_text_in_the_word_diff_is_escaped(client, editor, alice) -> None:
    plan = decided_plan(alice)
    hostile = SECOND.replace(b"60 minutter", b"<script>alert(1)</script> minutter")
    revised = revise(plan, alice, data=hostile)

    page = html_of(client.get(url_of("plan", revised.plan.pk)))
    revision_page = html_of(client.get(url_of("revision", revised.revision.pk)))

    for html in (page, revision_page):
        assert "<script>alert(1)" not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_accepting_a_doubtful_entry_over_htmx_redraws_it_with_its_diff(
    client, editor, carried
) -> None:
    entry = titled(carried.plan, CHANGED)

    response = client.post(
        url_of("entry-decide", carried.plan.pk, entry.pk, "accept"),
        {"version": entry.version},
        headers=HTMX,
    )

    html = html_of(response)
    assert response.status_code == 200 and "<html" not in html
    assert Entry.objects.get(pk=entry.pk).state == Entry.State.ACCEPTED
    # Still to confirm: the diff stays beside it, and it still needs the editor.
    assert "What the anchor quoted" in html and "data-needs-you" in html


def test_an_ambiguous_anchor_lists_every_place_its_quote_stands(client, reader) -> None:
    plan = make_plan(3)
    entry = entries_of(plan)[1]
    text = plan.document.text
    quote = "in words an editor can read."
    start = text.index(quote, entry.span_start)
    update_entries(
        Entry.objects.filter(pk=entry.pk),
        anchor_status="ambiguous",
        quote=quote,
        span_start=start,
        span_end=start + len(quote),
    )

    page = html_of(client.get(url_of("plan", plan.pk)))

    places = candidate_places(text, quote)
    assert len(places) > 1
    assert f"The quote stands in {len(places)} places" in page
    assert f'at <span class="num">{start}</span> (this span)' in page


def test_the_plans_list_names_the_revision_each_plan_is_on(client, reader, carried) -> None:
    # Every plan, the superseded first revision's too.
    page = html_of(client.get(url_of("plans") + "?status=all"))

    assert f"{NAME} (revision 2)" in page
    assert page.count(f"<td>{NAME}</td>") == 1
