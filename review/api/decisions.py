"""The decision log, read a page at a time."""

from __future__ import annotations

import datetime as dt

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema

from review.adapters.decision_log import decision_as_dict, parse_since
from review.adapters.errors import ImportRefused
from review.api.auth import ProjectSlug
from review.api.errors import answers
from review.api.paging import PageIn, page_of
from review.decisions import decisions_since
from review.models import Decision
from review.views.projects import current_project, in_current_project

router = Router()


class DecisionOut(Schema):
    id: int
    at: dt.datetime
    actor: str
    action: str = Field(
        description='what was decided, as the log names it ("plan.adjudicate", "policy.set", '
        '...); "withheld" on a row withheld from you'
    )
    object_type: str
    object_id: str
    before: dict
    after: dict
    note: str
    undoes: int | None
    withheld: str = Field(
        "", description="why the row's action, actor, before, after and note are withheld from you"
    )


class DecisionPage(Schema):
    items: list[DecisionOut]
    next: str | None = Field(description="the following page's URL; null on the last page")


@router.get(
    "/decisions",
    response=answers({200: DecisionPage}, 422),
    summary="The decision log, oldest first, a page at a time; since= a date or ISO date and "
    "time (inclusive)",
)
def list_decisions(
    request: HttpRequest, project: ProjectSlug, page: Query[PageIn], since: str | None = None
):
    moment = parse_since(since) if since else None
    after = None
    if page.after is not None:
        after = (
            in_current_project(request, Decision.objects).only("at").filter(pk=page.after).first()
        )
        if after is None:
            raise ImportRefused(f"after: there is no decision {page.after}")
    # Blind review holds for the log too: what the pages keep from this reader, it withholds.
    rows = decisions_since(moment, after).filter(project=current_project(request))
    rows = rows.blind_to(request.auth)
    shown = page_of(request, list(rows[: page.limit + 1]), page)
    return {"items": [decision_as_dict(row) for row in shown["rows"]], "next": shown["next"]}
