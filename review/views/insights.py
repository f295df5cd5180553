"""/insights/: what the decisions teach about the proposer's rules, the validator's reasons
and finalization, with intervals, week by week, narrowed by document, proposer version, model
and rule. For editors, moderators, curators and staff."""

from __future__ import annotations

from dataclasses import replace

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from grounding.agreement import BOOTSTRAP_RESAMPLES
from grounding.ledger import Confusion
from review.agreement import agreement
from review.insights import Filters, Insights, guideline_versions, insights, rule_names
from review.models import Case, Document, Plan
from review.permissions import can_read_insights
from review.views.charts import share_bars, weekly_lines
from review.views.projects import current_project, project_url, projects_worked_in


@require_GET
def insights_page(request: HttpRequest) -> HttpResponse:
    project = current_project(request)
    if not can_read_insights(request.user, project):
        raise PermissionDenied("The insights are for editors, moderators and curators.")
    filters = replace(Filters.from_query(request.GET), project=project.pk)
    figures = insights(filters)
    people = agreement(project.pk, filters.guideline)
    context = {
        "figures": figures,
        "people": people,
        # Beside each rule's and reason's record, how far two people agree on the same items:
        # whether the record is within human noise.
        "rule_agreement": {group.name: group.kappa for group in people.plans.by_rule},
        "reason_agreement": {group.name: group.kappa for group in people.cases.by_reason},
        "disagreements": _disagreements(request, figures.validator.confusion, filters),
        "filters": filters,
        **_narrowing_choices(filters),
        "resamples": BOOTSTRAP_RESAMPLES,
        **_charts(figures),
    }
    return render(request, "review/insights.html", context)


def _disagreements(
    request: HttpRequest, confusion: Confusion, filters: Filters
) -> list[tuple[str, str, str]]:
    """The cases where the validator and the verdict differ: which way, the case, its page."""
    listed = [*confusion.flagged_but_upheld, *confusion.unflagged_but_not_upheld]
    case_pks = dict(filters.cases().filter(case_id__in=listed).values_list("case_id", "pk"))
    return [
        (side, case_id, project_url(request, "case", case_pks[case_id]))
        for side, ids in (
            ("Flagged, but upheld", confusion.flagged_but_upheld),
            ("Passed, but not upheld", confusion.unflagged_but_not_upheld),
        )
        for case_id in ids
        if case_id in case_pks
    ]


def _narrowing_choices(filters: Filters) -> dict:
    """What the form offers to narrow the figures to."""
    return {
        "documents": [
            (document.pk, document.label)
            for document in Document.objects.filter(project_id=filters.project)
            .only("pk", "name", "revision")
            .order_by("name", "revision")
        ],
        "versions": Plan.objects.filter(project_id=filters.project)
        .order_by()
        .values_list("proposed_by", flat=True)
        .distinct(),
        "models": Case.objects.filter(project_id=filters.project)
        .exclude(model="")
        .order_by()
        .values_list("model", flat=True)
        .distinct(),
        "rules": _rule_choices(filters),
        "guideline_versions": guideline_versions(filters.project),
    }


def _charts(figures: Insights) -> dict:
    labels = [week.start.isoformat() for week in figures.weeks]
    return {
        "rules_chart": share_bars(
            "rules-chart",
            "Share of each rule's decided entries accepted as proposed, with 95 % intervals",
            [(f"{r.rule} ({r.proposer_version})", r.acceptance) for r in figures.rules],
            mark=figures.settings.min_lower_bound,
        ),
        "reasons_chart": share_bars(
            "reasons-chart",
            "Share of verdicts that agreed with the validator, per reason, with 95 % intervals",
            [(r.reason, r.agreed) for r in figures.validator.reasons],
        ),
        "weeks_chart": weekly_lines(
            "weeks-chart",
            "Week by week: rule entries accepted, verdicts agreeing with the validator, "
            "answers finalization changed",
            labels,
            [
                ("rules accepted", [w.rules.share for w in figures.weeks]),
                ("validator agreed", [w.validator.share for w in figures.weeks]),
                ("finalization changed", [w.finalization.share for w in figures.weeks]),
            ],
        ),
    }


def _rule_choices(filters: Filters) -> list[str]:
    """The rules to narrow to: those on entries, and the one asked for even if none has it
    (a link from elsewhere), so the form always shows what the figures are narrowed to."""
    rules = rule_names(filters.project)
    return rules if not filters.rule or filters.rule in rules else [*rules, filters.rule]


# Columns a page can hold side by side; more chosen are cut to the first, named in the page.
MAX_COMPARED = 6


@require_GET
def projects_insights(request: HttpRequest) -> HttpResponse:
    """/projects/insights/: the insights of several projects side by side (each rule's record
    and each validator reason's agreement, a column a project), for someone who may read the
    insights of each. `?project=<slug>` chooses them (repeated); none chosen, all of them.
    A project the person may not read is left out, as one that does not exist would be."""
    readable = [p for p in projects_worked_in(request.user) if can_read_insights(request.user, p)]
    chosen = set(request.GET.getlist("project"))
    compared = [p for p in readable if p.slug in chosen] if chosen else readable
    cut = compared[MAX_COMPARED:]
    compared = compared[:MAX_COMPARED]
    figures = [insights(Filters(project=project.pk)) for project in compared]
    return render(
        request,
        "review/projects_insights.html",
        {
            "readable": readable,
            "compared": compared,
            "cut": cut,
            "chosen": chosen,
            "rules": _side_by_side(
                figures, lambda f: f.rules, lambda r: (r.rule, r.proposer_version)
            ),
            "reasons": _side_by_side(figures, lambda f: f.validator.reasons, lambda r: r.reason),
        },
    )


def _side_by_side(figures: list[Insights], records, key) -> list[tuple]:
    """(key, [each project's record of it, or None]) for every key any project has, sorted."""
    by_project = [{key(record): record for record in records(each)} for each in figures]
    keys = sorted({k for each in by_project for k in each})
    return [(k, [each.get(k) for each in by_project]) for k in keys]
