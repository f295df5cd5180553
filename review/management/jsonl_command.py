"""What import_cases and import_answers share: read a JSON-lines file, import it
whole or refuse it listing every bad line, or with --skip-invalid keep the good
lines and write the bad ones beside the file. A refusal exits 2, as every data
command's does."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from review.adapters.errors import ImportRefused
from review.adapters.jsonl import ImportResult, check_line_count, split_lines, write_rejects
from review.management.commands._common import (
    REFUSED,
    add_project_argument,
    file_lines,
    lines_up_to,
    project_named,
)
from review.models import Project


def default_rejects_path(path: Path) -> Path:
    """cases.jsonl -> cases.rejected.jsonl, next to the file."""
    return path.with_name(f"{path.stem}.rejected{path.suffix or '.jsonl'}")


def _rejects_target(file: Path, skip_invalid: bool, rejects_out: Path | None) -> Path:
    """Where --skip-invalid writes the bad lines; a CommandError for a choice that cannot be."""
    if rejects_out and not skip_invalid:
        raise CommandError("--rejects-out only makes sense with --skip-invalid", returncode=REFUSED)
    target = rejects_out or default_rejects_path(file)
    if skip_invalid and target.resolve() == file.resolve():
        raise CommandError(
            f"{target} is the file being imported; choose another --rejects-out",
            returncode=REFUSED,
        )
    return target


class JsonlImportCommand(BaseCommand):
    noun = "records"

    def import_file(
        self, data: Iterable[bytes], *, project: Project, skip_invalid: bool, max_lines: int
    ) -> ImportResult:
        raise NotImplementedError

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, help="a JSON-lines file, one object per line")
        add_project_argument(parser)
        parser.add_argument(
            "--skip-invalid",
            action="store_true",
            help="import the good lines and write the bad ones to a rejects file",
        )
        parser.add_argument(
            "--rejects-out",
            type=Path,
            help="where --skip-invalid writes the bad lines (default: FILE.rejected.jsonl)",
        )
        parser.add_argument(
            "--max-lines",
            type=_positive,
            metavar="N",
            help="take a file of up to N lines (default: REVIEW_MAX_IMPORT_LINES, "
            f"{settings.REVIEW_MAX_IMPORT_LINES:,})",
        )

    def handle(
        self,
        *args,
        file: Path,
        skip_invalid: bool,
        rejects_out: Path | None,
        max_lines: int | None,
        project: str,
        **options,
    ):
        into = project_named(project)
        target = _rejects_target(file, skip_invalid, rejects_out)
        max_lines = max_lines or settings.REVIEW_MAX_IMPORT_LINES
        try:
            # Counted first, so a file too long is refused before any line is parsed.
            check_line_count(
                lines_up_to(file, "file", max_lines),
                max_lines,
                "REVIEW_MAX_IMPORT_LINES, or --max-lines",
            )
            lines_read = file_lines(file, "file")
            try:
                # Read as it is imported, a line at a time: memory does not grow with the file.
                result = self.import_file(
                    split_lines(lines_read),
                    project=into,
                    skip_invalid=skip_invalid,
                    max_lines=max_lines,
                )
            finally:
                lines_read.close()
        except ImportRefused as exc:
            lines = "\n".join(f"  {problem}" for problem in exc.problems)
            raise CommandError(f"{file}: nothing imported.\n{lines}", returncode=REFUSED) from exc
        summary = (
            f"{file}: {result.created} {self.noun} created, {result.unchanged} unchanged, "
            f"{len(result.rejected)} rejected"
        )
        if result.rejected:
            write_rejects(result.rejected, target)
            for number, _raw, message in result.rejected:
                self.stderr.write(f"  line {number}: {message}")
            summary += f" (bad lines written to {target})"
        self.stdout.write(summary)


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise ValueError(value)
    return number
