"""An adjudicated plan as W3C Web Annotations, at every door: the plan page's download and
`GET …/plans/{id}/annotations` give the same collection; the upload form and
`POST …/documents/{id}/annotations` import one as a proposal, every entry PROPOSED, at the
places it names. A plan not adjudicated has nothing to export; a malformed collection is
refused whole, naming the annotation and the field."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from review.actions.entries import accept_entry, reject_entry
from review.actions.plan_reviews import adjudicate_plan
from review.models import Entry, Plan
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.revisions import first_plan

pytestmark = pytest.mark.django_db

LD_JSON = "application/ld+json"


def adjudicated(actor) -> Plan:
    """The building code's plan: every entry accepted (the first with a note) but the second,
    rejected; then adjudicated."""
    plan = first_plan()
    for entry in plan.entries.order_by("position"):
        if entry.position == 1:
            reject_entry(entry, actor=actor, expected_version=entry.version)
        else:
            note = "checked against the code" if entry.position == 0 else ""
            accept_entry(entry, actor=actor, expected_version=entry.version, note=note)
    plan.refresh_from_db()
    return adjudicate_plan(plan, actor=actor, expected_version=plan.version)


def kept(plan: Plan) -> list[tuple]:
    entries = plan.entries.exclude(state=Entry.State.REJECTED).order_by("position")
    return [(e.path, e.title, e.span_start, e.span_end, e.quote, e.prefix, e.suffix, e.rules)
            for e in entries]  # fmt: skip


def as_proposed(plan: Plan) -> list[tuple]:
    return [(e.path, e.title, e.span_start, e.span_end, e.quote, e.prefix, e.suffix, e.rules)
            for e in plan.entries.order_by("position")]  # fmt: skip


def test_the_page_downloads_the_collection_and_the_form_imports_it_back_as_a_proposal(
    client: Client, editor
) -> None:
    plan = adjudicated(editor)

    download = client.get(f"/p/default/plans/{plan.pk}/annotations.jsonld")

    assert download.status_code == 200
    assert download["Content-Type"].startswith(LD_JSON)
    assert f'-plan-{plan.pk}.jsonld"' in download["Content-Disposition"]
    collection = json.loads(download.content)
    assert collection["id"] == f"http://testserver/p/default/plans/{plan.pk}/annotations.jsonld"
    assert collection["total"] == len(kept(plan))

    upload = SimpleUploadedFile("plan.jsonld", download.content, content_type=LD_JSON)
    posted = client.post(
        "/p/default/plans/upload-plan/",
        {"document": plan.document_id, "format": "annotations", "file": upload},
    )

    assert posted.status_code == 302, posted.content.decode()[:2000]
    proposal = Plan.objects.exclude(pk=plan.pk).get()
    assert posted["Location"] == f"/p/default/plans/{proposal.pk}/"
    assert as_proposed(proposal) == kept(plan)
    entries = list(proposal.entries.all())
    assert {entry.state for entry in entries} == {Entry.State.PROPOSED}
    assert {entry.anchor_status for entry in entries} == {"exact"}
    assert proposal.status == Plan.Status.OPEN and proposal.adjudicated_by is None


def test_the_api_exports_the_same_collection_and_imports_it_back_as_a_proposal() -> None:
    user = pipeline_user()
    plan = adjudicated(user)
    client = api_client()

    exported = client.get(f"{API}/plans/{plan.pk}/annotations")
    page = Client()
    page.force_login(user)
    downloaded = page.get(f"/p/default/plans/{plan.pk}/annotations.jsonld")

    assert exported.status_code == 200
    assert exported.content == downloaded.content
    posted = client.post(
        f"{API}/documents/{plan.document_id}/annotations", exported.content, content_type=LD_JSON
    )
    again = client.post(
        f"{API}/documents/{plan.document_id}/annotations", exported.content, content_type=LD_JSON
    )

    assert posted.status_code == 201, posted.json()
    assert again.status_code == 200 and again.json()["id"] == posted.json()["id"]
    entries = posted.json()["entries"]
    assert {entry["state"] for entry in entries} == {"proposed"}
    assert as_proposed(Plan.objects.get(pk=posted.json()["id"])) == kept(plan)


def test_a_plan_not_adjudicated_has_no_annotations_at_either_door(client: Client, editor):
    pipeline_user()
    plan = first_plan()

    page = client.get(f"/p/default/plans/{plan.pk}/annotations.jsonld")
    api = api_client().get(f"{API}/plans/{plan.pk}/annotations")

    assert page.status_code == 409
    assert "not adjudicated" in page.content.decode()
    assert api.status_code == 409
    assert "not adjudicated" in api.json()["problems"][0]


def malformed(plan: Plan, client: Client) -> bytes:
    collection = json.loads(client.get(f"/p/default/plans/{plan.pk}/annotations.jsonld").content)
    del collection["first"]["items"][2]["target"]["selector"][0]["exact"]
    return json.dumps(collection).encode()


def test_a_malformed_collection_is_refused_whole_naming_the_annotation_and_the_field(
    client: Client, editor
) -> None:
    plan = adjudicated(editor)
    pipeline_user()
    body = malformed(plan, client)

    posted = api_client().post(
        f"{API}/documents/{plan.document_id}/annotations", body, content_type=LD_JSON
    )
    upload = SimpleUploadedFile("plan.jsonld", body, content_type=LD_JSON)
    form = client.post(
        "/p/default/plans/upload-plan/",
        {"document": plan.document_id, "format": "annotations", "file": upload},
    )

    assert posted.status_code == 422
    assert posted.json()["detail"].startswith("annotation #3 (")
    assert "field 'TextQuoteSelector.exact'" in posted.json()["detail"]
    assert form.status_code == 422
    assert "field &#x27;TextQuoteSelector.exact&#x27;" in form.content.decode()
    assert Plan.objects.count() == 1


def test_annotations_of_another_document_are_refused(client: Client, editor) -> None:
    plan = adjudicated(editor)
    pipeline_user()
    body = client.get(f"/p/default/plans/{plan.pk}/annotations.jsonld").content
    other = api_client().post(
        f"{API}/documents",
        {"file": SimpleUploadedFile("other.md", b"# Other\n\nSomething else entirely.\n")},
    )

    posted = api_client().post(
        f"{API}/documents/{other.json()['id']}/annotations", body, content_type=LD_JSON
    )

    assert posted.status_code == 422
    assert "these annotations are of other bytes" in posted.json()["detail"]
    assert Plan.objects.count() == 1


def test_the_plan_json_is_still_what_the_form_imports_by_default(client: Client, editor):
    plan = adjudicated(editor)
    body = client.get(f"/p/default/plans/{plan.pk}/annotations.jsonld").content

    upload = SimpleUploadedFile("plan.json", body, content_type="application/json")
    form = client.post(
        "/p/default/plans/upload-plan/", {"document": plan.document_id, "file": upload}
    )

    # Read as plan JSON, a collection is not one: the plan's gate names what it lacks.
    assert form.status_code == 422
    assert "field &#x27;adjudicated&#x27;" in form.content.decode()


def test_a_collection_of_more_annotations_than_a_plan_may_hold_is_refused(
    client: Client, editor, settings
) -> None:
    plan = adjudicated(editor)
    body = client.get(f"/p/default/plans/{plan.pk}/annotations.jsonld").content
    settings.REVIEW_MAX_PLAN_ENTRIES = 2
    pipeline_user()

    posted = api_client().post(
        f"{API}/documents/{plan.document_id}/annotations", body, content_type=LD_JSON
    )

    assert posted.status_code == 422
    assert posted.json()["detail"].startswith(
        f"the annotation collection has {len(kept(plan))} entries; at most 2"
    )
    assert "REVIEW_MAX_PLAN_ENTRIES" in posted.json()["detail"]
    assert Plan.objects.count() == 1


def test_positions_counted_in_another_extraction_are_placed_by_their_quotes(
    client: Client, editor
) -> None:
    """Annotations made on text another extractor read: as for any plan so made, the quotes
    are found afresh in the stored text and the positions are only hints."""
    plan = adjudicated(editor)
    collection = json.loads(client.get(f"/p/default/plans/{plan.pk}/annotations.jsonld").content)
    collection["extractorVersion"] = "another-extractor-9"
    for item in collection["first"]["items"]:
        position = item["target"]["selector"][1]
        position["start"], position["end"] = position["start"] + 7, position["end"] + 7
    upload = SimpleUploadedFile("plan.jsonld", json.dumps(collection).encode())

    posted = client.post(
        "/p/default/plans/upload-plan/",
        {"document": plan.document_id, "format": "annotations", "file": upload},
    )

    assert posted.status_code == 302
    proposal = Plan.objects.exclude(pk=plan.pk).get()
    assert as_proposed(proposal) == kept(plan)
    assert proposal.entries.exclude(anchor_status__in=["exact", "moved"]).count() == 0
