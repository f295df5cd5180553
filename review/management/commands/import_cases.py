"""manage.py import_cases FILE.jsonl [--skip-invalid [--rejects-out F]]"""

from review.actions.documents import COMMAND_LINE
from review.actions.imports import import_cases
from review.management.jsonl_command import JsonlImportCommand


class Command(JsonlImportCommand):
    help = "Import moderation cases, one JSON object per line (see docs/formats.md)."
    noun = "cases"

    def import_file(self, data, *, project, skip_invalid, max_lines):
        return import_cases(
            data,
            actor=COMMAND_LINE,
            project=project,
            skip_invalid=skip_invalid,
            max_lines=max_lines,
        )
