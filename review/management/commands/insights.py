"""manage.py insights: the /insights/ page's figures as JSON or CSV."""

from __future__ import annotations

import csv
import io
from dataclasses import replace

from django.core.management.base import BaseCommand

from review.insights import Filters, Insights, insights
from review.management.commands._common import add_project_argument, project_named, write_figures

CSV_COLUMNS = ("section", "name", "version", "successes", "n", "share", "low", "high", "detail")


class Command(BaseCommand):
    help = (
        "Print what the decisions teach (the proposer's rules, the validator's reasons, "
        "finalization, week by week) as JSON or CSV, as /insights/ and GET /api/insights do."
    )

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=("json", "csv"), default="json")
        parser.add_argument("--document", type=int, help="only this document's plans")
        parser.add_argument(
            "--proposer",
            dest="proposer_version",
            default="",
            help="only plans of this proposer version",
        )
        parser.add_argument("--model", default="", help="only cases and answers of this model")
        parser.add_argument("--rule", default="", help="only this proposer rule")
        parser.add_argument("--weeks", type=int, default=12)
        parser.add_argument("--out", metavar="F", help="write to F (atomically), not stdout")
        add_project_argument(parser)

    def handle(self, *args, **options):
        of = project_named(options["project"])
        query = {
            "version": options["proposer_version"],
            "model": options["model"],
            "rule": options["rule"],
            "weeks": str(options["weeks"]),
        }
        if options["document"] is not None:
            query["document"] = str(options["document"])
        figures = insights(replace(Filters.from_query(query), project=of.pk))
        write_figures(self, figures, as_csv, format=options["format"], out=options["out"])


def as_csv(figures: Insights) -> str:
    """One row per figure: each share with its successes, n and Wilson interval."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)

    def row(section, name, version, share, detail=""):
        writer.writerow(
            (
                section,
                name,
                version,
                share.successes,
                share.n,
                share.share,
                share.low,
                share.high,
                detail,
            )
        )

    for record in figures.rules:
        why = "validated" if record.validated else record.why_not
        why += f" ({record.not_counted})" if record.not_counted else ""
        row("rule", record.rule, record.proposer_version, record.acceptance, why)
    for record in figures.validator.reasons:
        row("reason", record.reason, "", record.agreed)
    row("finalization", "changed", "", figures.finalization.changed)
    for kind in figures.finalization.kinds:
        detail = f"published {kind.published}, withdrawn {kind.withdrawn}"
        row("finalization", kind.kind, "", kind.share, detail)
    for week in figures.weeks:
        start = week.start.isoformat()
        row("week", "rules_accepted", start, week.rules)
        row("week", "validator_agreed", start, week.validator)
        row("week", "finalization_changed", start, week.finalization)
    return out.getvalue()
