"""The client: one method per operation of the API (`operations.OPERATIONS`), retries where
they are safe, lists read page by page as iterators, and jobs followed to their end on request.

Retries: a 429 (after its Retry-After) and a connection that was never made are always tried
again, since the server did nothing; a 502, 503 or 504 and an answer lost on the way are tried
again only for an idempotent operation (every GET, and the POSTs the API answers a repeat of
with what the first made; see `operations`). No other 4xx is ever repeated. Waits grow
exponentially from `backoff` to at most `max_delay` seconds, for at most `retries` retries.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import json
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from grounding_review_client.errors import ApiError
from grounding_review_client.models import (
    Answer,
    AnswerSummary,
    Case,
    CaseSummary,
    Decision,
    Document,
    ImportResult,
    Job,
    JobStarted,
    Plan,
    PlanSummary,
    Project,
    Revision,
)
from grounding_review_client.operations import OPERATIONS, Operation

RETRIED_STATUSES = frozenset({429, 502, 503, 504})
# The only status after which even a request that is not idempotent is sent again: the
# server refused it before doing anything.
NOTHING_DONE_STATUSES = frozenset({429})
# How much of an answer that is not the API's JSON (a proxy's error page) an error quotes.
QUOTED_CHARS = 300
JOB_POLL_FIRST, JOB_POLL_MAX = 0.2, 2.0

# Called before each retry with the reason (a status or an error's name) and the wait.
OnRetry = Callable[[str, float], None]


class Client:
    """The API at `url` (the site's root, e.g. "http://127.0.0.1:8000"), acting with the
    bearer `token` in the project `project` (its slug).

    Use it as a context manager, or call `close()`, to release its connections."""

    def __init__(
        self,
        url: str,
        token: str,
        project: str = "default",
        *,
        timeout: float = 30.0,
        retries: int = 4,
        backoff: float = 0.5,
        max_delay: float = 30.0,
        on_retry: OnRetry | None = None,
    ):
        if not url.startswith(("http://", "https://")):
            raise ApiError(None, f"the API's URL must start with http:// or https://, not {url!r}")
        if not token:
            raise ApiError(
                None, "an API token is required (make one on the 'Your API tokens' page)"
            )
        if not project:
            raise ApiError(None, "a project's slug is required")
        if retries < 0 or backoff < 0 or max_delay < 0:
            raise ApiError(None, "retries, backoff and max_delay must not be negative")
        self.project = project
        self.retries, self.backoff, self.max_delay = retries, backoff, max_delay
        self.on_retry = on_retry
        self._http = httpx.Client(
            base_url=url.rstrip("/"),
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            timeout=timeout,
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    # Projects

    def projects(self) -> list[Project]:
        """The projects this token acts for, with its roles in each."""
        answer = self._call("review_api_list_projects").json()
        return [Project.from_json(project) for project in answer]

    # Documents and plans

    def push_document(self, file: str | Path | bytes, name: str | None = None) -> Document:
        """Store a document (Markdown, text or PDF): a path, or bytes with their file `name`,
        whose suffix says the type. The same bytes again answer the document already stored."""
        name, data = _named_bytes(file, name)
        answer = self._call("review_api_post_document", files={"file": (name, data)})
        return Document.from_json(answer.json())

    def propose(
        self,
        document_id: int,
        *,
        max_segment_chars: int = 0,
        path_prefix: str = "",
        wait: bool = False,
        wait_timeout: float = 600.0,
    ) -> Plan | JobStarted:
        """Run the proposer on a stored document: its plan, or for a large document the job
        proposing it (with `wait`, the plan once the job has made it)."""
        options = {"max_segment_chars": max_segment_chars, "path_prefix": path_prefix}
        answer = self._call("review_api_propose", document_id=document_id, json=options)
        if answer.status_code != 202:
            return Plan.from_json(answer.json())
        started = JobStarted.from_json(answer.json())
        if not wait:
            return started
        job = self.wait_for_job(started, timeout=wait_timeout)
        return self.plan(job.result["plan"])

    def import_plan(self, document_id: int, plan: Mapping | str | bytes) -> Plan:
        """Import a plan proposed elsewhere: its JSON, kept verbatim when given as text."""
        return self._import_as("review_api_post_plan", document_id, plan, "application/json")

    def import_annotations(self, document_id: int, collection: Mapping | str | bytes) -> Plan:
        """Import a W3C Web Annotation collection (JSON-LD) on the document as a proposed plan:
        its quotes placed on the document's text, its decisions never read."""
        return self._import_as(
            "review_api_post_annotations", document_id, collection, "application/ld+json"
        )

    def import_label_studio(self, document_id: int, tasks: Sequence | str | bytes) -> Plan:
        """Import a Label Studio JSON export as a proposed plan: the labelling of the task
        whose text is the document's (its last annotation not cancelled, else its last
        prediction)."""
        return self._import_as(
            "review_api_post_label_studio", document_id, tasks, "application/json"
        )

    def _import_as(self, operation: str, document_id: int, body, media_type: str) -> Plan:
        """A plan from `body`, sent as it stands when it is text (kept verbatim), else as JSON."""
        body = body if isinstance(body, bytes | str) else json.dumps(body)
        body = body.encode() if isinstance(body, str) else body
        answer = self._call(
            operation, document_id=document_id, content=body, headers={"Content-Type": media_type}
        )
        return Plan.from_json(answer.json())

    def push_revision(
        self, document_id: int, file: str | Path | bytes, name: str | None = None
    ) -> Revision:
        """Store the next revision of a document and carry its latest plan onto it."""
        name, data = _named_bytes(file, name)
        answer = self._call(
            "review_api_post_revision", document_id=document_id, files={"file": (name, data)}
        )
        return Revision.from_json(answer.json())

    def plans(
        self, *, document_id: int | None = None, status: str | None = None, page_size: int = 100
    ) -> Iterator[PlanSummary]:
        """Every plan, newest first (only a document's, or only those of a status: open,
        adjudicated or superseded), fetched a page at a time as the iterator is read."""
        query = {"limit": page_size, "document_id": document_id, "status": status}
        for item in self._pages("review_api_list_plans", query):
            yield PlanSummary.from_json(item)

    def plan(self, plan_id: int) -> Plan:
        """A plan with its entries."""
        return Plan.from_json(self._call("review_api_get_plan", plan_id=plan_id).json())

    def export_plan(self, plan_id: int) -> bytes:
        """The adjudicated plan's JSON, byte for byte as it was frozen (`json.loads` it for
        its values). A plan not yet adjudicated is an ApiError (409) naming what is undecided."""
        return self._call("review_api_get_plan_export", plan_id=plan_id).content

    def export_annotations(self, plan_id: int) -> bytes:
        """The adjudicated plan as a W3C Web Annotation collection (JSON-LD bytes); an
        ApiError (409) for a plan not yet adjudicated, as `export_plan`."""
        return self._call("review_api_get_plan_annotations", plan_id=plan_id).content

    def export_label_studio(self, plan_id: int) -> bytes:
        """The adjudicated plan as a Label Studio task with one annotation (JSON bytes, a
        list), to import into a Label Studio project; 409 as `export_plan`."""
        return self._call("review_api_get_plan_label_studio", plan_id=plan_id).content

    # Cases and answers

    def import_cases(
        self,
        lines: bytes | str | Iterable[Mapping],
        *,
        skip_invalid: bool = False,
        wait: bool = False,
        wait_timeout: float = 600.0,
    ) -> ImportResult | JobStarted:
        """Import moderation cases, one JSON object a line (or the objects themselves): the
        import's counts, or for a large body its job (with `wait`, the counts once done)."""
        return self._import("review_api_post_cases", lines, skip_invalid, wait, wait_timeout)

    def import_answers(
        self,
        lines: bytes | str | Iterable[Mapping],
        *,
        skip_invalid: bool = False,
        wait: bool = False,
        wait_timeout: float = 600.0,
    ) -> ImportResult | JobStarted:
        """Import finalized answers, as `import_cases` does cases."""
        return self._import("review_api_post_answers", lines, skip_invalid, wait, wait_timeout)

    def cases(
        self,
        *,
        reason: str | None = None,
        tool: str | None = None,
        status: str | None = None,
        verdict: str | None = None,
        page_size: int = 100,
    ) -> Iterator[CaseSummary]:
        """Every case, in the cases page's queue order (flagged first, then the oldest), with
        its filters: a validator `reason` (or "passed"), an evidence item's `tool` and
        `status`, a `verdict`; fetched a page at a time as the iterator is read."""
        query = {"limit": page_size, "reason": reason, "tool": tool, "status": status}
        for item in self._pages("review_api_list_cases", query | {"verdict": verdict}):
            yield CaseSummary.from_json(item)

    def case(self, case_id: int) -> Case:
        """A case (by its `id`) with its evidence, as its page shows it."""
        return Case.from_json(self._call("review_api_get_case", case_id=case_id).json())

    def answers(
        self,
        *,
        q: str | None = None,
        state: str | None = None,
        changed: bool | None = None,
        page_size: int = 100,
    ) -> Iterator[AnswerSummary]:
        """Every answer, newest first, with the answers page's filters: words `q` of the
        question or the body, a `state`, and whether finalizing `changed` the model's text."""
        flag = None if changed is None else ("yes" if changed else "no")
        query = {"limit": page_size, "q": q, "state": state, "changed": flag}
        for item in self._pages("review_api_list_answers", query):
            yield AnswerSummary.from_json(item)

    def answer(self, answer_id: int) -> Answer:
        """An answer (by its `id`) with its references, as its page shows it."""
        return Answer.from_json(self._call("review_api_get_answer", answer_id=answer_id).json())

    # Jobs

    def job(self, job_id: int) -> Job:
        """A background job's status, progress and result, or why it failed."""
        return Job.from_json(self._call("review_api_get_job", job_id=job_id).json())

    def wait_for_job(self, job: int | JobStarted, *, timeout: float = 600.0) -> Job:
        """Poll the job until it has succeeded (answered) or failed (an ApiError with the
        job's error and problems); an ApiError too when `timeout` seconds pass first."""
        job_id = job.job if isinstance(job, JobStarted) else job
        deadline = time.monotonic() + timeout
        pause = JOB_POLL_FIRST
        while True:
            status = self.job(job_id)
            if status.status == "succeeded":
                return status
            if status.status == "failed":
                raise ApiError(None, status.error or f"job {job_id} failed", status.problems)
            if time.monotonic() + pause > deadline:
                raise ApiError(
                    None,
                    f"job {job_id} is still {status.status} after {timeout:g} s "
                    f"({status.progress} of {status.total} {status.unit})",
                )
            time.sleep(pause)
            pause = min(pause * 2, JOB_POLL_MAX)

    # The log and the figures

    def decisions(
        self,
        *,
        since: str | dt.date | dt.datetime | None = None,
        after: int | None = None,
        page_size: int = 100,
    ) -> Iterator[Decision]:
        """The decision log, oldest first: from `since` on (a date, midnight UTC, or a moment;
        inclusive), and after the decision `after` (the id of the last row seen: a cursor to
        resume from), fetched a page at a time as the iterator is read."""
        if isinstance(since, dt.date):
            since = since.isoformat()
        query = {"limit": page_size, "since": since, "after": after}
        for item in self._pages("review_api_list_decisions", query):
            yield Decision.from_json(item)

    def insights(
        self,
        *,
        document: int | None = None,
        version: str = "",
        model: str = "",
        rule: str = "",
        weeks: int = 12,
    ) -> dict:
        """What the decisions teach (the /insights/ page's figures), as the API answers them."""
        query = {"document": document, "version": version, "model": model, "rule": rule}
        return self._call("review_api_get_insights", query={**query, "weeks": weeks}).json()

    def agreement(self) -> dict:
        """How far reviewers agree under double review, keyed by queue."""
        return self._call("review_api_get_agreement").json()

    # The wire

    def _import(
        self,
        operation: str,
        lines: bytes | str | Iterable[Mapping],
        skip_invalid: bool,
        wait: bool,
        wait_timeout: float,
    ) -> ImportResult | JobStarted:
        answer = self._call(
            operation,
            query={"skip_invalid": "true" if skip_invalid else "false"},
            content=_json_lines(lines),
            headers={"Content-Type": "application/x-ndjson"},
        )
        if answer.status_code != 202:
            return ImportResult.from_json(answer.json())
        started = JobStarted.from_json(answer.json())
        if not wait:
            return started
        return ImportResult.from_json(self.wait_for_job(started, timeout=wait_timeout).result)

    def _pages(self, operation: str, query: dict) -> Iterator[dict]:
        """The items of every page, following each page's `next` until it is null."""
        answer = self._call(operation, query=query).json()
        while True:
            yield from answer["items"]
            if not answer.get("next"):
                return
            # `next` is the following page's address on the server (its path and query).
            following = self._http.base_url.join(answer["next"])
            answer = self._send(OPERATIONS[operation], str(following), {}).json()

    def _call(self, operation: str, *, query: dict | None = None, **request: Any) -> httpx.Response:
        route = OPERATIONS[operation]
        names = {"project": self.project}
        for name in ("document_id", "plan_id", "job_id", "case_id", "answer_id"):
            if name in request:
                names[name] = request.pop(name)
        path = route.path.format(
            **{name: quote(str(value), safe="") for name, value in names.items()}
        )
        params = {name: value for name, value in (query or {}).items() if value is not None}
        return self._send(route, path, {"params": params, **request})

    def _send(self, route: Operation, url: str, request: dict) -> httpx.Response:
        """One operation's request, sent again as the retry rules allow; its answer, or the
        ApiError of its refusal."""
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                answer = self._http.request(route.method, url, **request)
            except httpx.TransportError as error:
                # A connection never made sent nothing; any other failure may have.
                never_sent = isinstance(error, httpx.ConnectError | httpx.ConnectTimeout)
                if last or not (never_sent or route.idempotent):
                    what = "could not reach" if never_sent else "no answer (it may have acted) from"
                    why = str(error) or type(error).__name__
                    raise ApiError(None, f"{what} {self._http.base_url}: {why}") from error
                self._pause(attempt, type(error).__name__, None)
                continue
            if answer.status_code < 400:
                return answer
            retried = answer.status_code in (
                RETRIED_STATUSES if route.idempotent else NOTHING_DONE_STATUSES
            )
            if last or not retried:
                raise _refusal(answer)
            self._pause(attempt, str(answer.status_code), answer.headers.get("Retry-After"))
        raise AssertionError("unreachable: the last attempt answers or raises")

    def _pause(self, attempt: int, reason: str, retry_after: str | None) -> None:
        delay = _retry_after_seconds(retry_after)
        if delay is None:
            # Exponential, with jitter so that many pipelines refused at once do not return
            # at once.
            delay = self.backoff * 2**attempt * random.uniform(0.5, 1.0)
        delay = min(delay, self.max_delay)
        if self.on_retry is not None:
            self.on_retry(reason, delay)
        time.sleep(delay)


def _retry_after_seconds(value: str | None) -> float | None:
    """Retry-After's seconds or HTTP date as seconds from now; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (moment - dt.datetime.now(dt.UTC)).total_seconds())


def _refusal(answer: httpx.Response) -> ApiError:
    """The API's own {"detail", "problems"}, or for an answer not of the API's making (a
    proxy's page) its status and the start of its text."""
    try:
        body = answer.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("detail"), str):
        problems = body.get("problems")
        return ApiError(
            answer.status_code,
            body["detail"],
            [str(problem) for problem in problems] if isinstance(problems, list) else None,
        )
    text = answer.text[:QUOTED_CHARS].strip()
    detail = f"{answer.status_code} {answer.reason_phrase} from {answer.request.url}"
    return ApiError(answer.status_code, detail, [detail, text] if text else None)


def _named_bytes(file: str | Path | bytes, name: str | None) -> tuple[str, bytes]:
    if isinstance(file, bytes):
        if not name:
            raise ApiError(None, "bytes need a file name, whose suffix says their type (.md, .pdf)")
        return name, file
    path = Path(file)
    try:
        return name or path.name, path.read_bytes()
    except OSError as error:
        raise ApiError(None, f"cannot read {path}: {error.strerror}") from error


def _json_lines(lines: bytes | str | Iterable[Mapping]) -> bytes:
    if isinstance(lines, bytes):
        return lines
    if isinstance(lines, str):
        return lines.encode()
    return b"".join(json.dumps(line, ensure_ascii=False).encode() + b"\n" for line in lines)
