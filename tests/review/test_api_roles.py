"""The API asks the web's own permission functions about the token's user: pushing documents,
plans (as plan JSON, as Web Annotations or as a Label Studio export) and answers needs an
Editor, cases a Moderator; reading needs only a valid token."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from review.adapters.documents import store_document
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.cases_answers import answer_line, case_line
from tests.builders.plans import (
    CODE_TEXT,
    annotations_text,
    label_studio_text,
    payload_text,
    proposed_payload,
    row_counts,
)

pytestmark = pytest.mark.django_db

ROLES = {
    "no role": (),
    "reader": ("Readers",),
    "moderator": ("Moderators",),
    "editor": ("Editors",),
}


def client_as(role: str) -> Client:
    key = f"key-of-the-{role.replace(' ', '-')}"
    username = role.replace(" ", "-")
    pipeline_user(key, groups=ROLES.get(role, ()), username=username, staff=role == "staff")
    return api_client(key)


def post_document(api: Client, document_id: int):
    return api.post(
        f"{API}/documents",
        {"file": SimpleUploadedFile("vegbygging.md", b"# Vei\n\nTekst.\n")},
    )


def post_propose(api: Client, document_id: int):
    return api.post(
        f"{API}/documents/{document_id}/propose",
        "{}",
        content_type="application/json",
    )


def post_plan(api: Client, document_id: int):
    body = payload_text(proposed_payload())
    return api.post(
        f"{API}/documents/{document_id}/plans",
        body,
        content_type="application/json",
    )


def post_annotations(api: Client, document_id: int):
    return api.post(
        f"{API}/documents/{document_id}/annotations",
        annotations_text(),
        content_type="application/ld+json",
    )


def post_label_studio(api: Client, document_id: int):
    return api.post(
        f"{API}/documents/{document_id}/label-studio",
        label_studio_text(),
        content_type="application/json",
    )


def post_cases(api: Client, document_id: int):
    return api.post(f"{API}/cases", case_line() + "\n", content_type="application/x-ndjson")


def post_answers(api: Client, document_id: int):
    return api.post(f"{API}/answers", answer_line() + "\n", content_type="application/x-ndjson")


# Each write, and the roles that may make it (staff may make every one).
WRITES = {
    "POST /api/documents": (post_document, {"editor", "staff"}),
    "POST /api/documents/{id}/propose": (post_propose, {"editor", "staff"}),
    "POST /api/documents/{id}/plans": (post_plan, {"editor", "staff"}),
    "POST /api/documents/{id}/annotations": (post_annotations, {"editor", "staff"}),
    "POST /api/documents/{id}/label-studio": (post_label_studio, {"editor", "staff"}),
    "POST /api/cases": (post_cases, {"moderator", "staff"}),
    "POST /api/answers": (post_answers, {"editor", "staff"}),
}
EVERYONE = [*ROLES, "staff"]


@pytest.fixture
def document_id() -> int:
    return store_document("n500.md", CODE_TEXT.encode()).pk


@pytest.mark.parametrize("role", EVERYONE)
@pytest.mark.parametrize("write", list(WRITES))
def test_a_write_is_made_only_by_a_role_that_may_make_it(write, role, document_id) -> None:
    send, allowed = WRITES[write]
    api = client_as(role)
    before = row_counts()

    response = send(api, document_id)

    if role in allowed:
        assert response.status_code in (200, 201), response.content
        assert row_counts() != before
    else:
        assert response.status_code == 403, response.content
        body = response.json()
        assert set(body) == {"detail", "problems"}
        assert body["detail"].startswith("only ")
        assert row_counts() == before


@pytest.mark.parametrize("role", EVERYONE)
def test_any_valid_token_reads_plans_cases_answers_and_decisions(role, document_id) -> None:
    api = client_as(role)

    assert api.get(f"{API}/plans").status_code == 200
    assert api.get(f"{API}/cases").status_code == 200
    assert api.get(f"{API}/answers").status_code == 200
    assert api.get(f"{API}/decisions").status_code == 200


def test_the_refusal_names_the_role_that_may(document_id) -> None:
    reader = client_as("reader")

    acts_as = "; this key acts as Reader in 'default'"
    assert (
        post_cases(reader, document_id).json()["detail"] == "only Moderators import cases" + acts_as
    )
    assert (
        post_answers(reader, document_id).json()["detail"]
        == "only Editors import answers" + acts_as
    )


def test_a_role_that_may_not_is_refused_before_its_body_is_judged(document_id) -> None:
    reader = client_as("reader")

    no_file = reader.post(f"{API}/documents")
    not_json = reader.post(
        f"{API}/documents/{document_id}/propose",
        "{",
        content_type="application/json",
    )

    assert (no_file.status_code, not_json.status_code) == (403, 403)
