"""The client against the real server (gunicorn with its worker, `conftest.server`), as a
pipeline uses it: push, propose, read a plan, export it once adjudicated, page through the log,
follow jobs to their end, and the API's refusals as `ApiError`."""

from __future__ import annotations

import dataclasses
import hashlib
import json

import httpx
import pytest
from grounding_review_client import (
    Answer,
    ApiError,
    Case,
    Client,
    ImportResult,
    JobStarted,
    Plan,
)

from tests.builders.cases_answers import answer_line, case_line
from tests.client.conftest import JOB_BYTES, JOB_LINES, adjudicate, markdown

pytestmark = pytest.mark.trust


@pytest.fixture
def pipeline(server):
    with Client(server.url, server.key("pipeline")) as client:
        yield client


def test_a_pushed_document_is_stored_once_and_its_proposed_plan_read_back(pipeline):
    data = markdown("Pushed once", sections=3)

    document = pipeline.push_document(data, name="pushed.md")
    again = pipeline.push_document(data, name="renamed.md")
    plan = pipeline.propose(document.id)

    assert document.sha256 == hashlib.sha256(data).hexdigest()
    assert document.media_type == "markdown"
    assert again.id == document.id
    assert isinstance(plan, Plan) and plan.document_id == document.id
    assert plan.status == "open" and plan.entries
    assert {entry.state for entry in plan.entries} == {"proposed"}
    assert pipeline.plan(plan.id) == plan
    listed = list(pipeline.plans(document_id=document.id))
    assert [summary.id for summary in listed] == [plan.id]


def test_an_open_plan_is_refused_naming_its_undecided_entries_and_exported_once_adjudicated(
    server, pipeline
):
    document = pipeline.push_document(markdown("Exported", sections=3), name="exported.md")
    plan = pipeline.propose(document.id)

    with pytest.raises(ApiError) as refused:
        pipeline.export_plan(plan.id)
    adjudicate(server, plan.id)
    exported = pipeline.export_plan(plan.id)

    assert refused.value.status == 409
    assert refused.value.problems and refused.value.detail in (
        refused.value.problems[0],
        f"refused: {len(refused.value.problems)} problems",
    )
    payload = json.loads(exported)
    assert payload["adjudicated"] is True
    assert [entry["path"] for entry in payload["entries"]] == [e.path for e in plan.entries]
    assert pipeline.plan(plan.id).status == "adjudicated"
    assert plan.id in [summary.id for summary in pipeline.plans(status="adjudicated")]


def test_an_adjudicated_plan_goes_out_as_annotations_and_a_label_studio_task_and_back_in(
    server, pipeline
):
    """Each format back in proposes the same segments again: proposals, never decisions."""
    document = pipeline.push_document(markdown("Formats", sections=3), name="formats.md")
    plan = pipeline.propose(document.id)
    adjudicate(server, plan.id)

    annotations = pipeline.export_annotations(plan.id)
    tasks = pipeline.export_label_studio(plan.id)
    from_annotations = pipeline.import_annotations(document.id, annotations)
    from_tasks = pipeline.import_label_studio(document.id, json.loads(tasks))

    assert json.loads(annotations)["type"] == "AnnotationCollection"
    for again in (from_annotations, from_tasks):
        assert again.id != plan.id and again.status == "open"
        assert {entry.state for entry in again.entries} == {"proposed"}
        assert [entry.span for entry in again.entries] == [entry.span for entry in plan.entries]


def test_the_decision_log_reads_the_same_a_page_at_a_time_and_resumes_after_a_cursor(
    server, pipeline
):
    document = pipeline.push_document(markdown("Paged", sections=4), name="paged.md")
    adjudicate(server, pipeline.propose(document.id).id)

    whole = list(pipeline.decisions(page_size=500))
    paged = list(pipeline.decisions(page_size=2))
    resumed = list(pipeline.decisions(after=whole[1].id, page_size=3))

    assert len(whole) > 4
    assert paged == whole
    assert resumed == whole[2:]
    assert {"entry.accept", "plan.adjudicate"} <= {decision.action for decision in whole}
    assert list(pipeline.decisions(since=whole[-1].at)) == [
        d for d in whole if d.at >= whole[-1].at
    ]


def test_a_large_document_is_proposed_by_a_job_that_is_followed_to_its_plan(pipeline):
    large = markdown("Large", sections=40)
    assert len(large) > JOB_BYTES
    started_document = pipeline.push_document(large, name="large.md")
    waited_document = pipeline.push_document(markdown("Larger", sections=40), name="larger.md")

    started = pipeline.propose(started_document.id)
    job = pipeline.wait_for_job(started)
    plan = pipeline.propose(waited_document.id, wait=True)

    assert isinstance(started, JobStarted)
    assert job.status == "succeeded" and job.kind == "propose"
    assert pipeline.plan(job.result["plan"]).document_id == started_document.id
    assert isinstance(plan, Plan) and plan.document_id == waited_document.id
    assert len(plan.entries) > 1


def test_an_import_answered_202_is_followed_to_its_counts(pipeline):
    lines = "\n".join(case_line(f"job-{n}") for n in range(JOB_LINES + 1)) + "\n"

    result = pipeline.import_cases(lines, wait=True)
    again = pipeline.import_cases(lines)

    assert result == ImportResult(created=JOB_LINES + 1, unchanged=0, rejected=[])
    assert isinstance(again, JobStarted)
    assert pipeline.wait_for_job(again).result["unchanged"] == JOB_LINES + 1


def test_a_job_that_fails_raises_its_problems(pipeline):
    lines = [case_line(f"failing-{n}") for n in range(JOB_LINES)] + ['{"case_id": "broken"}']

    with pytest.raises(ApiError) as failed:
        pipeline.import_cases("\n".join(lines) + "\n", wait=True)

    assert failed.value.status is None
    assert any("line 6" in problem for problem in failed.value.problems), failed.value.problems


def test_a_refused_import_carries_the_apis_detail_and_each_problem(pipeline):
    # Line 1 lacks three fields, line 2 is no JSON at all: one problem for each fault.
    lines = '{"case_id": "a"}\nnot json\n'

    with pytest.raises(ApiError) as refused:
        pipeline.import_cases(lines)

    assert refused.value.status == 422
    assert refused.value.detail == f"refused: {len(refused.value.problems)} problems"
    where = [problem.split(":")[0] for problem in refused.value.problems]
    assert where == ["line 1", "line 1", "line 1", "line 2"]
    assert "content" in refused.value.problems[0]
    assert "not valid JSON" in refused.value.problems[3]


def test_a_role_that_may_not_push_is_refused_naming_its_role(server):
    with Client(server.url, server.key("reader-0")) as reader, pytest.raises(ApiError) as refused:
        reader.push_document(markdown("Not mine", sections=1), name="reader.md")

    assert refused.value.status == 403
    assert refused.value.detail.startswith("only Editors push documents")
    assert refused.value.problems == [refused.value.detail]


def test_a_project_the_key_does_not_act_for_is_refused_as_not_there(server):
    elsewhere = Client(server.url, server.key("editor-0"), project="elsewhere")
    with elsewhere, pytest.raises(ApiError) as refused:
        elsewhere.plan(1)

    assert refused.value.status == 404
    assert "elsewhere" in refused.value.detail


def test_the_projects_name_the_keys_roles(server):
    with Client(server.url, server.key("editor-0")) as editor:
        projects = editor.projects()

    assert [(project.slug, project.roles) for project in projects] == [("default", ["editor"])]


def test_a_plan_proposed_elsewhere_is_imported_and_a_revision_carries_it(pipeline):
    original = markdown("Revised", sections=3)
    document = pipeline.push_document(original, name="revised.md")
    ours = pipeline.propose(document.id)
    elsewhere = {
        "source_sha256": ours.source_sha256,
        "extractor_id": ours.extractor_id,
        "extractor_version": ours.extractor_version,
        "proposed_by": "another-proposer",
        "adjudicated": False,
        "entries": [
            {
                "path": entry.path,
                "title": entry.title,
                "span": list(entry.span),
                "anchor": dataclasses.asdict(entry.anchor),
                "derived": ["PROPOSED", *entry.rules],
            }
            for entry in ours.entries
        ],
    }

    imported = pipeline.import_plan(document.id, elsewhere)
    revision = pipeline.push_revision(document.id, original + b"\nOne more line.\n", "revised.md")

    assert imported.proposed_by == "another-proposer" and imported.id != ours.id
    assert [entry.path for entry in imported.entries] == [entry.path for entry in ours.entries]
    assert pipeline.import_plan(document.id, json.dumps(elsewhere)).id == imported.id
    assert revision.document.revision_of == document.id
    assert revision.plan is not None and revision.plan.document_id == revision.document.id
    assert revision.carried + revision.need_you == len(ours.entries)


def test_answers_import_inline_and_the_figures_read_back(server, pipeline):
    lines = [json.loads(answer_line(f"client-{n}")) for n in range(2)]

    result = pipeline.import_answers(lines)
    again = pipeline.import_answers(lines)
    insights = pipeline.insights(weeks=4)
    agreement = pipeline.agreement()

    assert result == ImportResult(created=2, unchanged=0, rejected=[])
    assert again == ImportResult(created=0, unchanged=2, rejected=[])
    assert {"rules", "validator", "finalization", "weeks"} <= set(insights)
    served = httpx.get(
        f"{server.url}/api/projects/default/agreement",
        headers={"Authorization": f"Bearer {server.key('pipeline')}"},
        timeout=30,
    )
    assert agreement == served.raise_for_status().json()


def test_an_imported_case_and_answer_are_listed_and_read_back(pipeline):
    pipeline.import_cases([json.loads(case_line("read-back-case"))])
    pipeline.import_answers([json.loads(answer_line("read-back-answer", question="Plover?"))])

    listed_case = next(c for c in pipeline.cases(page_size=2) if c.case_id == "read-back-case")
    listed_answer = next(iter(pipeline.answers(q="Plover", page_size=2)))
    case, answer = pipeline.case(listed_case.id), pipeline.answer(listed_answer.id)

    assert isinstance(case, Case) and case.id == listed_case.id
    assert case.verdict == "proposed" and case.review_stage == "single"
    assert [item.ev_id for item in case.evidence] == ["ev-1"]
    assert isinstance(answer, Answer) and answer.answer_id == "read-back-answer"
    assert [ref.number for ref in answer.references] == [1, 2]
    with pytest.raises(ApiError) as missing:
        pipeline.case(10**9)
    assert missing.value.status == 404
