"""Accept, Reject, Merge into previous, Confirm anchor and Undo on one entry: one POST each,
answered over htmx with what changed, and with a redirect without it."""

from __future__ import annotations

import re

import pytest

from review.actions import entries as entry_actions
from review.models import Decision, Entry, merged_ends
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.plans import update_entries
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def plan():
    return make_plan(3)


def act(client, entry: Entry, action: str, *, version: int | None = None, htmx: bool = True):
    version = Entry.objects.get(pk=entry.pk).version if version is None else version
    url = f"/p/default/plans/{entry.plan_id}/entries/{entry.pk}/{action}/"
    return client.post(url, {"version": version}, headers=HTMX if htmx else {})


def test_accept_over_htmx_answers_the_row_its_span_and_the_counters(client, editor, plan) -> None:
    client.force_login(editor)
    entry = entries_of(plan)[1]
    response = act(client, entry, "accept")
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body
    assert body.lstrip().startswith(f'<li id="entry-{entry.pk}" class="entry state-accepted"')
    mark = f'<a id="mark-{entry.pk}" class="seg-mark state-accepted" href="#entry-{entry.pk}"'
    assert f'{mark} tabindex="-1" hx-swap-oob="true">2 ✓ accepted</a>' in body
    # Only the span's mark: its text is not sent again when no boundary moved.
    assert "seg-text" not in body
    assert '<section id="plan-counters"' in body
    assert "<b>1</b>" in body[body.index("plan-counters") :]
    assert Entry.objects.get(pk=entry.pk).state == "accepted"
    assert Decision.objects.get().action == "entry.accept"


def test_a_plain_post_decides_and_redirects_back_to_the_entry(client, editor, plan) -> None:
    client.force_login(editor)
    entry = entries_of(plan)[1]
    response = act(client, entry, "reject", htmx=False)
    assert response.status_code == 302
    assert response["Location"] == f"/p/default/plans/{plan.pk}/?entry={entry.pk}#entry-{entry.pk}"
    assert Entry.objects.get(pk=entry.pk).state == "rejected"


def test_merge_into_previous_joins_the_span_to_the_one_before(client, editor, plan) -> None:
    client.force_login(editor)
    entry = entries_of(plan)[2]
    body = act(client, entry, "merge").content.decode()
    assert Entry.objects.get(pk=entry.pk).state == "merged"
    assert "3 ↑ merged" in body


def row_of(body: str, entry: Entry) -> str:
    start = body.index(f'<li id="entry-{entry.pk}"')
    return body[start : body.index("</li>", start)]


def test_merging_redraws_the_entry_it_joins_with_its_span_grown(client, editor, plan) -> None:
    client.force_login(editor)
    first, second, third = entries_of(plan)[:3]

    body = act(client, third, "merge").content.decode()

    joined = row_of(body, second)
    assert 'hx-swap-oob="true"' in joined
    assert f"{second.span_start}–{third.span_end}, with what is merged into it" in joined
    assert f'<li id="entry-{first.pk}"' not in body
    # The page drawn afresh says the same.
    page = client.get(f"/p/default/plans/{plan.pk}/").getvalue().decode()
    assert row_of(page, second).count(f"{second.span_start}–{third.span_end}") == 1


def test_undoing_a_merge_redraws_the_entry_it_left_with_its_own_span(client, editor, plan) -> None:
    client.force_login(editor)
    _, second, third = entries_of(plan)[:3]
    act(client, third, "merge")

    body = act(client, third, "undo").content.decode()

    joined = row_of(body, second)
    assert 'hx-swap-oob="true"' in joined
    assert f'Span <span class="num">{second.span_start}–{second.span_end}</span>' in joined


def test_a_chain_of_merges_joins_them_all_to_the_first_kept_entry(client, editor) -> None:
    plan = make_plan(4)
    first, second, third, fourth = entries_of(plan)[:4]
    client.force_login(editor)
    act(client, fourth, "merge")

    body = act(client, third, "merge").content.decode()

    assert f"{second.span_start}–{fourth.span_end}, with what" in row_of(body, second)
    assert Entry.objects.merged_end(second) == fourth.span_end
    assert Entry.objects.merged_end(first) is None


def test_merged_ends_over_rows_in_hand_is_merged_end_over_the_database() -> None:
    plan = make_plan(6)
    rows = entries_of(plan)
    states = ["proposed", "merged", "accepted", "merged", "merged", "rejected", "merged"]
    for entry, state in zip(rows, states, strict=False):
        update_entries(Entry.objects.filter(pk=entry.pk), state=state)
    rows = entries_of(plan)

    in_hand = merged_ends(rows)

    assert in_hand == {
        entry.pk: end for entry in rows if (end := Entry.objects.merged_end(entry)) is not None
    }
    assert set(in_hand) == {rows[0].pk, rows[2].pk, rows[5].pk}


def test_merging_the_first_entry_is_refused_with_the_reason_in_the_row(
    client, editor, plan
) -> None:
    client.force_login(editor)
    first = entries_of(plan)[0]
    response = act(client, first, "merge")
    assert response.status_code == 422
    assert "no entry before it" in response.content.decode()
    assert not Decision.objects.exists()


def test_undo_puts_the_entry_back_and_logs_a_new_decision(client, editor, plan) -> None:
    client.force_login(editor)
    entry = entries_of(plan)[1]
    act(client, entry, "accept")
    body = act(client, entry, "undo").content.decode()
    assert Entry.objects.get(pk=entry.pk).state == "proposed"
    assert list(Decision.objects.values_list("action", flat=True)) == [
        "entry.accept",
        "entry.undo",
    ]
    assert 'data-action="undo"' not in body


def test_confirming_a_fuzzy_anchor_settles_it(client, editor, plan) -> None:
    entry = entries_of(plan)[1]
    update_entries(Entry.objects.filter(pk=entry.pk), anchor_status="fuzzy")
    client.force_login(editor)
    body = act(client, entry, "confirm-anchor").content.decode()
    assert Entry.objects.get(pk=entry.pk).anchor_confirmed
    assert "Anchor: fuzzy, confirmed by an editor" in body


def test_accepting_an_entry_whose_anchor_is_fuzzy_asks_in_its_row_to_confirm_it(
    client, editor, plan
) -> None:
    entry = entries_of(plan)[1]
    update_entries(Entry.objects.filter(pk=entry.pk), anchor_status="fuzzy")
    client.force_login(editor)

    response = act(client, entry, "accept")

    body = response.content.decode()
    assert response.status_code == 200 and "<html" not in body
    row = body.split(f'<li id="entry-{entry.pk}"')[1].split("</li>")[0]
    assert "Its anchor is fuzzy and nobody has confirmed it" in row
    assert 'data-action="confirm"' in row
    accepted = Entry.objects.get(pk=entry.pk)
    # The accept alone does not vouch for the anchor.
    assert accepted.state == "accepted" and not accepted.anchor_confirmed


def test_accepting_an_entry_whose_anchor_is_exact_asks_nothing(client, editor, plan) -> None:
    client.force_login(editor)

    body = act(client, entries_of(plan)[1], "accept").content.decode()

    assert "nobody has confirmed it" not in body


def test_a_stale_version_is_409_naming_who_changed_it_and_overwrites_nothing(
    client, editor, django_user_model, plan
) -> None:
    other = user_in(django_user_model, "otto", "Editors")
    entry = Entry.objects.select_related("plan").get(pk=entries_of(plan)[1].pk)
    seen = entry.version
    entry_actions.accept_entry(entry, actor=other, expected_version=seen)
    client.force_login(editor)
    response = act(client, entry, "reject", version=seen)
    body = response.content.decode()
    assert response.status_code == 409
    assert "otto" in body
    assert "It is now accepted" in body
    assert Entry.objects.get(pk=entry.pk).state == "accepted"
    assert Decision.objects.count() == 1


def counters_of(body: str) -> dict[str, int]:
    section = body[body.index('<section id="plan-counters"') :]
    section = section[: section.index("</section>")]
    assert 'hx-swap-oob="true"' in section[: section.index(">")]
    states = re.findall(r'<li class="state state-(\w+)">[^<]*<b>(\d+)</b>', section)
    decided = re.search(r'<strong class="num">(\d+)</strong> of', section).group(1)
    return {"decided": int(decided)} | {state: int(count) for state, count in states}


@pytest.mark.parametrize("action", ["reject", "merge", "accept"])
def test_a_409_carries_the_counters_as_the_other_decision_left_them(
    client, editor, django_user_model, plan, action
) -> None:
    other = user_in(django_user_model, "otto", "Editors")
    entry = Entry.objects.select_related("plan").get(pk=entries_of(plan)[1].pk)
    seen = entry.version
    entry_actions.reject_entry(entry, actor=other, expected_version=seen)
    client.force_login(editor)
    if action == "accept":
        seen += 1  # the page saw the reject, and the other editor then took it back
        entry.refresh_from_db()
        entry_actions.undo_entry(entry, actor=other, expected_version=entry.version)

    response = act(client, entry, action, version=seen)

    assert response.status_code == 409
    counts = plan.entries.counts()
    assert counters_of(response.content.decode()) == {"decided": counts.decided} | {
        state: count for state, _, count in counts.by_state
    }


def test_a_409_met_after_the_page_s_entry_was_read_carries_the_counters_as_they_are(
    client, editor, django_user_model, plan, monkeypatch
) -> None:
    """The other decision lands between the request reading the entry and deciding on it
    (the window two editors race in): the counters the refused decision moved in its undone
    transaction are not the ones the answer shows."""
    other = user_in(django_user_model, "otto", "Editors")
    entry = entries_of(plan)[1]
    reject = entry_actions.ENTRY_ACTIONS["reject"]

    def reject_after_otto_accepts(loaded, **kwargs):
        fresh = Entry.objects.select_related("plan").get(pk=loaded.pk)
        entry_actions.accept_entry(fresh, actor=other, expected_version=fresh.version)
        return reject(loaded, **kwargs)

    monkeypatch.setitem(entry_actions.ENTRY_ACTIONS, "reject", reject_after_otto_accepts)
    client.force_login(editor)

    response = act(client, entry, "reject", version=entry.version)

    assert response.status_code == 409
    counts = plan.entries.counts()
    assert counts.by_state and Entry.objects.get(pk=entry.pk).state == "accepted"
    assert counters_of(response.content.decode()) == {"decided": counts.decided} | {
        state: count for state, _, count in counts.by_state
    }


def test_a_stale_plain_post_gets_a_409_page(client, editor, django_user_model, plan) -> None:
    other = user_in(django_user_model, "otto", "Editors")
    entry = Entry.objects.select_related("plan").get(pk=entries_of(plan)[1].pk)
    seen = entry.version
    entry_actions.accept_entry(entry, actor=other, expected_version=seen)
    client.force_login(editor)
    response = act(client, entry, "reject", version=seen, htmx=False)
    assert response.status_code == 409
    assert "otto" in response.content.decode()


def test_get_on_an_action_is_405(client, editor, plan) -> None:
    client.force_login(editor)
    entry = entries_of(plan)[1]
    assert client.get(f"/p/default/plans/{plan.pk}/entries/{entry.pk}/accept/").status_code == 405


def test_a_reader_gets_403_and_nothing_changes(client, django_user_model, plan) -> None:
    client.force_login(user_in(django_user_model, "rita", "Readers"))
    entry = entries_of(plan)[1]
    assert act(client, entry, "accept").status_code == 403
    assert Entry.objects.get(pk=entry.pk).state == "proposed"


def test_an_entry_of_another_plan_is_404(client, editor, plan) -> None:
    other = make_plan(2, name="other.md", title="Other")
    client.force_login(editor)
    entry = entries_of(other)[0]
    response = client.post(
        f"/p/default/plans/{plan.pk}/entries/{entry.pk}/accept/", {"version": 1}, headers=HTMX
    )
    assert response.status_code == 404


def test_a_missing_version_is_a_bad_request(client, editor, plan) -> None:
    client.force_login(editor)
    entry = entries_of(plan)[1]
    response = client.post(f"/p/default/plans/{plan.pk}/entries/{entry.pk}/accept/", headers=HTMX)
    assert response.status_code == 400
    assert not Decision.objects.exists()


@pytest.mark.parametrize("sections", [10, 200])
def test_accept_and_undo_make_the_same_few_queries_for_10_or_200_entries(
    client, editor, sections, django_assert_max_num_queries
) -> None:
    plan = make_plan(sections)
    entry = entries_of(plan)[sections // 2]
    client.force_login(editor)
    client.get("/")  # the session is read once, not counted below
    # Session, user, the project the address names, groups, the entry with its plan, the
    # plan's double-review facts; in the transaction the plan's counters (the re-check that it
    # is open), the entry, the log row and whether a webhook of the project wants the decision;
    # then where its text ends with what is merged into it; no count over the entries.
    with django_assert_max_num_queries(13):
        assert act(client, entry, "accept", version=1).status_code == 200
    with django_assert_max_num_queries(15):
        assert act(client, entry, "undo", version=2).status_code == 200
