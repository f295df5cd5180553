"""Reading a page the test client fetched, whether it came whole or streamed as it was drawn
(the plan page streams; see review/views/streaming.py)."""

from __future__ import annotations


def html_of(response) -> str:
    """The page's HTML. A streamed page is read once and kept, so it can be read again."""
    if response.streaming:
        body = b"".join(response.streaming_content)
        response.streaming_content = [body]
        return body.decode()
    return response.content.decode()
