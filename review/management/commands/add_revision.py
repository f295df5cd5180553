"""manage.py add_revision DOCUMENT_ID FILE --by USERNAME: store a document's next revision and
carry its latest plan onto it."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from review.actions.revisions import add_revision
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
        "Store FILE as the next revision of the stored document DOCUMENT_ID (which must be "
        "its latest revision) and carry that document's latest plan onto it: entries placed "
        "exact or moved keep their decision (logged as entry.carry by USERNAME), the rest come "
        "back proposed. Refused, with the reason and nothing stored, for bytes already stored."
    )

    def add_arguments(self, parser):
        parser.add_argument("document", metavar="DOCUMENT_ID", help="the stored document's id")
        parser.add_argument("file", metavar="FILE", help="the revised document's file")
        add_project_argument(parser)
        parser.add_argument(
            "--by", required=True, metavar="USERNAME", help="who uploads (named in the log)"
        )

    def handle(self, *args, document: str, file: str, by: str, project: str, **options):
        previous = self._document(document, project_named(project))
        uploader = get_user_model().objects.filter(username=by).first()
        if uploader is None:
            raise CommandError(f"--by {by!r}: no such user", returncode=REFUSED)
        data = read_bytes(file, "document")
        try:
            revised = add_revision(previous, Path(file).name, data, actor=uploader)
        except ImportRefused as refused:
            raise refusal(refused) from refused
        revision, plan = revised.revision, revised.plan
        self.stdout.write(
            f"{file} stored as revision {revision.revision} of {previous.name} "
            f"(document {revision.pk})"
        )
        if plan is None:
            self.stdout.write(
                "no plan carried: the revision before has none, or none of its text is left"
            )
            return
        counts = plan.counts
        self.stdout.write(
            f"plan {plan.carried_from_id} carried as plan {plan.pk}: {len(revised.carried)} "
            f"decisions kept, {counts.need_you} of {counts.total} entries need you, "
            f"{len(plan.options.get('gone', []))} gone"
        )

    def _document(self, given: str, project: Project) -> Document:
        documents = Document.objects.filter(project=project)
        found = documents.filter(pk=int(given)).first() if given.isdigit() else None
        if found is None:
            raise CommandError(
                f"DOCUMENT_ID {given!r} is not the id of a stored document", returncode=REFUSED
            )
        return found
