"""One plan's page: the document with every span drawn over it, and the entries beside it."""

from __future__ import annotations

import html
import re

import pytest

from review.actions import entries as entry_actions
from review.models import Entry
from review.views.presenters import (
    ENTRY_CHUNK,
    LINE_CHARS,
    Region,
    document_chunks,
    estimated_lines,
)
from tests.builders.pages import html_of
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.plans import update_entries

pytestmark = pytest.mark.django_db


def page(client, plan, **params) -> str:
    response = client.get(f"/p/default/plans/{plan.pk}/", params)
    assert response.status_code == 200
    return html_of(response)


def test_the_page_shows_every_entry_with_its_path_span_rule_anchor_and_state(
    client, editor
) -> None:
    plan = make_plan(3)
    client.force_login(editor)
    body = page(client, plan)
    for entry in entries_of(plan):
        row = body[body.index(f'<li id="entry-{entry.pk}"') :]
        row = row[: row.index("</li>")]
        assert entry.path in row
        assert f"{entry.span_start}–{entry.span_end}" in row
        assert "rule:heading" in row
        assert "Anchor: exact" in row
        assert "Proposed" in row
        assert 'data-action="accept">Accept</button>' in row


def test_the_document_text_is_all_there_once_with_each_span_marked(client, editor) -> None:
    plan = make_plan(3)
    client.force_login(editor)
    body = page(client, plan)
    start = body.index('<div class="doc-text">')
    # The pane ends where its section does; its runs of text are divs of their own.
    doc = body[start : body.index("</section>", start)]
    doc = doc[: doc.rindex("</div>")]
    marks = re.compile(r'<(a|span)[^>]* class="seg-(mark|end)[^"]*"[^>]*>[^<]*</\1>')
    shown = re.sub(r"<[^>]+>", "", marks.sub("", doc))
    assert html.unescape(shown) == plan.document.text
    for entry in entries_of(plan):
        assert f'id="seg-{entry.pk}"' in doc


def test_text_before_the_first_entry_is_marked_as_not_covered(client, editor) -> None:
    plan = make_plan(2)
    first = entries_of(plan)[0]
    update_entries(Entry.objects.filter(pk=first.pk), span_start=first.span_start + 10)
    client.force_login(editor)
    body = page(client, plan)
    lead = body[body.index('id="region-lead"') :]
    assert lead.index("not covered") < lead.index(f'id="region-{first.pk}"')


def test_rejected_and_merged_spans_say_so_in_words(client, editor) -> None:
    plan = make_plan(3)
    entries = entries_of(plan)
    update_entries(Entry.objects.filter(pk=entries[1].pk), state="rejected")
    update_entries(Entry.objects.filter(pk=entries[2].pk), state="merged")
    client.force_login(editor)
    body = page(client, plan)
    # The mark that opens each span carries its state, in words as well as in style.
    assert f'id="mark-{entries[1].pk}" class="seg-mark state-rejected"' in body
    assert "2 ✕ rejected</a>" in body
    assert f'id="mark-{entries[2].pk}" class="seg-mark state-merged"' in body
    assert "3 ↑ merged</a>" in body


def test_the_current_entry_is_the_first_still_proposed_unless_one_is_asked_for(
    client, editor
) -> None:
    plan = make_plan(3)
    entries = entries_of(plan)
    update_entries(Entry.objects.filter(pk=entries[0].pk), state="accepted")
    client.force_login(editor)
    assert f'data-current="{entries[1].pk}"' in page(client, plan)
    assert f'data-current="{entries[2].pk}"' in page(client, plan, entry=entries[2].pk)


def test_a_reader_sees_the_plan_but_no_decision_buttons(client, reader) -> None:
    plan = make_plan(2)
    client.force_login(reader)
    body = page(client, plan)
    assert entries_of(plan)[1].path in body
    assert "data-action=" not in body
    for name in ("Accept", "Reject", "Merge into previous", "Edit", "Undo"):
        assert not re.search(rf">{name}</(button|a)>", body)
    assert ">Adjudicate plan</button>" not in body


def test_adjudicate_is_disabled_and_says_why_while_entries_are_proposed(client, editor) -> None:
    plan = make_plan(2)
    client.force_login(editor)
    body = page(client, plan)
    button = re.search(r'<button[^>]*id="adjudicate-button"[^>]*>', body).group(0)
    assert "disabled" in button
    assert "3 entries still proposed" in body


def test_an_unknown_plan_is_404(client, editor) -> None:
    client.force_login(editor)
    assert client.get("/p/default/plans/999/").status_code == 404


@pytest.mark.parametrize("sections", [10, 200])
def test_the_page_makes_the_same_few_queries_for_10_or_200_entries(
    client, editor, sections, django_assert_max_num_queries
) -> None:
    plan = make_plan(sections)
    entries = entries_of(plan)
    for entry in entries[::3]:
        fresh = Entry.objects.select_related("plan").get(pk=entry.pk)
        entry_actions.accept_entry(fresh, actor=editor, expected_version=fresh.version)
    client.force_login(editor)
    # Three of the ten: the project its address names, the top bar's projects and the guidelines
    # panel's (the project's current guidelines).
    with django_assert_max_num_queries(10):
        page(client, plan)


def test_no_template_syntax_leaks_into_the_page(client, editor) -> None:
    plan = make_plan(2)
    client.force_login(editor)
    body = page(client, plan)
    assert "{#" not in body
    assert "{%" not in body
    assert "{{" not in body


def test_without_javascript_the_entry_filter_hides_the_rows_it_leaves_out(client, editor) -> None:
    plan = make_plan(2)
    first, second, third = entries_of(plan)
    update_entries(Entry.objects.filter(pk=second.pk), state="rejected")
    update_entries(Entry.objects.filter(pk=third.pk), anchor_status="fuzzy")
    body = html_of(
        client.get(f"/p/default/plans/{plan.pk}/", {"state": "needs", "anchor": "fuzzy"})
    )
    assert re.search(rf'<li id="entry-{third.pk}"[^>]*data-anchor="fuzzy">', body)
    for hidden in (first, second):
        assert re.search(rf'<li id="entry-{hidden.pk}"[^>]* hidden>', body)
    # The document still shows every span.
    assert all(f'id="seg-{entry.pk}"' in body for entry in (first, second, third))


def test_a_long_plan_is_drawn_in_lists_of_entries_and_runs_of_text_each_entry_once(
    client, editor
) -> None:
    plan = make_plan(30, paragraphs=3)
    client.force_login(editor)
    body = page(client, plan)
    entries = entries_of(plan)
    assert len(entries) > ENTRY_CHUNK
    lists = re.findall(r'<ol class="entry-chunk" aria-label="([^"]+)">(.*?)</ol>', body, re.S)
    assert [label for label, _ in lists] == [
        f"Entries 1–{ENTRY_CHUNK}",
        f"Entries {ENTRY_CHUNK + 1}–{len(entries)}",
    ]
    listed = [int(pk) for _, rows in lists for pk in re.findall(r'<li id="entry-(\d+)"', rows)]
    assert listed == [entry.pk for entry in entries]
    runs = re.findall(r'<div class="doc-chunk">(.*?)</div>', body, re.S)
    assert len(runs) > 1
    regions = [int(pk) for run in runs for pk in re.findall(r'<span id="region-(\d+)"', run)]
    assert regions == [entry.pk for entry in entries]


def test_each_list_of_entries_is_one_form_whose_buttons_carry_the_version_each_editor_saw(
    client, editor, django_user_model
) -> None:
    # A page without JavaScript posts a button's list form: the button says which entry and
    # action (formaction) and which version of the entry the editor saw.
    plan = make_plan(30, paragraphs=3)
    first = entries_of(plan)[0]
    seen = first.version
    entry_actions.reject_entry(first, actor=editor, expected_version=seen)
    client.force_login(editor)
    body = page(client, plan)
    forms = re.findall(r"<form method=\"post\" data-entry-actions>(.*?)</form>", body, re.S)
    assert len(forms) == 2
    assert all('name="csrfmiddlewaretoken"' in form for form in forms)
    for entry in entries_of(plan):
        form = next(form for form in forms if f'<li id="entry-{entry.pk}"' in form)
        accept = rf'<button [^>]*formaction="[^"]*/entries/{entry.pk}/accept/"[^>]*>'
        button = re.search(accept, form)
        assert button is not None
        assert f'name="version" value="{entry.version}"' in button.group(0)
    assert entries_of(plan)[0].version == seen + 1
    # One form per list, not one per row.
    assert body.count("<form") < len(entries_of(plan))


def test_a_run_of_text_ends_after_about_a_hundred_lines() -> None:
    line = "x" * (LINE_CHARS - 1) + "\n"
    regions = [(None, Region(None, line * 30)) for _ in range(10)]
    runs = document_chunks(regions)
    assert [len(run) for run in runs] == [4, 4, 2]
    assert estimated_lines(line * 30) == 30
    assert estimated_lines("x" * (2 * LINE_CHARS)) == 2
