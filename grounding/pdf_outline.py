"""A PDF's outline (its bookmarks): titles, how deep each sits, and the page it points at.

The proposer uses it as a source of headings when it matches the text; reading it never
fails a proposal, because a PDF without a readable outline is simply one without.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass

from pypdf import PdfReader

# Enough for any manual's bookmarks; a larger outline is read no further.
MAX_OUTLINE_ITEMS = 2000
MAX_OUTLINE_DEPTH = 6


@dataclass(frozen=True)
class OutlineItem:
    title: str
    level: int  # 1 for a top-level bookmark
    page: int | None  # 0-based page index, None when the bookmark points nowhere known


def read_outline(data: bytes) -> list[OutlineItem]:
    """The bookmarks in document order, at most MAX_OUTLINE_ITEMS; [] when there are none."""
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            return []
        items: list[OutlineItem] = []
        for item in _walk(reader, reader.outline, 1):
            items.append(item)
            if len(items) >= MAX_OUTLINE_ITEMS:
                break
        return items
    except Exception:
        # A damaged outline says nothing about the text; the text rules still apply.
        return []


def _walk(reader: PdfReader, outline: list, level: int) -> Iterator[OutlineItem]:
    for node in outline:
        if isinstance(node, list):
            if level < MAX_OUTLINE_DEPTH:
                yield from _walk(reader, node, level + 1)
            continue
        title = str(getattr(node, "title", "") or "")
        try:
            page = reader.get_destination_page_number(node)
        except Exception:
            page = None
        yield OutlineItem(title, level, page if page is not None and page >= 0 else None)
