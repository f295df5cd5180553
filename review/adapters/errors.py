"""The error every door (command, API, upload form) reports the same way."""

from __future__ import annotations


class ImportRefused(ValueError):
    """Bad input. Nothing was written. `problems` lists each one, e.g.
    "line 3: evidence[1].status: 'done' is not one of success, failure, timeout, skipped"."""

    def __init__(self, problems: list[str] | str):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))
