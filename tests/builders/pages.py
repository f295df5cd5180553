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


def policy_of(response) -> dict[str, str]:
    """The Content-Security-Policy's directives by name (the header lists them in no set
    order), each with its sources as written."""
    policy = response["Content-Security-Policy"]
    named = (item.strip().partition(" ") for item in policy.split(";") if item.strip())
    return {name: value for name, _, value in named}
