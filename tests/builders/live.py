"""For the tests of an open page's poll: the cursor a page or a poll hands the next poll."""

from __future__ import annotations

import re


def seen_on(html: str) -> str:
    """The `seen` cursor in the "Also here" strip of a page or a poll's answer."""
    found = re.search(r'name="seen" value="([^"]*)"', html)
    assert found is not None, "no presence strip with a cursor here"
    return found.group(1)
