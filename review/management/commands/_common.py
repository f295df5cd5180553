"""What the data commands share: reading input, reporting refusals, writing output whole.

(A leading underscore keeps Django from listing this module as a command.)
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError

from review.adapters.jsonl import count_lines
from review.models import Project
from review.models.projects import DEFAULT_SLUG, default_project_id

# Who a command reads as: the operator, who holds the database and is no one user. The models'
# rules (`Plan.visible_to` and its queryset twin) read None as staff would.
OPERATOR = None

# Exit codes, as propose-segments uses them: 1 nothing to do, 2 refused or failed.
NOTHING_TO_DO = 1
REFUSED = 2


def add_project_argument(parser) -> None:
    parser.add_argument(
        "--project",
        default=DEFAULT_SLUG,
        metavar="SLUG",
        help="the project to work in, by its slug (default: %(default)s)",
    )


def project_named(slug: str) -> Project:
    """The project `--project SLUG` names; a CommandError naming the known slugs if none
    is called so. The default project is made if it is missing, as every door makes it."""
    if slug == DEFAULT_SLUG:
        return Project.objects.get(pk=default_project_id())
    found = Project.objects.filter(slug=slug).first()
    if found is None:
        known = ", ".join(Project.objects.order_by("slug").values_list("slug", flat=True))
        raise CommandError(
            f"--project {slug!r}: no project has that slug (known: {known})", returncode=REFUSED
        )
    return found


def refusal(error: Exception, returncode: int = REFUSED) -> CommandError:
    """A CommandError listing every problem of an ImportRefused, one per line."""
    problems = getattr(error, "problems", None) or [str(error)]
    if len(problems) == 1:
        return CommandError(f"refused: {problems[0]}", returncode=returncode)
    listed = "\n".join(f"  - {problem}" for problem in problems)
    return CommandError(f"refused ({len(problems)} problems):\n{listed}", returncode=returncode)


def read_bytes(path: str | Path, what: str) -> bytes:
    """The file's bytes, if it is no larger than the upload limit: a document or a plan is
    held, parsed and stored whole, as an upload is. Its size is asked first, so a larger file
    is refused before any of it is read."""
    limit = settings.REVIEW_MAX_UPLOAD_BYTES
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size > limit:
                raise _too_large(path, what)
            # One byte past the limit tells a file that grew since, or a pipe, without more.
            data = handle.read(limit + 1)
    except OSError as error:
        raise _unreadable(path, what, error) from error
    if len(data) > limit:
        raise _too_large(path, what)
    return data


def file_lines(path: str | Path, what: str) -> Iterator[bytes]:
    """The file's lines, read one at a time as they are asked for, whatever the file's size
    (an import is bounded by its lines, REVIEW_MAX_IMPORT_LINES). One line is held whole, so
    a line longer than the upload limit is refused (CommandError) without being read whole."""
    limit = settings.REVIEW_MAX_UPLOAD_BYTES
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed when the lines run out or stop)
    except OSError as error:
        raise _unreadable(path, what, error) from error
    with handle:
        number = 0
        while line := handle.readline(limit + 1):
            number += count_lines(line)
            if len(line) > limit:
                raise CommandError(
                    f"refused: line {number} of {what} {path} is larger than {limit:,} bytes, "
                    "the most one line takes (REVIEW_MAX_UPLOAD_BYTES)",
                    returncode=REFUSED,
                )
            yield line


def lines_up_to(path: str | Path, what: str, most: int) -> int:
    """How many lines the file has, counted without parsing any, up to one past `most`:
    enough to refuse a file too long before the work starts."""
    count = 0
    lines = file_lines(path, what)
    try:
        for line in lines:
            count += count_lines(line)
            if count > most:
                break
    finally:
        lines.close()
    return count


def _unreadable(path: str | Path, what: str, error: OSError) -> CommandError:
    return CommandError(f"cannot read {what} {path}: {error.strerror or error}", returncode=REFUSED)


def _too_large(path: str | Path, what: str) -> CommandError:
    return CommandError(
        f"refused: {what} {path} is larger than {settings.REVIEW_MAX_UPLOAD_BYTES:,} bytes, "
        "the most taken (REVIEW_MAX_UPLOAD_BYTES)",
        returncode=REFUSED,
    )


def write_atomically(path: str | Path, chunks: Iterable[str]) -> None:
    """Write to a temporary file beside `path`, then rename it over `path`: a reader sees
    the old file or the whole new one, never half of it."""
    path = Path(path)
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
        )
    except OSError as error:
        raise CommandError(
            f"cannot write {path}: {error.strerror or error}", returncode=REFUSED
        ) from error
    try:
        with open(descriptor, "w", encoding="utf-8", newline="") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_figures(command, figures, as_csv, *, format: str, out: str | None) -> None:
    """Figures (with `to_dict`) as JSON or as `as_csv(figures)`, to the file `out`
    (atomically) or to the command's standard output."""
    if format == "json":
        text = json.dumps(figures.to_dict(), indent=2, ensure_ascii=False) + "\n"
    else:
        text = as_csv(figures)
    if out:
        write_atomically(out, [text])
    else:
        command.stdout.write(text, ending="")
