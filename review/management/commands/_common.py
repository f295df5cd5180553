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

# Exit codes, as propose-segments uses them: 1 nothing to do, 2 refused or failed.
NOTHING_TO_DO = 1
REFUSED = 2


def refusal(error: Exception, returncode: int = REFUSED) -> CommandError:
    """A CommandError listing every problem of an ImportRefused, one per line."""
    problems = getattr(error, "problems", None) or [str(error)]
    if len(problems) == 1:
        return CommandError(f"refused: {problems[0]}", returncode=returncode)
    listed = "\n".join(f"  - {problem}" for problem in problems)
    return CommandError(f"refused ({len(problems)} problems):\n{listed}", returncode=returncode)


def read_bytes(path: str | Path, what: str) -> bytes:
    """The file's bytes, if it is no larger than the upload limit every door keeps."""
    limit = settings.REVIEW_MAX_UPLOAD_BYTES
    try:
        with open(path, "rb") as handle:
            # One byte past the limit is enough to know it is too large, without reading it all.
            data = handle.read(limit + 1)
    except OSError as error:
        raise _unreadable(path, what, error) from error
    if len(data) > limit:
        raise _too_large(path, what)
    return data


def file_lines(path: str | Path, what: str) -> Iterator[bytes]:
    """The file's lines, read one at a time as they are asked for, refused (CommandError)
    as soon as the file proves larger than the upload limit every door keeps."""
    limit = settings.REVIEW_MAX_UPLOAD_BYTES
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed when the lines run out or stop)
    except OSError as error:
        raise _unreadable(path, what, error) from error
    with handle:
        read = 0
        # A line is read at most one byte past what is left, so none is read whole if too long.
        while line := handle.readline(limit - read + 1):
            read += len(line)
            if read > limit:
                raise _too_large(path, what)
            yield line


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
