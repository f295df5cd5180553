"""manage.py propose PATH: store a document and the proposer's plan for it."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand

from review.actions.documents import COMMAND_LINE, propose_document
from review.adapters.errors import ImportRefused
from review.adapters.plans import NothingProposed
from review.management.commands._common import (
    NOTHING_TO_DO,
    add_project_argument,
    project_named,
    read_bytes,
    refusal,
)


class Command(BaseCommand):
    help = (
        "Store the document at PATH (Markdown, text or PDF) and propose a segmentation plan "
        "for it. Exit 1 when there is nothing to propose (nothing is stored), 2 when the "
        "document is refused."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", metavar="PATH")
        add_project_argument(parser)
        parser.add_argument(
            "--max-segment-chars",
            type=int,
            default=0,
            metavar="N",
            help="split any proposed span longer than N characters (0, the default: never)",
        )
        parser.add_argument(
            "--path-prefix",
            default="",
            metavar="P",
            help="put every entry's path under P, e.g. the document's place in a corpus",
        )

    def handle(
        self, *args, path: str, max_segment_chars: int, path_prefix: str, project: str, **options
    ):
        data = read_bytes(path, "document")
        into = project_named(project)
        try:
            plan = propose_document(
                Path(path).name,
                data,
                actor=COMMAND_LINE,
                project=into,
                max_segment_chars=max_segment_chars,
                path_prefix=path_prefix,
            )
        except NothingProposed as nothing:
            raise refusal(nothing, returncode=NOTHING_TO_DO) from nothing
        except ImportRefused as refused:
            raise refusal(refused) from refused
        count = plan.entries.count()
        if plan.created:
            self.stdout.write(
                f"plan {plan.pk} for {plan.document.name} (document {plan.document.pk}): "
                f"{count} proposed entries"
            )
        else:
            self.stdout.write(
                f"plan {plan.pk} for {plan.document.name} was already proposed with these "
                f"options ({count} entries); nothing new stored"
            )
