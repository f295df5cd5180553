"""manage.py agreement: the reviewers' agreement under double review as JSON or CSV."""

from __future__ import annotations

import csv
import io

from django.core.management.base import BaseCommand

from grounding.agreement import Agreement
from review.agreement import PeopleAgreement, agreement
from review.management.commands._common import add_project_argument, project_named, write_figures

CSV_COLUMNS = ("queue", "figure", "name", "value", "low", "high", "n_items", "detail")


class Command(BaseCommand):
    help = (
        "Print how far reviewers agree under double review (κ, α, per pair, per reviewer "
        "against the outcome, per validator reason, curation) as JSON or CSV, as "
        "GET /api/agreement does."
    )

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=("json", "csv"), default="json")
        parser.add_argument("--out", metavar="F", help="write to F (atomically), not stdout")
        add_project_argument(parser)

    def handle(self, *args, **options):
        figures = agreement(project_named(options["project"]).pk)
        write_figures(self, figures, as_csv, format=options["format"], out=options["out"])


def as_csv(figures: PeopleAgreement) -> str:
    """One row per figure, with its interval and how many items it counts."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)

    def row(queue: str, figure: str, name: str, value: Agreement) -> None:
        detail = value.reason_if_undefined or value.note
        writer.writerow(
            (queue, figure, name, value.value, value.low, value.high, value.n_items, detail)
        )

    for queue in figures.queues:
        name = queue.queue
        row(name, "kappa", "first against second reviewer", queue.kappa)
        row(name, "alpha", "all reviewers", queue.people.alpha)
        for pair in queue.people.pairs:
            row(name, "pair_kappa", " & ".join((pair.reviewer_a, pair.reviewer_b)), pair.kappa)
        for pair in queue.people.against_final:
            row(name, "against_outcome_kappa", pair.reviewer_a, pair.kappa)
        for group in (*queue.by_reason, *queue.by_rule):
            row(name, "group_kappa", group.name, group.kappa)
        sent = queue.curation.sent
        outcomes = "; ".join(f"{k} {v}" for k, v in queue.curation.outcomes.items())
        writer.writerow(
            (name, "curation_share", "", sent.share, sent.low, sent.high, sent.n, outcomes)
        )
    return out.getvalue()
