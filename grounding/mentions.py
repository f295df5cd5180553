"""`@name` mentions in a comment's text."""

from __future__ import annotations

import re

# A name as Django's usernames allow it (letters, digits and @.+-_), not preceded by a word
# character (an e-mail address mentions nobody). A sentence's full stop after it is not part
# of the name.
_MENTION = re.compile(r"(?<![\w@.+-])@([\w.+-]*[\w+-])")


def mentioned_names(text: str) -> list[str]:
    """The names mentioned in `text`, each once, in the order first mentioned."""
    return list(dict.fromkeys(match.group(1) for match in _MENTION.finditer(text or "")))
