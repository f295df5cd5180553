"""Where a proposed span lies in the text a plan is decided on.

A plan may have been proposed on another extraction of the document, so its spans can be
off. The rule, for the plan page, an accept and the export alike: a quote still standing at
its proposed span stays there; otherwise the span is where its anchor is found, and where
the anchor is found nowhere, the proposed span is kept (the entry then waits for a person).
"""

from __future__ import annotations

from grounding.anchors import Anchor, locate


def proposed_span_now(text: str, span: tuple[int, int], anchor: Anchor) -> tuple[int, int]:
    start, end = span
    if text[start:end] == anchor.quote:
        return start, end
    location = locate(text, anchor, hint=start)
    if location.start >= 0:
        return location.start, location.end
    return start, end
