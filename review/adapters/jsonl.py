"""Reading JSON-lines imports: one JSON object per line, checked line by line.

The cases and answers imports share this. A file is imported whole or not at all:
every bad line is reported with its number and what is wrong with it, and nothing
is written unless `skip_invalid` asks to import the good lines and hand back the
bad ones. Lines are read, checked and written a batch at a time, inside the one
transaction, so memory does not grow with the file.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Model

from review.adapters.errors import ImportRefused
from review.models.projects import default_project_id

# A key that is not there at all, as opposed to one that is null.
MISSING = object()

_BOM = "\ufeff"
# Told each line's number as it is read, so a long import can show its progress.
LineProgress = Callable[[int], None]
# Identifiers end up in URLs and log rows; keep them to one visible token.
_IDENTIFIER = re.compile(r"\S+")


@dataclass
class ImportResult:
    """What an import did. `rejected` holds (line number, the line as received,
    what is wrong with it) for each line left out under `skip_invalid`."""

    created: int = 0
    unchanged: int = 0
    rejected: list[tuple[int, str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Line:
    """One non-blank line: its 1-based number, the text as received, and either the
    parsed JSON value or the problems found in it."""

    number: int
    raw: str
    value: Any = None
    problems: tuple[str, ...] = ()


class LineProblems(ValueError):
    """Raised by a line's parser or store step; each problem is reported on its own."""

    def __init__(self, problems: list[str] | str):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))


def read_lines(lines: Iterable[str | bytes] | str | bytes) -> Iterator[Line]:
    """Each non-blank line, decoded and parsed as JSON.

    Accepts a whole file (str or bytes) or an iterable of lines (an open file in
    text or binary mode). Bytes must be UTF-8; a bad byte is reported with its
    offset in the line and in the file. An undecodable line keeps its bytes in
    `raw` (as surrogate escapes) so a rejects file can write them back unchanged.
    """
    if isinstance(lines, bytes):
        lines = split_lines(io.BytesIO(lines))
    elif isinstance(lines, str):
        # Not str.splitlines: it also breaks at U+2028 and friends, which may sit
        # unescaped inside a JSON string. A StringIO breaks at "\n" only.
        lines = io.StringIO(lines)
    offset = 0
    for number, line in enumerate(lines, start=1):
        if isinstance(line, bytes):
            text, problem = _decode(line, offset)
            offset += len(line)
        else:
            text, problem = line, None
        if number == 1:
            text = text.removeprefix(_BOM)
        raw = text.rstrip("\r\n")
        if not raw.strip():
            continue
        if problem:
            yield Line(number, raw, problems=(problem,))
            continue
        yield _parse(number, raw)


def count_lines(data: bytes) -> int:
    """How many lines `read_lines` numbers in `data` (blank ones too), counted without
    splitting it: a line ends at "\n", "\r\n" or a lone "\r"."""
    ends = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")
    return ends + (1 if data and not data.endswith((b"\n", b"\r")) else 0)


def too_many_lines(max_lines: int, raised_by: str = "REVIEW_MAX_IMPORT_LINES") -> ImportRefused:
    return ImportRefused(
        f"the file has more than {max_lines:,} lines; at most that many are taken "
        f"in one import ({raised_by}): split it"
    )


def check_line_count(
    count: int, max_lines: int | None = None, raised_by: str = "REVIEW_MAX_IMPORT_LINES"
) -> None:
    """Refuse (ImportRefused) an import of more lines than it may hold, before any is read."""
    max_lines = settings.REVIEW_MAX_IMPORT_LINES if max_lines is None else max_lines
    if count > max_lines:
        raise too_many_lines(max_lines, raised_by)


def line_longer_than(data: bytes, limit: int) -> tuple[int, int] | None:
    """The number and size of the first line of `data` longer than `limit` bytes, if any:
    every door holds one line of an import to what one upload may hold."""
    if len(data) <= limit:
        return None
    number = 0
    for chunk in io.BytesIO(data):
        for line in chunk.splitlines(keepends=True):
            number += 1
            if len(line) > limit:
                return number, len(line)
    return None


def split_lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """Lines of bytes (as a binary file gives them, at each "\n") broken again where
    `bytes.splitlines` breaks them: at "\n", "\r\n" or a lone "\r"."""
    for chunk in chunks:
        yield from chunk.splitlines(keepends=True)


def _parse(number: int, raw: str) -> Line:
    try:
        value = json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        return Line(number, raw, problems=(f"not valid JSON: {exc.msg} at column {exc.colno}",))
    except ValueError as exc:
        return Line(number, raw, problems=(f"not valid JSON: {exc}",))
    except RecursionError:
        return Line(number, raw, problems=(nested_too_deeply(),))
    problem = depth_problem(value) or _string_problem(value)
    if problem:
        return Line(number, raw, problems=(problem,))
    return Line(number, raw, value=value)


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    number = float(text)
    if math.isinf(number):
        raise ValueError(f"{text} is too large a number")
    return number


# Embeddings, overrides and isolates: in a name or a title they make it read differently from
# what it is ("invoice\u202Efdp.md" shows as "invoicepdf.md"). Refused where a person reads
# a string as a label; free text keeps them (right-to-left writing may need them).
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def bidi_problem(value: str) -> str | None:
    for index, char in enumerate(value):
        if char in BIDI_CONTROLS:
            return (
                f"holds the bidirectional control {unicodedata.name(char)} (U+{ord(char):04X}) "
                f"at character {index}, which makes it display differently from what it is"
            )
    return None


def nested_too_deeply() -> str:
    return (
        f"nested too deeply (at most {settings.REVIEW_MAX_JSON_DEPTH} levels of lists and "
        "objects are taken)"
    )


def depth_problem(value: Any) -> str | None:
    """Lists and objects nested deeper than REVIEW_MAX_JSON_DEPTH: every reader after the
    parser (the checks, the database's JSON) would recurse that deep. Counted without
    recursion, so the count itself cannot overflow."""
    limit = settings.REVIEW_MAX_JSON_DEPTH
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if not isinstance(item, dict | list):
            continue
        if depth > limit:
            return nested_too_deeply()
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return None


def _string_problem(value: Any) -> str | None:
    """What no database here can store: NUL (PostgreSQL refuses it in text and jsonb,
    so it is refused on every database alike) and unpaired surrogates ("\\ud800")."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return "a string contains the NUL character (\\u0000)"
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "a string contains an unpaired surrogate escape (such as \\ud800)"
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
    return None


def _decode(line: bytes, file_offset: int) -> tuple[str, str | None]:
    try:
        return line.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        bad = line[exc.start : exc.start + 1].hex()
        return line.decode("utf-8", "surrogateescape"), (
            f"not UTF-8: byte 0x{bad} at byte {exc.start} of the line "
            f"(byte offset {file_offset + exc.start} in the file)"
        )


def content_sha256(value: Any) -> str:
    """The SHA-256 of a record's canonical JSON: key order and spacing do not count."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class _BadLines(dict):
    """Bad lines by number, with their problems. The line as received is kept only when it
    is handed back (under skip_invalid); a refused file needs only the messages."""

    def __init__(self, *, keep_raw: bool) -> None:
        super().__init__()
        self.keep_raw = keep_raw

    def add(self, line: Line, problems: list[str]) -> None:
        kept = replace(line, value=None) if self.keep_raw else replace(line, raw="", value=None)
        self[line.number] = (kept, problems)


@dataclass
class _Pending:
    """Good lines read but not yet written: one batch."""

    items: list[tuple[Line, Any, str]] = field(default_factory=list)
    chars: int = 0

    def add(self, line: Line, record: Any, sha256: str) -> None:
        self.items.append((line, record, sha256))
        self.chars += len(line.raw)

    def full(self) -> bool:
        return len(self.items) >= BATCH_LINES or self.chars >= BATCH_CHARS


# A batch is written when it holds this many lines or characters, whichever comes first, so
# memory stays flat however long the file is.
BATCH_LINES = 500
BATCH_CHARS = 4_000_000


def rows_with_children(child_model: type[Model], child_field: str) -> Callable[[list], None]:
    """A `write` for import_lines whose `prepare` makes a row and its child rows: one INSERT
    for the batch's rows, then one for all their children, each set to its row by
    `child_field` (the children's foreign key)."""

    def write(batch: list[tuple[Model, list[Model]]]) -> None:
        rows = type(batch[0][0]).objects.bulk_create([row for row, _ in batch])
        for row, (_, children) in zip(rows, batch, strict=True):
            for child in children:
                setattr(child, child_field, row)
        child_model.objects.bulk_create([child for _, children in batch for child in children])

    return write


def _problems(ordered) -> list[str]:
    return [f"line {line.number}: {problem}" for line, problems in ordered for problem in problems]


def import_lines(
    lines: Iterable[str | bytes] | str | bytes,
    *,
    parse: Callable[[Any], Any],
    identify: Callable[[Any], str],
    model: type[Model],
    prepare: Callable[[Any, str], Any],
    write: Callable[[list[Any]], None],
    skip_invalid: bool = False,
    kind: str,
    on_line: LineProgress | None = None,
    max_lines: int | None = None,
    project_id: int | None = None,
) -> ImportResult:
    """Read, check and store the lines a batch at a time, all in one transaction.

    `parse(value)` checks one JSON value and returns a record, raising LineProblems;
    `identify(record)` names it (duplicates within the file are bad lines). A record whose
    `kind` field names a `model` row stored with the same content (`source_sha256`) is left
    unchanged; with other content it is a bad line; identifiers are the project's own (by
    default the project "Default"). `prepare(record, sha256, project_id)` makes the rows
    of a new record (raising LineProblems for one that cannot be stored), and `write(rows)`
    bulk-creates a batch of them.
    Without `skip_invalid`, any bad line refuses the whole file with ImportRefused, and
    nothing is written. `on_line(number)` hears each line as it is read. More lines than
    `max_lines` (by default REVIEW_MAX_IMPORT_LINES) refuse the file; a door that can count
    them first (`check_line_count`) refuses it before anything is read.
    """
    bad = _BadLines(keep_raw=skip_invalid)
    max_lines = settings.REVIEW_MAX_IMPORT_LINES if max_lines is None else max_lines
    result = ImportResult()
    checked = _CheckedLines(parse, identify, kind, bad)
    project_id = default_project_id() if project_id is None else project_id
    prepare = partial(prepare, project_id=project_id)
    store = _BatchStore(model, kind, identify, prepare, write, result, bad, project_id)
    with transaction.atomic():
        for batch in checked.batches(read_lines(lines), max_lines, on_line):
            store.flush(batch, writing=skip_invalid or not bad)
        if not checked.seen_any:
            raise ImportRefused("the file has no lines")
        ordered = [bad[number] for number in sorted(bad)]
        if ordered and not skip_invalid:
            raise ImportRefused(_problems(ordered))
    result.rejected = [(line.number, line.raw, "; ".join(problems)) for line, problems in ordered]
    return result


class _CheckedLines:
    """Checks each line alone and against the lines before it (an identifier twice in one
    file is a bad line), noting each bad one in `bad`."""

    def __init__(self, parse, identify, kind, bad) -> None:
        self.parse, self.identify, self.kind, self.bad = parse, identify, kind, bad
        # The one thing kept per line of the file: where each identifier first stood.
        self.first_seen: dict[str, int] = {}
        self.seen_any = False

    def record(self, line: Line) -> Any | None:
        """The line's record (`parse` makes none that is None), or None for a bad line."""
        self.seen_any = True
        if line.problems:
            self.bad.add(line, list(line.problems))
            return None
        try:
            record = self.parse(line.value)
        except LineProblems as exc:
            self.bad.add(line, exc.problems)
            return None
        identifier = self.identify(record)
        if identifier in self.first_seen:
            first = self.first_seen[identifier]
            self.bad.add(line, [f"{self.kind} {identifier!r} is already on line {first}"])
            return None
        self.first_seen[identifier] = line.number
        return record

    def batches(
        self, lines: Iterable[Line], max_lines: int, on_line: LineProgress | None
    ) -> Iterator[_Pending]:
        """The good lines' records, a batch at a time: each full one, then the rest."""
        pending = _Pending()
        for line in lines:
            if line.number > max_lines:
                raise too_many_lines(max_lines)
            if on_line is not None:
                on_line(line.number)
            record = self.record(line)
            if record is None:
                continue
            # The hash is of the value as parsed; the value itself is not kept past here.
            pending.add(replace(line, value=None), record, content_sha256(line.value))
            if pending.full():
                yield pending
                pending = _Pending()
        yield pending


class _BatchStore:
    """Stores one batch of good lines: one query for the rows already there, one bulk write
    for the new ones."""

    def __init__(self, model, kind, identify, prepare, write, result, bad, project_id) -> None:
        self.model, self.kind, self.identify = model, kind, identify
        self.prepare, self.write = prepare, write
        self.result, self.bad, self.project_id = result, bad, project_id

    def flush(self, pending: _Pending, *, writing: bool) -> None:
        """Check the batch against the stored rows and, while `writing` (no line of a file
        imported whole has failed yet), write its new records."""
        if not pending.items:
            return
        identifiers = [self.identify(record) for _, record, _ in pending.items]
        stored = dict(
            self.model.objects.filter(
                project_id=self.project_id, **{f"{self.kind}__in": identifiers}
            ).values_list(self.kind, "source_sha256")
        )
        new = []
        for (line, record, sha256), identifier in zip(pending.items, identifiers, strict=True):
            if identifier in stored:
                if stored[identifier] == sha256:
                    self.result.unchanged += 1
                else:
                    noun = self.model._meta.verbose_name
                    self.bad.add(
                        line,
                        [
                            f"{self.kind} {identifier!r} was already imported with different "
                            f"content; give the changed {noun} a new {self.kind}"
                        ],
                    )
                continue
            try:
                new.append((line, identifier, self.prepare(record, sha256)))
            except LineProblems as exc:
                self.bad.add(line, exc.problems)
        if writing and new:
            self._write(new)

    def _write(self, new: list[tuple[Line, str, Any]]) -> None:
        try:
            # A savepoint, so a batch refused by the database leaves nothing behind.
            with transaction.atomic():
                self.write([rows for _, _, rows in new])
        except IntegrityError:
            # Someone else stored one of these ids since the batch was checked: find which,
            # a line at a time.
            for line, identifier, rows in new:
                try:
                    with transaction.atomic():
                        self.write([rows])
                except IntegrityError:
                    self.bad.add(
                        line,
                        [f"{self.kind} {identifier!r} was imported by someone else meanwhile"],
                    )
                    continue
                self.result.created += 1
            return
        self.result.created += len(new)


def write_rejects(rejected: list[tuple[int, str, str]], path) -> None:
    """Write the rejected lines, exactly as received, one per line, so they can be
    fixed and imported again."""
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as out:
        for _number, raw, _message in rejected:
            out.write(raw + "\n")


# --- Checking one JSON object -------------------------------------------------------


class Checker:
    """Collects the problems of one line, each named by its path
    ("evidence[1].status: 'done' is not one of success, failure, ...")."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def fail(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}" if path else message)

    def done(self) -> None:
        if self.problems:
            raise LineProblems(self.problems)

    def object(
        self, value: Any, path: str, *, required: tuple[str, ...], optional: tuple[str, ...] = ()
    ) -> bool:
        """Whether `value` is an object with every required key and no unknown ones."""
        if not isinstance(value, dict):
            self.fail(path, f"must be an object, not {_json_type(value)}")
            return False
        prefix = f"{path}." if path else ""
        for key in required:
            if key not in value:
                self.fail(f"{prefix}{key}", "is required")
        known = set(required) | set(optional)
        for key in value:
            if key not in known:
                self.fail(
                    f"{prefix}{key}",
                    f"unknown key (expected {', '.join(sorted(known))})",
                )
        return True

    def string(
        self,
        value: Any,
        path: str,
        *,
        max_length: int | None = None,
        non_empty: bool = False,
        identifier: bool = False,
    ) -> str | None:
        if not isinstance(value, str):
            self.fail(path, f"must be a string, not {_json_type(value)}")
            return None
        if non_empty and not value.strip():
            self.fail(path, "must not be empty")
            return None
        if identifier and not _IDENTIFIER.fullmatch(value):
            self.fail(path, f"{value!r} must be one word, without spaces")
            return None
        if identifier and (problem := bidi_problem(value)):
            self.fail(path, problem)
            return None
        if max_length is not None and len(value) > max_length:
            self.fail(path, f"is {len(value)} characters long; the most allowed is {max_length}")
            return None
        return value

    def integer(
        self, value: Any, path: str, *, minimum: int | None = None, maximum: int | None = None
    ) -> int | None:
        # JSON true/false arrive as bool, which Python counts as int.
        if not isinstance(value, int) or isinstance(value, bool):
            self.fail(path, f"must be an integer, not {_json_type(value)}")
            return None
        if minimum is not None and value < minimum:
            self.fail(path, f"{value} is less than {minimum}")
            return None
        if maximum is not None and value > maximum:
            self.fail(path, f"{value} is more than {maximum}")
            return None
        return value

    def choice(self, value: Any, path: str, choices: tuple[str, ...]) -> str | None:
        if not isinstance(value, str) or value not in choices:
            shown = repr(value) if isinstance(value, str) else _json_type(value)
            self.fail(path, f"{shown} is not one of {', '.join(choices)}")
            return None
        return value

    def list(self, value: Any, path: str) -> list | None:
        if not isinstance(value, list):
            self.fail(path, f"must be a list, not {_json_type(value)}")
            return None
        return value


def _json_type(value: Any) -> str:
    """The JSON name of a value's type, which is what the person wrote."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
