"""A long page sent while it is drawn: the browser parses what has come while the server draws
the rest, instead of waiting for the whole page and only then starting.

The page's template marks where each streamed list goes with `{{ streamed.<name> }}` after that
list's loop, whose body is a partial drawing one item (as `chunk`). Everything but those lists is
drawn before the answer starts, so the page's messages, session and CSRF cookie are settled while
the middleware can still see them; each list then follows item by item. Nothing drawn later may
query the database: the view has loaded all of it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

from django.http import HttpRequest, StreamingHttpResponse
from django.template.loader import get_template, render_to_string
from django.utils.safestring import mark_safe

# What is sent at once: enough items for one write, so the browser gets something to parse
# without a write (and a chunk of the HTTP answer) per item.
PIECE_CHARS = 32_768


def streamed_page(
    request: HttpRequest,
    template_name: str,
    context: dict,
    *,
    streamed: dict[str, str],
    status: int = 200,
) -> StreamingHttpResponse:
    """`template_name` with the lists named in `streamed` (context name -> the partial drawing
    one item) sent after the rest, as they are drawn."""
    # A comment no escaped text can contain, new for each answer.
    token = secrets.token_hex(8)
    marks = {name: f"<!--streamed {token} {name}-->" for name in streamed}
    outline = render_to_string(
        template_name,
        context
        | {name: [] for name in streamed}
        | {"streamed": {name: mark_safe(mark) for name, mark in marks.items()}},  # noqa: S308
        request,
    )
    # The outline cut where the lists go: the text before each list, and the text after all.
    between, rest = [], outline
    for name in streamed:
        before, found, rest = rest.partition(marks[name])
        if not found:
            raise ValueError(f"{template_name} does not mark where {name} goes")
        between.append(before)
    lists = [(get_template(partial), context[name]) for name, partial in streamed.items()]
    pieces = _pieces(request, context, between, lists, rest)
    return StreamingHttpResponse(pieces, status=status)


def _pieces(
    request: HttpRequest, context: dict, between: list[str], lists: list, rest: str
) -> Iterator[str]:
    for before, (template, items) in zip(between, lists, strict=True):
        yield before
        piece, size = [], 0
        for item in items:
            drawn = template.render(context | {"chunk": item}, request)
            piece.append(drawn)
            size += len(drawn)
            if size >= PIECE_CHARS:
                yield "".join(piece)
                piece, size = [], 0
        if piece:
            yield "".join(piece)
    yield rest
