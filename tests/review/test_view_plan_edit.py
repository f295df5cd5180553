"""Editing an entry: the form in place of its row, the checks, and the paragraph boundaries
offered when a boundary moves into the middle of a paragraph."""

from __future__ import annotations

import pytest

from review.models import Decision, Entry
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def plan():
    return make_plan(3)


def post_edit(client, entry: Entry, htmx: bool = True, **changes):
    entry = Entry.objects.get(pk=entry.pk)
    data = {
        "version": entry.version,
        "title": entry.title,
        "path": entry.path,
        "start": entry.span_start,
        "end": entry.span_end,
    } | changes
    url = f"/p/default/plans/{entry.plan_id}/entries/{entry.pk}/edit/"
    return client.post(url, data, headers=HTMX if htmx else {})


def test_the_edit_form_replaces_the_row_with_the_entry_s_values(client, editor, plan) -> None:
    entry = entries_of(plan)[1]
    client.force_login(editor)
    response = client.get(f"/p/default/plans/{plan.pk}/entries/{entry.pk}/edit/", headers=HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body
    assert f'value="{entry.path}"' in body
    assert f'value="{entry.span_start}"' in body
    assert "Paragraph starts nearby" in body


def test_without_javascript_the_edit_form_is_a_page_of_its_own(client, editor, plan) -> None:
    entry = entries_of(plan)[1]
    client.force_login(editor)
    body = client.get(f"/p/default/plans/{plan.pk}/entries/{entry.pk}/edit/").content.decode()
    assert "<html" in body
    assert "Save edit" in body


def test_saving_a_new_title_and_path_makes_the_entry_edited(client, editor, plan) -> None:
    entry = entries_of(plan)[1]
    client.force_login(editor)
    response = post_edit(client, entry, title="Scope", path="handbook/scope")
    body = response.content.decode()
    saved = Entry.objects.get(pk=entry.pk)
    assert response.status_code == 200
    assert (saved.title, saved.path, saved.state) == ("Scope", "handbook/scope", "edited")
    assert "handbook/scope" in body
    assert Decision.objects.get().action == "entry.edit"


def test_a_bad_path_comes_back_on_the_form_with_grounding_s_reason(client, editor, plan) -> None:
    entry = entries_of(plan)[1]
    client.force_login(editor)
    response = post_edit(client, entry, path="Bad Path!")
    body = response.content.decode()
    assert response.status_code == 422
    assert "slugs" in body
    assert 'value="Bad Path!"' in body
    assert not Decision.objects.exists()


def test_a_start_inside_a_paragraph_is_offered_the_nearest_boundaries(client, editor, plan) -> None:
    entry = entries_of(plan)[2]
    text = plan.document.text
    paragraph = text.index("Paragraph 1", entry.span_start)
    client.force_login(editor)
    response = post_edit(client, entry, start=paragraph + 5)
    body = response.content.decode()
    assert response.status_code == 200
    assert f'name="snap_start" value="{paragraph}"' in body
    assert "Keep my boundaries" in body
    assert not Decision.objects.exists()

    post_edit(client, entry, start=paragraph + 5, snap_start=paragraph)
    assert Entry.objects.get(pk=entry.pk).span_start == paragraph


def test_keeping_a_mid_paragraph_boundary_saves_it_and_redraws_the_text_around_it(
    client, editor, plan
) -> None:
    entry = entries_of(plan)[2]
    previous = entries_of(plan)[1]
    inside = plan.document.text.index("Paragraph 1", entry.span_start) + 5
    client.force_login(editor)
    body = post_edit(client, entry, start=inside, keep_boundaries="1").content.decode()
    assert Entry.objects.get(pk=entry.pk).span_start == inside
    assert f'<span id="region-{entry.pk}" class="region" hx-swap-oob="true">' in body
    # The text between the two entries now belongs to no entry.
    assert f'<span id="region-{previous.pk}" class="region" hx-swap-oob="true">' in body
    assert "not covered" in body


def test_a_plain_post_edit_redirects_back(client, editor, plan) -> None:
    entry = entries_of(plan)[1]
    client.force_login(editor)
    response = post_edit(client, entry, htmx=False, title="Scope")
    assert response.status_code == 302


def test_a_reader_may_not_edit(client, django_user_model, plan) -> None:
    entry = entries_of(plan)[1]
    client.force_login(user_in(django_user_model, "rita", "Readers"))
    assert client.get(f"/p/default/plans/{plan.pk}/entries/{entry.pk}/edit/").status_code == 403
    assert post_edit(client, entry, title="Scope").status_code == 403


def test_cancel_brings_the_row_back(client, editor, plan) -> None:
    entry = entries_of(plan)[1]
    client.force_login(editor)
    body = client.get(
        f"/p/default/plans/{plan.pk}/entries/{entry.pk}/", headers=HTMX
    ).content.decode()
    assert body.lstrip().startswith(f'<li id="entry-{entry.pk}"')
    plain = client.get(f"/p/default/plans/{plan.pk}/entries/{entry.pk}/")
    assert plain.status_code == 302


def test_a_boundary_offer_on_a_stale_version_answers_409_instead_of_a_form_with_the_new_one(
    client, editor, plan
) -> None:
    entry = entries_of(plan)[1]
    client.force_login(editor)
    seen = entry.version
    # Someone else decides the entry after this editor opened the form.
    client.post(f"/p/default/plans/{plan.pk}/entries/{entry.pk}/accept/", {"version": seen})
    response = post_edit(client, entry, version=seen, start=entry.span_start + 5)
    assert response.status_code == 409
    body = response.content.decode()
    assert "Keep my boundaries" not in body  # no offer to submit at the new version
    assert "Not applied" in body
    assert list(Decision.objects.values_list("action", flat=True)) == ["entry.accept"]


def test_a_refused_edit_on_a_stale_version_answers_409_too(client, editor, plan) -> None:
    entry = entries_of(plan)[1]
    client.force_login(editor)
    seen = entry.version
    client.post(f"/p/default/plans/{plan.pk}/entries/{entry.pk}/accept/", {"version": seen})
    response = post_edit(client, entry, version=seen, path="Not A Path!")
    assert response.status_code == 409
    assert list(Decision.objects.values_list("action", flat=True)) == ["entry.accept"]


def test_an_edit_that_meets_another_s_decision_brings_the_counters_it_left_out_of_band(
    client, editor, plan, django_user_model
) -> None:
    entry = entries_of(plan)[1]
    seen = entry.version
    client.force_login(user_in(django_user_model, "editor2", "Editors"))
    client.post(f"/p/default/plans/{plan.pk}/entries/{entry.pk}/reject/", {"version": seen})
    client.force_login(editor)

    body = post_edit(client, entry, version=seen, title="Mine").content.decode()

    counters = body[body.index('<section id="plan-counters"') :]
    assert counters.startswith('<section id="plan-counters"')
    assert 'hx-swap-oob="true"' in counters[: counters.index(">")]
    rejected = plan.entries.counts().rejected
    assert rejected == 1
    assert f'<li class="state state-rejected">Rejected <b>{rejected}</b></li>' in counters


def test_an_edit_that_meets_another_s_decision_keeps_what_was_typed_beside_it(
    client, editor, plan, django_user_model
) -> None:
    entry = entries_of(plan)[1]
    seen = entry.version
    client.force_login(user_in(django_user_model, "editor2", "Editors"))
    client.post(f"/p/default/plans/{plan.pk}/entries/{entry.pk}/reject/", {"version": seen})
    client.force_login(editor)
    response = post_edit(client, entry, version=seen, title="My careful new title")
    body = response.content.decode()
    assert response.status_code == 409
    assert "editor2 changed this entry" in body and "It is now rejected" in body
    assert 'value="My careful new title"' in body
    assert f'name="version" value="{seen + 1}"' in body
    # Saving again applies the edit over the other decision, now that it was seen.
    again = post_edit(client, entry, title="My careful new title")
    assert again.status_code == 200
    assert Entry.objects.get(pk=entry.pk).title == "My careful new title"


def test_the_form_hands_the_action_whole_numbers_it_read_not_the_text_typed(plan) -> None:
    from review.forms import EntryEditForm

    entry = entries_of(plan)[1]
    typed = {"title": "  Scope ", "path": "handbook/scope", "start": " 12 ", "end": "40"}

    request = EntryEditForm(entry, len(plan.document.text), typed).edit_request()

    assert (request.title, request.start, request.end) == ("Scope", 12, 40)
    assert request.unreadable == {}


def test_an_offset_past_the_text_is_refused_beside_its_field(client, editor, plan) -> None:
    entry = entries_of(plan)[1]
    length = len(plan.document.text)
    client.force_login(editor)

    response = post_edit(client, entry, end=length + 10)

    body = response.content.decode()
    assert response.status_code == 422
    assert f'<span class="form-errors" id="edit-end-error-{entry.pk}">' in body
    assert f"an offset is at most {length}, not {length + 10}" in body
    assert f'aria-describedby="edit-end-error-{entry.pk}"' in body
    assert f'value="{length + 10}"' in body  # kept as typed
    assert not Decision.objects.exists()


def test_an_offset_that_is_no_number_is_refused_once_beside_its_field(client, editor, plan) -> None:
    entry = entries_of(plan)[1]
    client.force_login(editor)

    response = post_edit(client, entry, start="twelve")

    body = response.content.decode()
    assert response.status_code == 422
    assert body.count("Enter a character offset (a whole number).") == 1
    assert f'id="edit-start-error-{entry.pk}"' in body
    assert not Decision.objects.exists()


def test_an_unreadable_offset_on_a_stale_version_is_a_conflict_keeping_the_text(
    client, editor, plan
) -> None:
    entry = entries_of(plan)[1]
    client.force_login(editor)
    seen = entry.version
    client.post(f"/p/default/plans/{plan.pk}/entries/{entry.pk}/accept/", {"version": seen})

    response = post_edit(client, entry, version=seen, title="Typed title", start="twelve")

    assert response.status_code == 409
    assert 'value="Typed title"' in response.content.decode()
    assert list(Decision.objects.values_list("action", flat=True)) == ["entry.accept"]
