"""Documents: the bytes as received, hashed, with the text `grounding.extract` read from them."""

from __future__ import annotations

import hashlib
from pathlib import PurePosixPath, PureWindowsPath

from django.conf import settings
from django.db import IntegrityError, transaction

from grounding.extract import (
    EXTRACTOR_ID,
    ExtractError,
    PageProgress,
    document_type,
    extract_text,
    extractor_version,
)
from review.adapters.errors import ImportRefused
from review.adapters.jsonl import bidi_problem
from review.models import Document
from review.models.projects import default_project_id

NAME_MAX_CHARS = Document._meta.get_field("name").max_length


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def document_name(name: str) -> str:
    """The file's own name: an upload or a command-line path may carry directories."""
    base = PureWindowsPath(PurePosixPath(name).name).name.strip()
    if not base:
        raise ImportRefused(f"{name!r} names no file")
    if len(base) > NAME_MAX_CHARS:
        raise ImportRefused(f"the file name is longer than {NAME_MAX_CHARS} characters")
    if problem := bidi_problem(base):
        raise ImportRefused(f"the file name {problem}")
    return base


def document_bytes(name: str, data) -> bytes:
    """The upload's bytes; ImportRefused for anything else, or for none at all."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ImportRefused(f"{name}: expected the file's bytes, not {type(data).__name__}")
    if not data:
        raise ImportRefused(f"{name} is empty: there is nothing to review")
    return bytes(data)


def read_text(name: str, data: bytes, on_page: PageProgress | None = None) -> tuple[str, str]:
    """The document's type and text, as `store_document` would keep them; `on_page` hears
    each page extracted. Raises ImportRefused for an empty file, a type grounding cannot read,
    bytes that do not decode, or a file with no text in it."""
    if not data:
        raise ImportRefused(f"{name} is empty: there is nothing to review")
    try:
        media_type = document_type(name)
        text = extract_text(name, data, on_page)
    except ExtractError as error:
        raise ImportRefused(str(error)) from error
    if not text.strip():
        raise ImportRefused(f"{name} holds no text (only whitespace was extracted from it)")
    most = settings.REVIEW_MAX_DOCUMENT_CHARS
    if len(text) > most:
        # A compressed PDF can hold far more text than its bytes suggest.
        raise ImportRefused(
            f"{name}: its text is {len(text):,} characters; at most {most:,} are taken "
            "(REVIEW_MAX_DOCUMENT_CHARS)"
        )
    nul = text.find("\x00")
    if nul >= 0:
        # PostgreSQL cannot store it in text; refused on every database alike.
        raise ImportRefused(f"{name}: its text holds the NUL character (\\u0000) at offset {nul}")
    return media_type, text


def stored_document(data: bytes, project_id: int) -> Document | None:
    return Document.objects.filter(project_id=project_id, sha256=sha256_of(data)).first()


def store_document(
    name: str,
    data: bytes,
    *,
    read: tuple[str, str] | None = None,
    project_id: int | None = None,
) -> Document:
    """The stored document of `project_id` (by default the project "Default") for these
    bytes: the one it already keeps (same SHA-256, whatever its name), or a new one with its
    extracted text (`read`, when `read_text` made it already). The same bytes in another
    project are another document of that project's own.

    Raises ImportRefused, storing nothing, for an empty file, a type grounding cannot read,
    bytes that do not decode, or a file with no text in it.
    """
    name = document_name(name)
    data = document_bytes(name, data)
    digest = sha256_of(data)
    project_id = default_project_id() if project_id is None else project_id
    existing = stored_document(data, project_id)
    if existing is not None:
        return existing
    media_type, text = read or read_text(name, data)
    try:
        # A savepoint, so a lost race with an identical upload leaves the caller's
        # transaction usable.
        with transaction.atomic():
            return Document.objects.create(
                project_id=project_id,
                name=name,
                media_type=media_type,
                data=data,
                sha256=digest,
                text=text,
                extractor_id=EXTRACTOR_ID,
                extractor_version=extractor_version(name),
            )
    except IntegrityError:
        return Document.objects.get(project_id=project_id, sha256=digest)
