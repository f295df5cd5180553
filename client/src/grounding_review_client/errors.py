"""The one error the client raises: the API's refusal, as the API words it."""

from __future__ import annotations


class ApiError(Exception):
    """A refusal of the API (`status` its HTTP status, `detail` and `problems` its own words),
    a job that failed (`status` None, the job's `error` and `problems`), or a server that
    could not be reached or waited for (`status` None). A pipeline catches this one type."""

    def __init__(self, status: int | None, detail: str, problems: list[str] | None = None):
        self.status = status
        self.detail = detail
        self.problems = list(problems) if problems else [detail]
        super().__init__(detail)

    def __str__(self) -> str:
        where = f"{self.status}: " if self.status is not None else ""
        if self.problems == [self.detail]:
            return f"{where}{self.detail}"
        return "\n  ".join([f"{where}{self.detail}", *self.problems])

    def __repr__(self) -> str:
        return f"ApiError({self.status!r}, {self.detail!r}, {self.problems!r})"
