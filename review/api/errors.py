"""Every refusal has one shape, {"detail": "...", "problems": ["...", ...]}: the schema an
operation declares for it, and the handlers that turn each error into it."""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, ValidationError

from review.adapters.errors import ImportRefused, PlanNotAdjudicable

MAKE_ANOTHER = "make another on the 'Your API tokens' page or with manage.py create_api_token"


class KeyRefused(AuthenticationError):
    """A key that exists but may not be used: revoked, expired, or its owner's account
    inactive. Answered 401 saying which, and what mends it (by default, another key), so a
    pipeline's operator knows what to do."""

    def __init__(self, message: str, remedy: str = MAKE_ANOTHER):
        super().__init__()
        self.message, self.remedy = message, remedy

    def __str__(self) -> str:
        return self.message

    @property
    def explained(self) -> str:
        return f"{self.message}: {self.remedy}" if self.remedy else self.message


class Refusal(Schema):
    detail: str
    problems: list[str]


def answers(ok: dict, *refusals: int) -> dict:
    """An operation's answers: what it returns, its own refusals, and those any operation
    may give (a request that cannot be read, no valid token, a project the key does not act
    for, a body over the limit)."""
    return ok | {status: Refusal for status in sorted({400, 401, 404, 413, *refusals})}


def found(queryset, what: str, pk: int):
    """The row `pk` of `queryset`; a 404 naming what is not there otherwise."""
    row = queryset.filter(pk=pk).first()
    if row is None:
        raise Http404(f"there is no {what} {pk}")
    return row


NOT_AUTHENTICATED = (
    "a valid API key is required: send 'Authorization: Bearer <key>' with a key from "
    "manage.py create_api_token, of an active user"
)


def _validation_problems(error: ValidationError) -> list[str]:
    # The same shape as every other refusal: one line per problem, naming where it is.
    return [
        f"{'.'.join(str(part) for part in item.get('loc', ()))}: "
        f"{item.get('msg', 'invalid').removeprefix('Value error, ')}"
        for item in error.errors
    ]


# What an error is answered with: its problems and its status.
Judge = Callable[[Exception], tuple[list[str], int]]

# Each error the API answers itself.
REFUSALS: dict[type[Exception], Judge] = {
    ImportRefused: lambda error: (error.problems, 422),
    PlanNotAdjudicable: lambda error: (error.problems, 409),
    KeyRefused: lambda error: ([error.explained], 401),
    AuthenticationError: lambda error: ([NOT_AUTHENTICATED], 401),
    PermissionDenied: lambda error: ([str(error)], 403),
    Http404: lambda error: ([str(error) or "not found"], 404),
    # What django-ninja refuses itself, e.g. a body that is not JSON.
    HttpError: lambda error: ([str(error)], error.status_code),
    ValidationError: lambda error: (_validation_problems(error), 422),
}


def add_refusal_handlers(api: NinjaAPI) -> None:
    """Answer each error of REFUSALS in the one shape, in place of ninja's own handlers."""
    for error_class, judge in REFUSALS.items():
        api.add_exception_handler(error_class, _refusing(api, judge))


def _refusing(api: NinjaAPI, judge: Judge) -> Callable[[HttpRequest, Exception], HttpResponse]:
    def handler(request: HttpRequest, error: Exception) -> HttpResponse:
        problems, status = judge(error)
        detail = problems[0] if len(problems) == 1 else f"refused: {len(problems)} problems"
        return api.create_response(request, {"detail": detail, "problems": problems}, status=status)

    return handler
