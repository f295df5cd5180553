"""What the decisions teach: the insights page's figures and the double review's agreement."""

from __future__ import annotations

from dataclasses import replace

from django.http import HttpRequest
from ninja import Router

from review.agreement import agreement
from review.api.auth import AGREEMENT_READERS, INSIGHTS_READERS, ProjectSlug
from review.api.errors import answers
from review.insights import Filters, insights
from review.views.projects import current_project

router = Router()


@router.get(
    "/insights",
    auth=INSIGHTS_READERS,
    response=answers({200: dict}, 403, 422),
    url_name="insights",
    summary="What the decisions teach: the rules' ledger, the validator's reasons, "
    "finalization, week by week (the /insights/ page's figures)",
)
def get_insights(
    request: HttpRequest,
    project: ProjectSlug,
    document: int | None = None,
    version: str = "",
    model: str = "",
    rule: str = "",
    weeks: int = 12,
):
    query = {"version": version, "model": model, "rule": rule, "weeks": str(weeks)}
    if document is not None:
        query["document"] = str(document)
    filters = replace(Filters.from_query(query), project=current_project(request).pk)
    return insights(filters).to_dict()


@router.get(
    "/agreement",
    auth=AGREEMENT_READERS,
    response=answers({200: dict}, 403),
    url_name="agreement",
    summary="How far reviewers agree under double review: κ and α with 95 % bootstrap "
    "intervals, per pair, per reviewer against the outcome, per validator reason, and curation",
)
def get_agreement(request: HttpRequest, project: ProjectSlug):
    return agreement(current_project(request).pk).to_dict()
