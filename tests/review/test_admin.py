"""The admin shows everything and lets nobody rewrite the log or what was imported."""

from __future__ import annotations

import pytest
from django.urls import reverse

from review.models import ApiToken, Decision, Plan
from review.models.projects import default_project_id
from tests.builders.plans import stored_entry

pytestmark = pytest.mark.django_db


@pytest.fixture
def plan() -> Plan:
    text = "# A\n\nBody text.\n"
    entry = stored_entry(
        text,
        name="n500.md",
        digest="a" * 64,
        path="a",
        title="A",
        original_payload='{"verbatim": true}',
    )
    return entry.plan


@pytest.mark.parametrize(
    "model",
    [
        "document",
        "plan",
        "entry",
        "case",
        "evidence",
        "answer",
        "answerreference",
        "decision",
        "apitoken",
    ],
)
def test_every_model_has_a_list_page_in_the_admin(admin_client, model: str) -> None:
    response = admin_client.get(reverse(f"admin:review_{model}_changelist"))
    assert response.status_code == 200


def test_the_decision_log_cannot_be_added_to_changed_or_deleted_in_the_admin(
    admin_client, admin_user
) -> None:
    row = Decision.objects.create(
        project_id=default_project_id(),
        actor=admin_user,
        actor_name="admin",
        action="entry.accept",
        object_type="entry",
        object_id="1",
    )
    assert admin_client.get(reverse("admin:review_decision_add")).status_code == 403
    change_url = reverse("admin:review_decision_change", args=[row.pk])
    page = admin_client.get(change_url)
    assert page.status_code == 200  # viewable
    assert b'name="_save"' not in page.content
    response = admin_client.post(change_url, {"note": "rewritten", "action": "entry.reject"})
    assert response.status_code == 403
    delete = admin_client.post(
        reverse("admin:review_decision_delete", args=[row.pk]), {"post": "yes"}
    )
    assert delete.status_code == 403
    row.refresh_from_db()
    assert (row.note, row.action) == ("", "entry.accept")


def test_a_document_page_shows_no_field_for_its_bytes_and_edits_nothing(
    admin_client, plan: Plan
) -> None:
    document = plan.document
    url = reverse("admin:review_document_change", args=[document.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    assert b'name="data"' not in page.content
    assert b'name="sha256"' not in page.content
    admin_client.post(url, {"name": "renamed.md", "sha256": "b" * 64, "text": "other"})
    document.refresh_from_db()
    assert (document.name, document.sha256, document.text) == (
        "n500.md",
        "a" * 64,
        "# A\n\nBody text.\n",
    )
    assert bytes(document.data) == b"# A\n\nBody text.\n"


def test_a_plan_page_shows_the_original_payload_but_offers_no_field_to_change_it(
    admin_client, plan: Plan
) -> None:
    url = reverse("admin:review_plan_change", args=[plan.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    assert b"verbatim" in page.content
    assert b'name="original_payload"' not in page.content
    admin_client.post(url, {"original_payload": "{}", "status": "adjudicated"})
    plan.refresh_from_db()
    assert (plan.original_payload, plan.status) == ('{"verbatim": true}', "open")


def test_an_entry_cannot_be_decided_through_the_admin(admin_client, plan: Plan) -> None:
    entry = plan.entries.get()
    url = reverse("admin:review_entry_change", args=[entry.pk])
    admin_client.post(url, {"state": "accepted", "title": "Other", "version": 7})
    entry.refresh_from_db()
    assert (entry.state, entry.title, entry.version) == ("proposed", "A", 1)
    assert not Decision.objects.exists()


def test_api_tokens_are_made_by_the_command_not_the_admin_but_can_be_revoked(
    admin_client, admin_user
) -> None:
    token = ApiToken.objects.create(user=admin_user, name="ci", key_sha256="c" * 64)
    assert admin_client.get(reverse("admin:review_apitoken_add")).status_code == 403
    admin_client.post(reverse("admin:review_apitoken_delete", args=[token.pk]), {"post": "yes"})
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("model", ["plan", "entry", "document"])
def test_the_admin_cannot_delete_what_decisions_are_made_on(admin_client, model: str) -> None:
    entry = stored_entry(
        "# A\n\nBody text.\n", name="n501.md", digest="d" * 64, path="a", title="A"
    )
    obj = {"plan": entry.plan, "entry": entry, "document": entry.plan.document}[model]
    response = admin_client.post(
        reverse(f"admin:review_{model}_delete", args=[obj.pk]), {"post": "yes"}
    )
    assert response.status_code == 403
    assert type(obj).objects.filter(pk=obj.pk).exists()
    assert not Decision.objects.exists()
