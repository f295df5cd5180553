"""A long plan's page draws whole only the lists of entries near the current one; the others
are light (number, title, state, and what the filter and the jump keys read), and each is
drawn whole on its own address, which plan.js asks for as the list comes into view."""

from __future__ import annotations

import re

import pytest

from review.actions import entries as entry_actions
from review.models import Entry
from review.views.presenters import ENTRY_CHUNK, WHOLE_AROUND, entry_chunks
from tests.builders.pages import html_of
from tests.builders.plan_views import entries_of, make_plan

pytestmark = pytest.mark.django_db

LISTS = 5
CSRF = re.compile(r'(csrfmiddlewaretoken" value=")[^"]*')


@pytest.fixture
def long_plan():
    plan = make_plan(ENTRY_CHUNK * (LISTS - 1) + 10, paragraphs=1)
    assert -(-len(entries_of(plan)) // ENTRY_CHUNK) == LISTS
    return plan


def lists_of(body: str) -> dict[int, str]:
    holders = re.findall(
        r'<div id="entries-(\d+)" class="entry-chunk-holder"([^>]*)>(.*?)</ol>', body, re.S
    )
    return {int(number): attributes + inner for number, attributes, inner in holders}


def row_of(body: str, entry: Entry) -> str:
    row = body[body.index(f'<li id="entry-{entry.pk}"') :]
    return row[: row.index("</li>")]


def test_only_the_lists_next_to_the_current_entry_are_drawn_whole(
    client, editor, long_plan
) -> None:
    entries = entries_of(long_plan)
    current = entries[ENTRY_CHUNK * 2 + 3]  # in the third list
    client.force_login(editor)
    body = html_of(client.get(f"/p/default/plans/{long_plan.pk}/", {"entry": current.pk}))
    lists = lists_of(body)
    assert sorted(lists) == list(range(1, LISTS + 1))
    light = {number for number, html in lists.items() if "data-light=" in html}
    assert light == {1, 5}
    for number in light:
        assert (
            f'data-light="/p/default/plans/{long_plan.pk}/entries/list/{number}/"' in lists[number]
        )
        assert "data-action=" not in lists[number]
    assert 'data-action="accept"' in row_of(body, current)


def test_a_light_row_keeps_what_the_filter_the_jump_keys_and_a_reader_need(
    client, editor, long_plan
) -> None:
    entries = entries_of(long_plan)
    far = entries[-1]
    decided = entries[-2]
    fresh = Entry.objects.select_related("plan").get(pk=decided.pk)
    entry_actions.reject_entry(fresh, actor=editor, expected_version=fresh.version)
    client.force_login(editor)
    body = html_of(client.get(f"/p/default/plans/{long_plan.pk}/"))
    row = row_of(body, far)
    assert 'class="entry entry-light state-proposed"' in row
    assert "data-needs-you" in row and 'data-rules="rule:heading"' in row
    assert 'data-anchor="exact"' in row
    assert f"#{far.number}" in row and far.title in row and "Proposed" in row
    # Without JavaScript the title opens the page at the entry, with its list drawn whole.
    assert f'href="/p/default/plans/{long_plan.pk}/?entry={far.pk}#entry-{far.pk}"' in row
    rejected = row_of(body, decided)
    assert "state-rejected" in rejected and "data-needs-you" not in rejected
    at_far = html_of(client.get(f"/p/default/plans/{long_plan.pk}/", {"entry": far.pk}))
    assert 'data-action="accept"' in row_of(at_far, far)


def test_a_list_drawn_on_its_own_is_the_list_the_page_draws_whole(
    client, editor, long_plan
) -> None:
    client.force_login(editor)
    last = entries_of(long_plan)[-1]
    on_page = lists_of(html_of(client.get(f"/p/default/plans/{long_plan.pk}/", {"entry": last.pk})))
    response = client.get(f"/p/default/plans/{long_plan.pk}/entries/list/{LISTS}/")
    assert response.status_code == 200
    alone = response.content.decode()
    assert alone.startswith(f'<div id="entries-{LISTS}" class="entry-chunk-holder">')
    assert CSRF.sub("", lists_of(alone)[LISTS]) == CSRF.sub("", on_page[LISTS])
    # Whole: a form of its own, each button with the entry's version.
    assert '<form method="post" data-entry-actions>' in alone
    assert f'name="version" value="{last.version}" data-action="accept"' in alone
    assert f"Entries {ENTRY_CHUNK * (LISTS - 1) + 1}–" in alone


def test_a_reader_gets_a_whole_list_without_buttons(client, reader, long_plan) -> None:
    client.force_login(reader)
    alone = client.get(f"/p/default/plans/{long_plan.pk}/entries/list/2/").content.decode()
    assert '<li id="entry-' in alone and "entry-light" not in alone
    assert "data-action=" not in alone and "<form" not in alone


@pytest.mark.parametrize("number", [0, LISTS + 1])
def test_a_list_that_is_not_there_is_not_found(client, editor, long_plan, number) -> None:
    client.force_login(editor)
    assert client.get(f"/p/default/plans/{long_plan.pk}/entries/list/{number}/").status_code == 404


def test_lists_are_whole_within_whole_around_of_the_current_one() -> None:
    class Row:
        def __init__(self, number: int):
            self.number_label = str(number)

    rows = [(Row(number), None) for number in range(1, ENTRY_CHUNK * 6 + 1)]
    chunks = entry_chunks(rows, current=ENTRY_CHUNK * 3)  # the first entry of the fourth list
    whole = [chunk.number for chunk in chunks if chunk.whole]
    assert whole == list(range(4 - WHOLE_AROUND, 4 + WHOLE_AROUND + 1))
    assert all(chunk.whole for chunk in entry_chunks(rows))
    assert [chunk.label for chunk in chunks[:2]] == [
        f"Entries 1–{ENTRY_CHUNK}",
        f"Entries {ENTRY_CHUNK + 1}–{2 * ENTRY_CHUNK}",
    ]


def test_a_list_drawn_on_its_own_grows_its_last_entry_by_what_the_next_list_merges_into_it(
    client, editor, long_plan
) -> None:
    entries = entries_of(long_plan)
    last, merged = entries[ENTRY_CHUNK - 1], entries[ENTRY_CHUNK]
    entry_actions.merge_entry(merged, actor=editor, expected_version=merged.version)

    alone = client.get(f"/p/default/plans/{long_plan.pk}/entries/list/1/").content.decode()

    assert f"{last.span_start}–{merged.span_end}, with what is merged into it" in row_of(
        alone, last
    )
