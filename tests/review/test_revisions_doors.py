"""The other doors to a revision: POST /api/projects/{project}/documents/{id}/revisions and
manage.py add_revision, with the same carrying and the same refusals as the upload form."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from review.actions.revisions import CARRY
from review.models import Decision, Document, Plan
from tests.builders.api import API, api_client, pipeline_user
from tests.builders.plans import row_counts
from tests.builders.revisions import FIRST, NAME, SECOND, decided_plan, first_plan

pytestmark = pytest.mark.django_db


def post_revision(client, document_id: int, data: bytes = SECOND):
    return client.post(
        f"{API}/documents/{document_id}/revisions",
        {"file": SimpleUploadedFile(NAME, data)},
    )


def test_the_api_stores_a_revision_and_answers_with_the_carried_plan(alice) -> None:
    plan = decided_plan(alice)
    pipeline = pipeline_user()

    response = post_revision(api_client(), plan.document.pk)
    body = response.json()

    assert response.status_code == 201
    revision = Document.objects.get(revision_of=plan.document)
    assert body["document"] | {"revision": 2, "revision_of": plan.document.pk} == body["document"]
    assert body["document"]["id"] == revision.pk
    carried = Plan.objects.get(pk=body["plan"]["id"])
    assert carried.carried_from == plan
    assert body["carried"] == Decision.objects.filter(action=CARRY).count() > 0
    assert body["need_you"] == carried.entries.counts().need_you
    assert [gone["path"] for gone in body["gone"]] == [g["path"] for g in carried.options["gone"]]
    assert set(Decision.objects.filter(action=CARRY).values_list("actor", flat=True)) == {
        pipeline.pk
    }


def test_the_api_refuses_bytes_already_stored_with_the_reason(alice) -> None:
    plan = first_plan()
    pipeline_user()
    before = row_counts()

    response = post_revision(api_client(), plan.document.pk, data=FIRST)

    assert response.status_code == 422
    assert "already stored as document" in response.json()["detail"]
    assert row_counts() == before


def test_the_api_answers_404_for_an_unknown_document_and_401_without_a_key() -> None:
    pipeline_user()

    assert post_revision(api_client(), 999).status_code == 404
    assert post_revision(api_client("wrong-key"), 999).status_code == 401


def test_the_command_adds_the_revision_and_says_what_was_carried(alice, tmp_path) -> None:
    plan = decided_plan(alice)
    path = tmp_path / NAME
    path.write_bytes(SECOND)
    out = io.StringIO()

    call_command("add_revision", str(plan.document.pk), str(path), "--by", "alice", stdout=out)

    revision = Document.objects.get(revision_of=plan.document)
    carried = Plan.objects.get(document=revision)
    counts = carried.entries.counts()
    assert f"stored as revision 2 of {NAME} (document {revision.pk})" in out.getvalue()
    assert f"{counts.need_you} of {counts.total} entries need you" in out.getvalue()


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        (["999", "FILE", "--by", "alice"], "is not the id of a stored document"),
        (["DOC", "FILE", "--by", "nobody"], "--by 'nobody': no such user"),
        (["DOC", "SAME", "--by", "alice"], "already stored as document"),
    ],
)
def test_the_command_refuses_with_exit_status_2_and_writes_nothing(
    alice, tmp_path, arguments, problem
) -> None:
    plan = first_plan()
    (tmp_path / "new.md").write_bytes(SECOND)
    (tmp_path / "same.md").write_bytes(FIRST)
    names = {"DOC": str(plan.document.pk), "FILE": str(tmp_path / "new.md")}
    names["SAME"] = str(tmp_path / "same.md")
    before = row_counts()

    with pytest.raises(CommandError, match=problem) as refused:
        call_command("add_revision", *[names.get(argument, argument) for argument in arguments])

    assert refused.value.returncode == 2
    assert row_counts() == before
