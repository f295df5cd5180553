"""Every operation of the API the client calls: its schema's operationId, method and path, the
client method that calls it, and whether repeating it is harmless.

This table is the one place the client names an address; `Client` calls operations by their
id, and a test holds the table to the served schema (/api/openapi.json), so an operation
added to the API without a client method fails it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    client_method: str
    # Whether sending it twice does no more than sending it once, so that a request whose
    # answer was lost (a 502, a dropped connection) may be sent again. Every GET is; a POST
    # only where the API answers a repeat with what the first made.
    idempotent: bool


OPERATIONS: dict[str, Operation] = {
    "review_api_list_projects": Operation("GET", "/api/projects", "projects", True),
    # The same bytes again answer 200 with the document already stored.
    "review_api_post_document": Operation(
        "POST", "/api/projects/{project}/documents", "push_document", True
    ),
    # The same bytes and options again answer 200 with the plan already made.
    "review_api_propose": Operation(
        "POST", "/api/projects/{project}/documents/{document_id}/propose", "propose", True
    ),
    # The same payload again answers 200 with the plan imported before.
    "review_api_post_plan": Operation(
        "POST", "/api/projects/{project}/documents/{document_id}/plans", "import_plan", True
    ),
    # Both convert to a plan payload and import it as the plan import does: a repeat answers
    # 200 with the plan imported before.
    "review_api_post_annotations": Operation(
        "POST",
        "/api/projects/{project}/documents/{document_id}/annotations",
        "import_annotations",
        True,
    ),
    "review_api_post_label_studio": Operation(
        "POST",
        "/api/projects/{project}/documents/{document_id}/label-studio",
        "import_label_studio",
        True,
    ),
    # Not idempotent: a revision already stored is refused (422), so a lost answer is not
    # sent again.
    "review_api_post_revision": Operation(
        "POST",
        "/api/projects/{project}/documents/{document_id}/revisions",
        "push_revision",
        False,
    ),
    "review_api_list_plans": Operation("GET", "/api/projects/{project}/plans", "plans", True),
    "review_api_get_plan": Operation(
        "GET", "/api/projects/{project}/plans/{plan_id}", "plan", True
    ),
    "review_api_get_plan_export": Operation(
        "GET", "/api/projects/{project}/plans/{plan_id}/export", "export_plan", True
    ),
    "review_api_get_plan_annotations": Operation(
        "GET", "/api/projects/{project}/plans/{plan_id}/annotations", "export_annotations", True
    ),
    "review_api_get_plan_label_studio": Operation(
        "GET", "/api/projects/{project}/plans/{plan_id}/label-studio", "export_label_studio", True
    ),
    # A line already imported counts as unchanged, so a repeat creates nothing more.
    "review_api_post_cases": Operation(
        "POST", "/api/projects/{project}/cases", "import_cases", True
    ),
    "review_api_post_answers": Operation(
        "POST", "/api/projects/{project}/answers", "import_answers", True
    ),
    "review_api_list_cases": Operation("GET", "/api/projects/{project}/cases", "cases", True),
    "review_api_get_case": Operation(
        "GET", "/api/projects/{project}/cases/{case_id}", "case", True
    ),
    "review_api_list_answers": Operation("GET", "/api/projects/{project}/answers", "answers", True),
    "review_api_get_answer": Operation(
        "GET", "/api/projects/{project}/answers/{answer_id}", "answer", True
    ),
    "review_api_get_job": Operation("GET", "/api/projects/{project}/jobs/{job_id}", "job", True),
    "review_api_list_decisions": Operation(
        "GET", "/api/projects/{project}/decisions", "decisions", True
    ),
    "review_api_get_insights": Operation(
        "GET", "/api/projects/{project}/insights", "insights", True
    ),
    "review_api_get_agreement": Operation(
        "GET", "/api/projects/{project}/agreement", "agreement", True
    ),
}

# Operations of the API the client deliberately does not call, each with the reason. None:
# every operation a key may call is one a pipeline may need.
LEFT_OUT: dict[str, str] = {}
