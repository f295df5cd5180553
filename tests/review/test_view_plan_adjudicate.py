"""Adjudicating a plan: enabled only when nothing is left to decide, it freezes the plan and
offers the adjudicated JSON, the same bytes export_plan gives, which replays."""

from __future__ import annotations

import json

import pytest

from grounding.segmentation import parse_segmentation_plan, slice_segments
from review.actions import entries as entry_actions
from review.actions.plan_reviews import adjudicate_plan
from review.adapters.plans import export_plan
from review.models import Decision, Entry, Plan
from tests.builders.pages import html_of
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.plans import update_entries
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db


def decide_all(plan, editor) -> None:
    for number, entry in enumerate(entries_of(plan)):
        entry = Entry.objects.select_related("plan").get(pk=entry.pk)
        act = entry_actions.merge_entry if number == 2 else entry_actions.accept_entry
        act(entry, actor=editor, expected_version=entry.version)


def test_adjudicating_a_decided_plan_freezes_it_and_offers_the_download(client, editor) -> None:
    plan = make_plan(3)
    decide_all(plan, editor)
    client.force_login(editor)
    response = client.post(f"/p/default/plans/{plan.pk}/adjudicate/", {"version": plan.version})
    assert response.status_code == 302
    plan.refresh_from_db()
    assert plan.status == Plan.Status.ADJUDICATED
    assert Decision.objects.filter(action="plan.adjudicate").count() == 1
    body = html_of(client.get(response["Location"]))
    assert "Download adjudicated JSON" in body
    assert 'data-action="accept"' not in body


def test_the_download_is_export_plan_s_bytes_and_it_replays(client, editor) -> None:
    plan = make_plan(3)
    decide_all(plan, editor)
    client.force_login(editor)
    client.post(f"/p/default/plans/{plan.pk}/adjudicate/", {"version": plan.version})
    response = client.get(f"/p/default/plans/{plan.pk}/export.json")
    assert response.status_code == 200
    assert "attachment" in response["Content-Disposition"]
    assert response.content.decode() == export_plan(plan)
    text = plan.document.text
    replayed = slice_segments(text, parse_segmentation_plan(json.loads(response.content), text))
    kept = [e for e in entries_of(plan) if e.state != "merged"]
    assert [entry.path for entry, _ in replayed] == [e.path for e in kept]
    # The merged third entry's text now belongs to the second.
    assert replayed[1][1] == text[kept[1].span_start : entries_of(plan)[2].span_end]


def test_a_plan_with_proposed_entries_is_not_adjudicated(client, editor) -> None:
    plan = make_plan(2)
    client.force_login(editor)
    response = client.post(f"/p/default/plans/{plan.pk}/adjudicate/", {"version": plan.version})
    # A refusal is the plan's page with the reason, 422 (it was a redirect with a flash).
    assert response.status_code == 422
    plan.refresh_from_db()
    assert plan.status == Plan.Status.OPEN
    body = html_of(response)
    assert "still proposed" in body
    assert 'id="plan-counters"' in body


def test_an_unconfirmed_fuzzy_anchor_blocks_adjudication(client, editor) -> None:
    plan = make_plan(2)
    decide_all(plan, editor)
    update_entries(Entry.objects.filter(pk=entries_of(plan)[1].pk), anchor_status="fuzzy")
    client.force_login(editor)
    page = html_of(client.get(f"/p/default/plans/{plan.pk}/"))
    assert "anchor to confirm or edit" in page
    client.post(f"/p/default/plans/{plan.pk}/adjudicate/", {"version": plan.version})
    plan.refresh_from_db()
    assert plan.status == Plan.Status.OPEN


def test_a_stale_plan_version_is_409(client, editor) -> None:
    plan = make_plan(2)
    decide_all(plan, editor)
    client.force_login(editor)
    response = client.post(f"/p/default/plans/{plan.pk}/adjudicate/", {"version": plan.version + 5})
    assert response.status_code == 409
    plan.refresh_from_db()
    assert plan.status == Plan.Status.OPEN


def test_an_open_plan_has_nothing_to_download(client, editor) -> None:
    plan = make_plan(2)
    client.force_login(editor)
    response = client.get(f"/p/default/plans/{plan.pk}/export.json")
    assert response.status_code == 409
    assert "undecided" in html_of(response)


def test_a_reader_may_not_adjudicate_and_get_405_on_get(client, editor, django_user_model) -> None:
    plan = make_plan(2)
    decide_all(plan, editor)
    client.force_login(user_in(django_user_model, "rita", "Readers"))
    assert client.post(f"/p/default/plans/{plan.pk}/adjudicate/", {"version": 1}).status_code == 403
    assert client.get(f"/p/default/plans/{plan.pk}/adjudicate/").status_code == 405
    plan.refresh_from_db()
    assert plan.status == Plan.Status.OPEN


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ('we"ird.md', 'attachment; filename="we\\"ird-plan-{pk}.json"'),
        ("文书.md", "attachment; filename*=utf-8''%E6%96%87%E4%B9%A6-plan-{pk}.json"),
    ],
)
def test_the_download_s_file_name_is_quoted_whatever_the_document_is_called(
    client, editor, name: str, expected: str
) -> None:
    plan = make_plan(3, name=name)
    decide_all(plan, editor)
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)
    client.force_login(editor)
    response = client.get(f"/p/default/plans/{plan.pk}/export.json")
    assert response.status_code == 200
    assert response["Content-Disposition"] == expected.format(pk=plan.pk)


def test_adjudicating_a_plan_taken_from_next_says_so_on_the_next_plan_without_offering_a_download(
    client, editor
) -> None:
    make_plan(3, name="first.md")
    make_plan(4, name="second.md")
    taken = client.post("/p/default/plans/next/")
    plan = Plan.objects.get(pk=taken["Location"].split("/")[4])
    decide_all(plan, editor)
    plan.refresh_from_db()

    response = client.post(
        f"/p/default/plans/{plan.pk}/adjudicate/", {"version": plan.version}, follow=True
    )

    body = html_of(response)
    following = Plan.objects.exclude(pk=plan.pk).get()
    assert response.redirect_chain[-1][0] == f"/p/default/plans/{following.pk}/"
    assert "Download adjudicated JSON" not in body
    assert "ready to download" not in body
    assert f"Plan {plan.pk} ({plan.document.name}) is adjudicated and frozen" in body


def test_adjudicating_a_plan_opened_from_the_list_says_its_json_is_ready(client, editor) -> None:
    plan = make_plan(3)
    decide_all(plan, editor)

    response = client.post(
        f"/p/default/plans/{plan.pk}/adjudicate/", {"version": plan.version}, follow=True
    )

    body = html_of(response)
    assert "Its JSON is ready to download" in body
    assert "Download adjudicated JSON" in body
