"""The JSON API: token auth, the schema, documents and plans."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from review.actions.plan_reviews import adjudicate_plan
from review.decisions import decide
from review.models import Document, Entry, Plan
from tests.builders.api import API, API_KEY, api_client, pipeline_user
from tests.builders.plans import (
    CODE_TEXT,
    payload_text,
    proposed_payload,
    row_counts,
    sha256,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def pipeline() -> User:
    return pipeline_user()


@pytest.fixture
def api(pipeline: User) -> Client:
    return api_client()


def upload(api: Client, name: str, data: bytes):
    return api.post(f"{API}/documents", {"file": SimpleUploadedFile(name, data)})


def post_json(api: Client, url: str, body: str | bytes):
    return api.post(url, body, content_type="application/json")


def refused(response, status: int) -> list[str]:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"detail", "problems"}
    return body["problems"]


@pytest.fixture
def document(api: Client) -> dict:
    return upload(api, "n500.md", CODE_TEXT.encode()).json()


# --- the door itself ----------------------------------------------------------------------


def test_the_openapi_schema_is_served_without_a_session_or_a_token(client: Client) -> None:
    response = client.get("/api/openapi.json")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    schema = response.json()
    assert {
        "/api/projects/{project}/documents",
        "/api/projects/{project}/plans/{plan_id}/export",
        "/api/projects/{project}/decisions",
        "/api/projects",
    } <= set(schema["paths"])
    schemes = schema["components"]["securitySchemes"].values()
    assert [scheme["scheme"] for scheme in schemes] == ["bearer"]


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer not-the-key"}, {"Authorization": f"Token {API_KEY}"}],
    ids=["no-token", "wrong-key", "wrong-scheme"],
)
def test_without_a_valid_token_the_api_answers_401_not_a_login_redirect(
    pipeline, headers: dict
) -> None:
    response = Client(headers=headers).get(f"{API}/plans")

    assert response.status_code == 401
    assert refused(response, 401) == [response.json()["detail"]]
    assert "Authorization: Bearer <key>" in response.json()["detail"]


def test_a_logged_in_session_is_not_a_token(client: Client) -> None:
    client.force_login(User.objects.create_user("editor"))
    assert client.get(f"{API}/plans").status_code == 401


def test_the_token_of_a_deactivated_user_no_longer_works(api: Client, pipeline: User) -> None:
    pipeline.is_active = False
    pipeline.save()
    assert api.get(f"{API}/plans").status_code == 401


# --- documents ----------------------------------------------------------------------------


def test_uploading_a_document_stores_it_and_again_finds_the_same_one(api: Client) -> None:
    first = upload(api, "n500.md", CODE_TEXT.encode())
    again = upload(api, "renamed.md", CODE_TEXT.encode())

    assert (first.status_code, again.status_code) == (201, 200)
    body = first.json()
    assert again.json()["id"] == body["id"]
    assert (body["name"], body["media_type"], body["sha256"]) == (
        "n500.md",
        "markdown",
        sha256(CODE_TEXT.encode()),
    )
    assert body["text_chars"] == len(CODE_TEXT)
    assert bytes(Document.objects.get().data) == CODE_TEXT.encode()


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.md", b"", "empty.md is empty: there is nothing to review"),
        ("latin1.txt", "Rømning\n".encode("latin-1"), "not valid UTF-8 at byte offset 1"),
        ("sheet.xlsx", b"PK\x03\x04", "cannot extract text from a file with type '.xlsx'"),
    ],
    ids=["empty", "undecodable", "unsupported"],
)
def test_a_document_without_text_is_refused_with_the_commands_reason(
    api: Client, name: str, data: bytes, reason: str
) -> None:
    before = row_counts()
    problems = refused(upload(api, name, data), 422)
    assert len(problems) == 1 and reason in problems[0]
    assert row_counts() == before


def test_an_upload_without_a_file_names_the_missing_field(api: Client) -> None:
    problems = refused(api.post(f"{API}/documents", {"other": "x"}), 422)
    assert problems == ["file.file: Field required"]


# --- proposing and importing plans --------------------------------------------------------------


def test_proposing_for_a_stored_document_returns_the_plan_with_its_entries(
    api: Client, document: dict
) -> None:
    response = post_json(
        api,
        f"{API}/documents/{document['id']}/propose",
        json.dumps({"path_prefix": "vn"}),
    )

    assert response.status_code == 201
    plan = response.json()
    assert plan["document_id"] == document["id"]
    assert plan["options"] == {
        "max_segment_chars": 0,
        "path_prefix": "vn",
        "submitted_by": "pipeline",
    }
    assert [entry["state"] for entry in plan["entries"]] == ["proposed"] * len(plan["entries"])
    assert all(entry["path"].startswith("vn/") for entry in plan["entries"])
    again = post_json(
        api,
        f"{API}/documents/{document['id']}/propose",
        json.dumps({"path_prefix": "vn"}),
    )
    assert (again.status_code, again.json()["id"]) == (200, plan["id"])


def test_proposing_with_nothing_to_propose_or_bad_options_is_refused(api: Client) -> None:
    flat = upload(api, "flat.md", b"One paragraph, no headings.\n").json()
    before = row_counts()

    nothing = refused(post_json(api, f"{API}/documents/{flat['id']}/propose", "{}"), 422)
    negative = refused(
        post_json(
            api,
            f"{API}/documents/{flat['id']}/propose",
            '{"max_segment_chars": -1}',
        ),
        422,
    )
    wrong_type = refused(
        post_json(
            api,
            f"{API}/documents/{flat['id']}/propose",
            '{"max_segment_chars": "lots"}',
        ),
        422,
    )

    assert nothing[0].startswith("nothing to propose for flat.md")
    assert "max-segment-chars" in negative[0]
    assert wrong_type[0].startswith("body.options.max_segment_chars: Input should be a valid")
    assert row_counts() == before


def test_a_plan_posted_for_a_document_is_imported_verbatim(api: Client, document: dict) -> None:
    text = payload_text(proposed_payload())

    response = post_json(api, f"{API}/documents/{document['id']}/plans", text)

    assert response.status_code == 201
    plan = Plan.objects.get(pk=response.json()["id"])
    assert plan.original_payload == text
    assert [entry["anchor_status"] for entry in response.json()["entries"]] == ["exact"] * 3
    again = post_json(api, f"{API}/documents/{document['id']}/plans", text)
    assert (again.status_code, again.json()["id"]) == (200, plan.pk)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"entries": [', "the plan is not valid JSON: line 1 column 14"),
        (b"", "the plan is empty"),
        (b"[]", "the plan must be a JSON object, not a list"),
        (b"\xff{}", "the plan is not UTF-8 text: byte 0 cannot be decoded"),
        (
            payload_text(proposed_payload(adjudicated="false")).encode(),
            "field 'adjudicated': must be true or false",
        ),
        (
            payload_text(proposed_payload("## 9 Annet\n\nEt annet dokument.\n")).encode(),
            "this plan is for other bytes",
        ),
    ],
    ids=["malformed-json", "empty", "a-list", "not-utf8", "wrong-type", "another-document"],
)
def test_a_bad_plan_is_refused_with_the_commands_reason_and_nothing_stored(
    api: Client, document: dict, body: bytes, reason: str
) -> None:
    before = row_counts()
    problems = refused(post_json(api, f"{API}/documents/{document['id']}/plans", body), 422)
    assert reason in problems[0]
    assert row_counts() == before


def test_a_plan_for_a_document_that_does_not_exist_is_404(api: Client) -> None:
    response = post_json(api, f"{API}/documents/999/plans", payload_text(proposed_payload()))
    assert response.status_code == 404


# --- reading plans back -------------------------------------------------------------------------


def test_plans_are_listed_and_filtered_by_document_and_status(api: Client, document) -> None:
    proposed = post_json(api, f"{API}/documents/{document['id']}/propose", "{}").json()
    other = upload(api, "other.md", b"# Annet\n\nNoe annet.\n").json()
    post_json(api, f"{API}/documents/{other['id']}/propose", "{}")

    everything = api.get(f"{API}/plans").json()["items"]
    mine = api.get(f"{API}/plans?document_id={document['id']}").json()["items"]
    adjudicated = api.get(f"{API}/plans?status=adjudicated").json()["items"]

    assert len(everything) == 2
    assert [plan["id"] for plan in mine] == [proposed["id"]]
    assert adjudicated == []
    assert "entries" not in mine[0]


def test_a_plan_shows_each_entrys_state_and_who_decided_it(api: Client, document) -> None:
    plan_id = post_json(api, f"{API}/documents/{document['id']}/propose", "{}").json()["id"]
    editor = User.objects.create_user("editor")
    entry = Entry.objects.filter(plan_id=plan_id).order_by("position").first()
    decide(
        entry,
        expected_version=1,
        actor=editor,
        action="entry.reject",
        changes={"state": "rejected", "decided_by": editor, "note": "intro only"},
    )

    body = api.get(f"{API}/plans/{plan_id}").json()

    first = body["entries"][0]
    assert (first["state"], first["decided_by"], first["note"], first["version"]) == (
        "rejected",
        "editor",
        "intro only",
        2,
    )
    assert first["span"] == [entry.span_start, entry.span_end]
    assert first["anchor"]["quote"] == CODE_TEXT[entry.span_start : entry.span_end]
    assert {e["state"] for e in body["entries"][1:]} == {"proposed"}
    assert api.get(f"{API}/plans/999").status_code == 404


def test_exporting_an_open_plan_is_409_naming_the_undecided_entries(api: Client, document):
    plan = post_json(api, f"{API}/documents/{document['id']}/propose", "{}").json()

    problems = refused(api.get(f"{API}/plans/{plan['id']}/export"), 409)

    assert problems[0] == f"plan {plan['id']} is not adjudicated, so there is nothing to export"
    assert problems[1:] == [
        f"entry #{entry['position'] + 1} ({entry['path']!r}) is still undecided"
        for entry in plan["entries"]
    ]


def test_exporting_an_adjudicated_plan_serves_the_frozen_json_byte_for_byte(api, document):
    plan = Plan.objects.get(
        pk=post_json(api, f"{API}/documents/{document['id']}/propose", "{}").json()["id"]
    )
    editor = User.objects.create_user("editor")
    for entry in plan.entries.all():
        decide(
            entry,
            expected_version=1,
            actor=editor,
            action="entry.accept",
            changes={"state": "accepted", "decided_by": editor, "decided_at": timezone.now()},
        )
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)

    response = api.get(f"{API}/plans/{plan.pk}/export")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response.content.decode() == plan.adjudicated_payload
