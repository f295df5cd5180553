"""The error every door (command, API, upload form) reports the same way."""

from __future__ import annotations

from collections.abc import Sequence

from review.decisions import ActionRefused


class ImportRefused(ValueError):
    """Bad input. Nothing was written. `problems` lists each one, e.g.
    "line 3: evidence[1].status: 'done' is not one of success, failure, timeout, skipped"."""

    def __init__(self, problems: list[str] | str):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))


class PlanNotAdjudicable(ActionRefused):
    """The plan cannot be frozen or exported yet; `problems` names each entry in the way, and
    `blockers` (when known) says the same in counts for the plan's page."""

    def __init__(self, problems: list[str] | str, undecided: Sequence = (), blockers=None):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.undecided = list(undecided)
        self.blockers = blockers
        super().__init__("; ".join(self.problems))
