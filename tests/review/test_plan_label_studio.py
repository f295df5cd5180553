"""An adjudicated plan as a Label Studio task, and Label Studio's own export as a proposal, at
every door: the plan page's download and `GET …/plans/{id}/label-studio` give the same task;
the upload form and `POST …/documents/{id}/label-studio` import the labelling of the task
whose text is the document's, every entry PROPOSED. A plan not adjudicated has nothing to
export; a malformed export is refused whole, naming the task, the region and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from review.models import Entry, Plan
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.revisions import first_plan
from tests.review.test_plan_annotations import adjudicated

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).parents[1] / "data" / "label_studio"
CORPUS = Path(__file__).parents[2] / "benchmarks" / "corpus" / "proposer" / "text"
JSON = "application/json"


def segments(entries) -> list[tuple]:
    return [(e.path, e.title, e.span_start, e.span_end, e.quote, e.prefix, e.suffix)
            for e in entries]  # fmt: skip


def kept(plan: Plan) -> list[tuple]:
    entries = plan.entries.exclude(state=Entry.State.REJECTED).order_by("position")
    return segments(entries)


def stored(name: str) -> int:
    """The corpus file `name` stored over the API, as a pipeline would push it; its id."""
    upload = SimpleUploadedFile(name, (CORPUS / name).read_bytes())
    posted = api_client().post(f"{API}/documents", {"file": upload})
    assert posted.status_code in (200, 201), posted.content
    return posted.json()["id"]


def test_the_page_downloads_a_task_and_the_form_imports_it_back_as_a_proposal(
    client: Client, editor
) -> None:
    plan = adjudicated(editor)

    download = client.get(f"/p/default/plans/{plan.pk}/label-studio.json")

    assert download.status_code == 200
    assert download["Content-Type"].startswith(JSON)
    assert f'-plan-{plan.pk}-ls.json"' in download["Content-Disposition"]
    [task] = json.loads(download.content)
    assert task["data"]["text"] == plan.document.text
    assert len(task["annotations"][0]["result"]) == len(kept(plan))

    upload = SimpleUploadedFile("tasks.json", download.content, content_type=JSON)
    posted = client.post(
        "/p/default/plans/upload-plan/",
        {"document": plan.document_id, "format": "label-studio", "file": upload},
    )

    assert posted.status_code == 302, posted.content.decode()[:2000]
    proposal = Plan.objects.exclude(pk=plan.pk).get()
    assert posted["Location"] == f"/p/default/plans/{proposal.pk}/"
    entries = list(proposal.entries.order_by("position"))
    assert segments(entries) == kept(plan)
    assert {entry.state for entry in entries} == {Entry.State.PROPOSED}
    assert {entry.anchor_status for entry in entries} == {"exact"}
    assert proposal.status == Plan.Status.OPEN and proposal.adjudicated_by is None


def test_the_api_exports_the_same_task_as_the_page(client: Client, editor) -> None:
    pipeline_user()
    plan = adjudicated(editor)

    exported = api_client().get(f"{API}/plans/{plan.pk}/label-studio")
    downloaded = client.get(f"/p/default/plans/{plan.pk}/label-studio.json")

    assert exported.status_code == 200
    assert exported["Content-Type"].startswith(JSON)
    assert exported.content == downloaded.content


def test_the_api_imports_label_studio_s_own_export_on_the_document_of_its_task() -> None:
    pipeline_user()
    document_id = stored("pep-0257.txt")
    body = (FIXTURES / "export.json").read_bytes()
    [pep] = [task for task in json.loads(body) if task["data"]["document"] == "pep-0257.txt"]
    regions = pep["predictions"][0]["result"]

    posted = api_client().post(f"{API}/documents/{document_id}/label-studio", body, JSON)
    again = api_client().post(f"{API}/documents/{document_id}/label-studio", body, JSON)

    assert posted.status_code == 201, posted.json()
    assert again.status_code == 200 and again.json()["id"] == posted.json()["id"]
    plan = Plan.objects.get(pk=posted.json()["id"])
    assert plan.proposed_by == "Label Studio prediction (grounding-propose-headings)"
    entries = list(plan.entries.order_by("position"))
    assert [(e.span_start, e.span_end, e.quote) for e in entries] == [
        (r["value"]["start"], r["value"]["end"], r["value"]["text"]) for r in regions
    ]
    assert {entry.state for entry in entries} == {Entry.State.PROPOSED}
    assert entries[0].rules == ["rule:label-studio-preamble"]


def test_a_plan_not_adjudicated_has_no_label_studio_task_at_either_door(
    client: Client, editor
) -> None:
    pipeline_user()
    plan = first_plan()

    page = client.get(f"/p/default/plans/{plan.pk}/label-studio.json")
    api = api_client().get(f"{API}/plans/{plan.pk}/label-studio")

    assert page.status_code == 409
    assert "not adjudicated" in page.content.decode()
    assert api.status_code == 409
    assert "not adjudicated" in api.json()["problems"][0]


def test_a_malformed_export_is_refused_whole_naming_the_task_the_region_and_the_field(
    client: Client, editor
) -> None:
    pipeline_user()
    document_id = stored("blog-rust-challenges.md")
    tasks = json.loads((FIXTURES / "export.json").read_bytes())
    [blog] = [task for task in tasks if task["data"]["document"] == "blog-rust-challenges.md"]
    blog["annotations"][0]["result"][1]["value"]["end"] = 10**6
    body = json.dumps(tasks).encode()

    posted = api_client().post(f"{API}/documents/{document_id}/label-studio", body, JSON)
    upload = SimpleUploadedFile("tasks.json", body, content_type=JSON)
    form = client.post(
        "/p/default/plans/upload-plan/",
        {"document": document_id, "format": "label-studio", "file": upload},
    )

    assert posted.status_code == 422
    detail = posted.json()["detail"]
    assert detail.startswith("task #2 (id 2) annotation #1 (id 1) region #2 ('blog-1')")
    assert "field 'value.end'" in detail and "past the end of the task's text" in detail
    assert form.status_code == 422
    assert "field &#x27;value.end&#x27;" in form.content.decode()
    assert not Plan.objects.filter(document_id=document_id).exists()


def test_an_export_holding_no_task_of_the_document_is_refused_naming_it(client, editor):
    plan = adjudicated(editor)
    body = (FIXTURES / "export.json").read_bytes()

    upload = SimpleUploadedFile("tasks.json", body, content_type=JSON)
    form = client.post(
        "/p/default/plans/upload-plan/",
        {"document": plan.document_id, "format": "label-studio", "file": upload},
    )

    assert form.status_code == 422
    assert f"no task&#x27;s text is the text of {plan.document.name}" in form.content.decode()
    assert Plan.objects.count() == 1


def test_a_json_object_is_not_a_label_studio_export(client: Client, editor) -> None:
    plan = adjudicated(editor)
    body = client.get(f"/p/default/plans/{plan.pk}/export.json").content

    upload = SimpleUploadedFile("plan.json", body, content_type=JSON)
    form = client.post(
        "/p/default/plans/upload-plan/",
        {"document": plan.document_id, "format": "label-studio", "file": upload},
    )

    assert form.status_code == 422
    assert "the Label Studio export must be a JSON list, not an object" in form.content.decode()
