"""A client for the Grounding Review API: `Client` has a method for each operation, and
`ApiError` is the one error it raises. The command line on it is `grounding-review`."""

from grounding_review_client.client import Client
from grounding_review_client.errors import ApiError
from grounding_review_client.models import (
    Anchor,
    Answer,
    AnswerSummary,
    Case,
    CaseSummary,
    Decision,
    Document,
    Entry,
    Evidence,
    GoneEntry,
    ImportResult,
    Job,
    JobStarted,
    Plan,
    PlanSummary,
    Project,
    Reference,
    RejectedLine,
    Revision,
)

__all__ = [
    "Anchor",
    "Answer",
    "AnswerSummary",
    "ApiError",
    "Case",
    "CaseSummary",
    "Client",
    "Decision",
    "Document",
    "Entry",
    "Evidence",
    "GoneEntry",
    "ImportResult",
    "Job",
    "JobStarted",
    "Plan",
    "PlanSummary",
    "Project",
    "Reference",
    "RejectedLine",
    "Revision",
]
