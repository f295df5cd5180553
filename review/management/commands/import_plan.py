"""manage.py import_plan DOCUMENT PLAN_JSON: store a plan proposed elsewhere."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from review.actions.documents import COMMAND_LINE, store_document
from review.actions.imports import import_plan
from review.adapters.errors import ImportRefused
from review.management.commands._common import (
    REFUSED,
    add_project_argument,
    project_named,
    read_bytes,
    refusal,
)
from review.models import Document, Project


class Command(BaseCommand):
    help = (
        "Import the segmentation plan in PLAN_JSON for DOCUMENT. DOCUMENT is the path of the "
        "document's file (stored if it is new) or the id of a stored document. Refused, with "
        "the reason and nothing stored, when the plan's source_sha256 is not the document's, "
        "or the plan is not one grounding accepts."
    )

    def add_arguments(self, parser):
        parser.add_argument("document", metavar="DOCUMENT", help="a file path or a document id")
        parser.add_argument("plan_json", metavar="PLAN_JSON", help="the plan's JSON file")
        add_project_argument(parser)

    def handle(self, *args, document: str, plan_json: str, project: str, **options):
        into = project_named(project)
        payload = read_bytes(plan_json, "plan")
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError as error:
            raise CommandError(
                f"refused: {plan_json} is not UTF-8 text (byte {error.start} cannot be decoded)",
                returncode=REFUSED,
            ) from error
        try:
            with transaction.atomic():
                plan = import_plan(self._document(document, into), text, actor=COMMAND_LINE)
        except ImportRefused as refused:
            raise refusal(refused) from refused
        verb = "imported as" if plan.created else "was already imported as"
        self.stdout.write(
            f"{plan_json} {verb} plan {plan.pk} for {plan.document.name} "
            f"(document {plan.document.pk}): {plan.entries.count()} entries"
        )

    def _document(self, given: str, project: Project) -> Document:
        """The document of `project` the argument names: a file stored there, or an id of
        one of its documents."""
        if Path(given).is_file():
            return store_document(
                Path(given).name,
                read_bytes(given, "document"),
                actor=COMMAND_LINE,
                project=project,
            )
        if given.isdigit():
            found = Document.objects.filter(pk=int(given), project=project).first()
            if found is not None:
                return found
        raise CommandError(
            f"DOCUMENT {given!r} is neither a file nor the id of a stored document",
            returncode=REFUSED,
        )
