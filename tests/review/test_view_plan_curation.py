"""The curation page of a double-reviewed plan: the curator takes one review's version of an
entry, or edits it as the settled version under the entry edit's rules; each settlement
(and each agreement) is logged, versioned and undoable there while the plan is open."""

from __future__ import annotations

import json
import re

import pytest
from django.utils.html import escape

from review.actions.plan_reviews import differing_entries, open_review_copy, review_copies
from review.adapters.plans import export_plan
from review.models import Decision, Entry
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.plans import update_entries
from tests.builders.reviews import double_review, hand_in_review
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def editor2(django_user_model):
    return user_in(django_user_model, "editor2", "Editors")


@pytest.fixture
def plan(editor, editor2):
    """Three entries; the two reviews differ on the last two."""
    double_review("plans")
    plan = make_plan(3)
    hand_in_review(open_review_copy(plan, actor=editor), editor)
    hand_in_review(open_review_copy(plan, actor=editor2), editor2, reject={1, 2})
    return plan


def edit(client, plan, entry, **fields):
    entry.refresh_from_db()
    data = {
        "version": entry.version,
        "title": entry.title,
        "path": entry.path,
        "start": entry.span_start,
        "end": entry.span_end,
        "state": "",
        "note": "",
    }
    return client.post(f"/p/default/plans/{plan.pk}/curation/{entry.pk}/edit/", data | fields)


def undo(client, plan, entry):
    entry.refresh_from_db()
    return client.post(
        f"/p/default/plans/{plan.pk}/curation/{entry.pk}/undo/", {"version": entry.version}
    )


def to_settle(plan) -> list[int]:
    return [entry.position for entry, _, _ in differing_entries(plan)]


def test_the_edit_form_starts_from_the_review_the_curator_chose(client, plan, curator):
    entry = entries_of(plan)[1]

    body = client.get(
        f"/p/default/plans/{plan.pk}/curation/?edit={entry.pk}&from=second"
    ).content.decode()

    assert f'action="/p/default/plans/{plan.pk}/curation/{entry.pk}/edit/"' in body
    assert '<option value="rejected" selected>' in body
    assert f'value="{entry.title}"' in body


def test_the_curators_edit_settles_the_entry_with_their_values_logged_naming_both(
    client, plan, curator
):
    entry = entries_of(plan)[1]

    response = edit(client, plan, entry, title="A better title", note="Neither had it right.")

    assert response.status_code == 302
    entry.refresh_from_db()
    assert (entry.title, entry.state, entry.decided_by) == ("A better title", "edited", curator)
    settled = Decision.objects.filter(object_id=str(entry.pk), action="entry.curate").get()
    assert "accepted by editor and rejected by editor2: edited" in settled.note
    assert settled.note.endswith("Neither had it right.")
    assert settled.after["title"] == "A better title"
    assert to_settle(plan) == [2]


def test_the_curator_may_settle_an_edited_entry_as_rejected(client, plan, curator):
    entry = entries_of(plan)[2]

    edit(client, plan, entry, state="rejected")

    entry.refresh_from_db()
    assert entry.state == "rejected"
    assert Decision.objects.filter(object_id=str(entry.pk), action="entry.curate").exists()


def test_a_curators_edit_is_held_to_the_entry_edits_rules(client, plan, curator):
    entry = entries_of(plan)[1]
    version = entry.version

    response = edit(client, plan, entry, path="Not A Path!")

    body = response.content.decode()
    assert response.status_code == 422
    assert 'id="edit-path-error-' in body and "Not A Path!" in body
    entry.refresh_from_db()
    assert (entry.state, entry.version) == ("proposed", version)


def test_a_curators_merge_into_nothing_is_refused_by_the_merge_rule(
    client, editor, editor2, curator
):
    double_review("plans")
    plan = make_plan(2)
    hand_in_review(open_review_copy(plan, actor=editor), editor)
    hand_in_review(open_review_copy(plan, actor=editor2), editor2, reject={0})
    first = entries_of(plan)[0]

    response = edit(client, plan, first, state="merged")

    assert response.status_code == 422
    assert "no entry before it to merge into" in response.content.decode()


def test_the_last_settlement_by_edit_adjudicates_and_the_export_names_the_curator(
    client, plan, curator
):
    second, third = entries_of(plan)[1:3]
    edit(client, plan, second, title="Settled by edit")
    response = edit(client, plan, third)

    plan.refresh_from_db()
    assert response.status_code == 302 and not plan.is_open
    records = {row["title"]: row for row in json.loads(export_plan(plan))["entries"]}
    assert records["Settled by edit"]["adjudication"]["curator"] == "curator"


def test_an_editor_who_reviewed_the_plan_may_not_settle_or_undo_it(client, plan, editor2):
    entry = entries_of(plan)[1]

    assert edit(client, plan, entry, title="Mine").status_code == 403
    assert undo(client, plan, entries_of(plan)[0]).status_code == 403


def test_undoing_a_curation_sends_the_entry_back_to_be_settled_again(client, plan, curator):
    entry = entries_of(plan)[1]
    edit(client, plan, entry, title="Too hasty")
    assert to_settle(plan) == [2]

    response = undo(client, plan, entry)

    assert response.status_code == 302
    entry.refresh_from_db()
    assert (entry.state, entry.title) == ("proposed", entries_of(plan)[1].title)
    assert entry.title != "Too hasty"
    assert to_settle(plan) == [1, 2]
    undo_row = Decision.objects.filter(object_id=str(entry.pk), action="entry.undo").get()
    assert undo_row.undoes.action == "entry.curate"


def test_undoing_an_agreement_puts_the_entry_in_curation(client, plan, curator):
    agreed = entries_of(plan)[0]
    body = client.get(f"/p/default/plans/{plan.pk}/curation/").content.decode()
    assert f'action="/p/default/plans/{plan.pk}/curation/{agreed.pk}/undo/"' in body

    undo(client, plan, agreed)

    agreed.refresh_from_db()
    assert agreed.state == "proposed"
    assert to_settle(plan) == [0, 1, 2]
    body = client.get(f"/p/default/plans/{plan.pk}/curation/").content.decode()
    assert (
        f'action="/p/default/plans/{plan.pk}/curation/{agreed.pk}/"' in body
    )  # to take a side again


def test_the_latest_settlement_has_the_undo_key(client, plan, curator):
    entry = entries_of(plan)[2]
    edit(client, plan, entry, state="rejected")

    body = client.get(f"/p/default/plans/{plan.pk}/curation/").content.decode()

    undo_last = body[body.index("data-undo-last") - 300 : body.index("data-undo-last")]
    assert f"/curation/{entry.pk}/undo/" in undo_last
    assert body.count("data-undo-last") == 1


def test_a_stale_undo_changes_nothing_and_says_who_moved_it(client, plan, curator):
    entry = entries_of(plan)[0]
    version = entry.version

    response = client.post(
        f"/p/default/plans/{plan.pk}/curation/{entry.pk}/undo/",
        {"version": version - 1},
        follow=True,
    )

    entry.refresh_from_db()
    assert (entry.state, entry.version) == ("accepted", version)
    assert "was changed by" in response.content.decode()


# --- the two reviews side by side ----------------------------------------------------------


def side_of(body: str, entry, label: str) -> str:
    section = body.split(f'id="curate-entry-{entry.pk}"')[1].split("</section>")[0]
    return section.split(f'data-side="{label}"')[1].split("</form>")[0]


def marked(html: str) -> list[str]:
    return re.findall(r'<mark class="differs[^"]*">(.*?)</mark>', html, re.S)


def test_the_curation_page_sets_the_reviews_side_by_side_marking_what_differs_word_by_word(
    client, plan, curator
):
    entry = entries_of(plan)[1]
    first_copy, second_copy = (
        copy.entries.get(position=entry.position) for copy in review_copies(plan)
    )
    update_entries(
        Entry.objects.filter(pk=second_copy.pk),
        title=f"{entry.title} <b>reworded</b>",
        note="Not a section of its own.",
    )

    body = client.get(f"/p/default/plans/{plan.pk}/curation/").content.decode()

    first, second = side_of(body, entry, "first"), side_of(body, entry, "second")
    assert 'class="opinions-side-by-side"' in body
    # The states differ (accepted, rejected); the title only by the words the second added.
    assert marked(first) == ["Accepted"]
    assert marked(second) == [
        "Rejected",
        " &lt;b&gt;reworded&lt;/b&gt;",
        "Not a section of its own.",
    ]
    assert "<b>reworded</b>" not in body
    # Where both read the same, nothing is marked: the path and the span.
    assert first_copy.path in first and first_copy.path in second


def test_the_text_of_both_spans_is_shown_marked_where_the_boundaries_differ(client, plan, curator):
    entry = entries_of(plan)[2]
    second_copy = review_copies(plan)[1].entries.get(position=entry.position)
    text = plan.document.text
    update_entries(Entry.objects.filter(pk=second_copy.pk), span_end=second_copy.span_end - 6)

    body = client.get(f"/p/default/plans/{plan.pk}/curation/").content.decode()

    first = side_of(body, entry, "first")
    tail = text[second_copy.span_end - 6 : second_copy.span_end]
    assert escape(tail.strip()) in "".join(marked(first))
    assert f"{second_copy.span_start}–<mark" in side_of(body, entry, "second")
