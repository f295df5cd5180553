"""Markdown from a language model, made safe to show.

The text is untrusted: markdown-it-py renders it with raw HTML turned off (so a
`<script>` in an answer comes out as text), and nh3 then keeps only the tags and
attributes a rendered answer needs. Each `[n]` that names a reference becomes a
link to that reference's anchor, `#ref-n`; one that finalization added (not the model) is
drawn apart, labelled as added or, where it stands in for phantom citations, as
"citation replaced, unverified", so nothing shown claims more support than the model gave.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from grounding.citations import ADDED_LABEL, REPLACED_LABEL, AddedCitation

LINK_REL = "noopener noreferrer nofollow"

ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
    "ul", "ol", "li", "strong", "em", "del", "s", "code", "pre", "a",
    "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title", "class", "aria-label"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}

_CITATION = re.compile(r"\[(\d{1,6})\]|(?P<mark>[\ue000\ue001])(?P<added>\d{1,6})\ue002")
# Where finalization added a citation, the body handed to markdown-it carries it between
# private-use characters (added: U+E000, replaced: U+E001 … U+E002), which survive parsing
# as text; any the model wrote itself are removed first.
_ADDED, _REPLACED, _END = "\ue000", "\ue001", "\ue002"
_MARKERS = re.compile("[\ue000-\ue002]")
_LEFT_MARK = re.compile("[\ue000\ue001](\\d{1,6})\ue002")


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.core.ruler.after("text_join", "citation_links", _link_citations)
    return md


def _link_citations(state: StateCore) -> None:
    numbers = state.env.get("reference_numbers", ())
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        inside_link = 0
        for token in block.children:
            # A citation inside a link's text would nest links; leave it as text.
            inside_link += token.type == "link_open"
            inside_link -= token.type == "link_close"
            if token.type == "text" and ("[" in token.content or _END in token.content):
                children.extend(_split_citations(token, () if inside_link else numbers))
            else:
                children.append(token)
        block.children = children


def _split_citations(token: Token, numbers: Collection[int]) -> list[Token]:
    out: list[Token] = []
    text = token.content
    cursor = 0
    for match in _CITATION.finditer(text):
        added = match.group("mark")
        number = int(match.group("added") if added else match.group(1))
        if number not in numbers and not added:
            continue
        if match.start() > cursor:
            out.append(_text(text[cursor : match.start()]))
        if number not in numbers:  # an added citation where no link may stand
            out.append(_text(f"[{number}]"))
            cursor = match.end()
            continue
        link = Token("link_open", "a", 1)
        link.attrs = {"href": f"#ref-{number}", "class": "cite"}
        if added:
            replaced = added == _REPLACED
            label = REPLACED_LABEL if replaced else ADDED_LABEL
            link.attrs = {
                "href": f"#ref-{number}",
                "class": "cite cite-replaced" if replaced else "cite cite-added",
                "title": label,
                "aria-label": f"[{number}], {label}",
            }
        out += [link, _text(f"[{number}]"), Token("link_close", "a", -1)]
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


def render_markdown(
    text: str,
    reference_numbers: Collection[int] = (),
    added: Sequence[AddedCitation] = (),
) -> SafeString:
    """HTML for `text`, with each `[n]` in `reference_numbers` linked to `#ref-n`, and the
    citations finalization `added` (offsets into `text`) marked as such."""
    text = _with_added_marks(text or "", added)
    html = _MARKDOWN.render(text, {"reference_numbers": frozenset(reference_numbers)})
    # A mark in code, where no citation is linked, is shown as the plain citation.
    html = _LEFT_MARK.sub(r"[\1]", html)
    return mark_safe(sanitize(html))  # noqa: S308 - nh3 has just cleaned it


def _with_added_marks(text: str, added: Sequence[AddedCitation]) -> str:
    pieces, cursor = [], 0
    for citation in sorted(added):
        if text[citation.start : citation.end] != f"[{citation.number}]":
            continue  # a record that does not match this text marks nothing
        mark = _REPLACED if citation.replaced else _ADDED
        pieces += [
            _MARKERS.sub("", text[cursor : citation.start]),
            f"{mark}{citation.number}{_END}",
        ]
        cursor = citation.end
    pieces.append(_MARKERS.sub("", text[cursor:]))
    return "".join(pieces)
