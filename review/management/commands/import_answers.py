"""manage.py import_answers FILE.jsonl [--skip-invalid [--rejects-out F]]"""

from review.actions.documents import COMMAND_LINE
from review.actions.imports import import_answers
from review.management.jsonl_command import JsonlImportCommand


class Command(JsonlImportCommand):
    help = "Import LLM answers and their sources, one JSON object per line (see docs/formats.md)."
    noun = "answers"

    def import_file(self, data, *, project, skip_invalid, max_lines):
        return import_answers(
            data,
            actor=COMMAND_LINE,
            project=project,
            skip_invalid=skip_invalid,
            max_lines=max_lines,
        )
