"""manage.py export_decisions: the decision log as JSONL, oldest first.

It reads the log through `Decision.objects.blind_to` for no one in particular: unlike the
operator's other reads, which are staff's (`OPERATOR`), the file may reach anyone, so every
review still under way is withheld from it, even those staff could read."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from review.adapters.decision_log import decision_log_lines, parse_since
from review.adapters.errors import ImportRefused
from review.management.commands._common import (
    add_project_argument,
    project_named,
    refusal,
    write_atomically,
)


class Command(BaseCommand):
    help = (
        "Write the decision log as JSON Lines, one decision per line in the order they were "
        "made: id, at, actor, action, object_type, object_id, before, after, note, undoes. "
        "A row of a double review still under way says only that a decision was made, on "
        'what and when (its action "withheld"), until the item is settled: the log is as '
        "blind as the pages. The log of one project (--project)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--since",
            metavar="DATE",
            help="only decisions made at or after DATE (2026-12-01, or an ISO date and time; "
            "UTC unless it says otherwise)",
        )
        parser.add_argument("--out", metavar="F", help="write to F (atomically), not stdout")
        add_project_argument(parser)

    def handle(self, *args, since: str | None, out: str | None, project: str, **options):
        of = project_named(project)
        try:
            moment = parse_since(since) if since else None
        except ImportRefused as refused:
            raise refusal(refused) from refused
        lines = decision_log_lines(moment, project=of)
        if out:
            write_atomically(out, lines)
        else:
            for line in lines:
                self.stdout.write(line, ending="")
