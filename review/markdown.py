"""Markdown from a language model, made safe to show.

The text is untrusted: markdown-it-py renders it with raw HTML turned off (so a
`<script>` in an answer comes out as text), and nh3 then keeps only the tags and
attributes a rendered answer needs. Each `[n]` that names a reference becomes a
link to that reference's anchor, `#ref-n`.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

LINK_REL = "noopener noreferrer nofollow"

ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
    "ul", "ol", "li", "strong", "em", "del", "s", "code", "pre", "a",
    "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title", "class"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}

_CITATION = re.compile(r"\[(\d{1,6})\]")


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.core.ruler.after("text_join", "citation_links", _link_citations)
    return md


def _link_citations(state: StateCore) -> None:
    numbers = state.env.get("reference_numbers", ())
    if not numbers:
        return
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        inside_link = 0
        for token in block.children:
            # A citation inside a link's text would nest links; leave it as text.
            inside_link += token.type == "link_open"
            inside_link -= token.type == "link_close"
            if token.type == "text" and not inside_link and "[" in token.content:
                children.extend(_split_citations(token, numbers))
            else:
                children.append(token)
        block.children = children


def _split_citations(token: Token, numbers: Collection[int]) -> list[Token]:
    out: list[Token] = []
    text = token.content
    cursor = 0
    for match in _CITATION.finditer(text):
        number = int(match.group(1))
        if number not in numbers:
            continue
        if match.start() > cursor:
            out.append(_text(text[cursor : match.start()]))
        link = Token("link_open", "a", 1)
        link.attrs = {"href": f"#ref-{number}", "class": "cite"}
        out += [link, _text(match.group(0)), Token("link_close", "a", -1)]
        cursor = match.end()
    if not out:
        return [token]
    if cursor < len(text):
        out.append(_text(text[cursor:]))
    return out


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


_MARKDOWN = _parser()


def sanitize(html: str) -> str:
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel=LINK_REL,
    )


def render_markdown(text: str, reference_numbers: Collection[int] = ()) -> SafeString:
    """HTML for `text`, with each `[n]` in `reference_numbers` linked to `#ref-n`."""
    html = _MARKDOWN.render(text or "", {"reference_numbers": frozenset(reference_numbers)})
    return mark_safe(sanitize(html))  # noqa: S308 - nh3 has just cleaned it
