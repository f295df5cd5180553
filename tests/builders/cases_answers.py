"""Builders for cases and answers, for the view tests, the browser tests and the view
benchmark. They go through the importers, the same door a JSON-lines file takes, so a
page shows what a real import would show.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from review.adapters.answers import import_answers
from review.adapters.cases import import_cases
from review.models import Answer, Case
from review.models.projects import default_project_id

RULE_MATCH = ("policy_match", "success", "Rule 2 (harassment) matched", 41, {"rule": 2})


def case_line(
    case_id: str = "c-1",
    *,
    text: str = "You are all idiots and I will find you.",
    author: str = "u/someone",
    community: str = "r/example",
    report_reason: str = "harassment",
    evidence: Sequence[tuple] = (RULE_MATCH,),
    rationale: str = "The post threatens another member directly [ev-1].",
    declared: Sequence[str] | None = None,
    recommended_action: str = "remove",
) -> str:
    fields = ("tool", "status", "summary", "latency_ms", "data")
    items = [
        {key: value for key, value in zip(fields, item, strict=False) if value is not None}
        for item in evidence
    ]
    line_rationale = {
        "text": rationale,
        "recommended_action": recommended_action,
        "model": "moderator-model-1",
    }
    if declared is not None:
        line_rationale["cited_evidence_ids"] = list(declared)
    content = {
        "text": text,
        "author": author,
        "community": community,
        "report_reason": report_reason,
    }
    line = {"case_id": case_id, "content": content, "evidence": items}
    return json.dumps({**line, "rationale": line_rationale})


def make_case(case_id: str = "c-1", *, project=None, **fields) -> Case:
    """A case imported into `project` (a Project; None for "Default")."""
    project_id = project.pk if project is not None else default_project_id()
    import_cases([case_line(case_id, **fields)], project_id=project_id)
    return Case.objects.get(case_id=case_id, project_id=project_id)


def make_source(number: int, **extra) -> dict:
    return {
        "title": f"Study number {number}",
        "year": 2000 + number % 25,
        "authors": [f"Author {number}", "Second Author"],
        "url": f"https://example.org/study/{number}",
        "venue": "Journal of Examples",
        "snippet": f"What study {number} found.",
        **extra,
    }


def answer_line(
    answer_id: str = "a-1",
    *,
    question: str = "How are fire compartments sized?",
    text: str = "Compartments are limited by floor area [2]. Sprinklers raise the limit [1].",
    sources: Sequence[dict] | None = None,
) -> str:
    sources = list(sources if sources is not None else [make_source(1), make_source(2)])
    return json.dumps(
        {
            "answer_id": answer_id,
            "question": question,
            "text": text,
            "sources": sources,
            "model": "answer-model-1",
        }
    )


def make_answer(
    answer_id: str = "a-1", *, state: str = Answer.State.PROPOSED, project=None, **fields
) -> Answer:
    """An answer imported into `project` (a Project; None for "Default")."""
    project_id = project.pk if project is not None else default_project_id()
    import_answers([answer_line(answer_id, **fields)], project_id=project_id)
    answers = Answer.objects.filter(answer_id=answer_id, project_id=project_id)
    if state != Answer.State.PROPOSED:
        # A fixture, not a decision: tests of deciding go through the views.
        answers.update(state=state)
    return answers.get()
