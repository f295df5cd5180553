"""What the case and answer lists share: the page shown (keyset pagination: first, next,
previous, last), counts for its rows alone, the filters its pager keeps, and which template
answers (the page, or for htmx its results).

A page is found by where the previous one ended, not by an OFFSET: the database walks the
index of the list's order from that row, so the last page costs what the first does, and
nothing counts the whole list.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import BadRequest, ValidationError
from django.db.models import Count, Manager, Q, QuerySet
from django.http import HttpResponse, HttpResponseBadRequest

from review.views import HtmxHttpRequest

# The page parameters a list understands; every other parameter is a filter the pager keeps.
AFTER, BEFORE, PAGE = "after", "before", "page"
LAST = "last"


@dataclass(frozen=True)
class Key:
    """One column of a list's order: its name (a field or an annotation), its direction, and
    how a cursor's value for it is read back (`str` → the value the query compares with)."""

    name: str
    descending: bool = False
    parse: Callable[[Any], Any] | None = None

    def ordering(self, reverse: bool = False) -> str:
        return f"-{self.name}" if self.descending != reverse else self.name


def field_key(model, name: str, descending: bool = False) -> Key:
    """A key on a model field, its cursor value read back by the field itself."""
    field = model._meta.pk if name == "pk" else model._meta.get_field(name)
    return Key(name, descending, field.to_python)


def order_keys(model, ordering: Sequence[str]) -> list[Key]:
    """Keys for an ordering written the ORM's way ("-flagged", "created_at", "pk")."""
    return [field_key(model, name.lstrip("-"), name.startswith("-")) for name in ordering]


@dataclass
class KeysetPage:
    """One page of a list, and the query strings of the pages around it (None: no such page)."""

    object_list: list
    first_query: str | None
    previous_query: str | None
    next_query: str | None
    last_query: str | None

    @property
    def has_previous(self) -> bool:
        return self.previous_query is not None

    @property
    def has_next(self) -> bool:
        return self.next_query is not None

    @property
    def has_other_pages(self) -> bool:
        return self.has_previous or self.has_next


def shown_page(
    request: HtmxHttpRequest, items: QuerySet, keys: Sequence[Key], per_page: int
) -> KeysetPage:
    """The page the request asks for (`after=`, `before=` a cursor, `page=last`, or the
    first), its objects loaded, in the order of `keys` (the last key must be unique)."""
    after, before = request.GET.get(AFTER), request.GET.get(BEFORE)
    last = request.GET.get(PAGE) == LAST
    if after:
        rows = _rows(items, keys, per_page, _decode(after, keys, AFTER), reverse=False)
        more_before, more_after = True, len(rows) > per_page
    elif before or last:
        boundary = _decode(before, keys, BEFORE) if before else None
        rows = _rows(items, keys, per_page, boundary, reverse=True)
        more_before, more_after = len(rows) > per_page, bool(before)
    else:
        rows = _rows(items, keys, per_page, None, reverse=False)
        more_before, more_after = False, len(rows) > per_page
    rows = rows[:per_page]
    if before or last:
        rows.reverse()
    keep = query_without_page(request)
    if not rows:
        # The cursor's row and all beyond it are gone: offer the way back to the start.
        more_before, more_after = bool(after or before or last), False
        return KeysetPage([], keep if more_before else None, None, None, None)
    return KeysetPage(
        object_list=rows,
        first_query=keep if more_before else None,
        previous_query=_query(keep, BEFORE, _encode(rows[0], keys)) if more_before else None,
        next_query=_query(keep, AFTER, _encode(rows[-1], keys)) if more_after else None,
        last_query=_query(keep, PAGE, LAST) if more_after else None,
    )


def _rows(items: QuerySet, keys: Sequence[Key], per_page: int, boundary, *, reverse: bool):
    ordered = items.order_by(*(key.ordering(reverse) for key in keys))
    if boundary is not None:
        ordered = ordered.filter(beyond(keys, boundary, reverse))
    return list(ordered[: per_page + 1])


def beyond(keys: Sequence[Key], values: Sequence, reverse: bool) -> Q:
    """Rows that come after `values` in the order of `keys` (before them with `reverse`).

    Written k1 >= v1 AND (k1 > v1 OR (k2 >= v2 AND (...))) rather than as a plain OR, so that
    the first key bounds the index scan.
    """
    key, value = keys[0], values[0]
    strict = "lt" if key.descending != reverse else "gt"
    if len(keys) == 1:
        return Q(**{f"{key.name}__{strict}": value})
    inclusive = f"{strict}e"
    return Q(**{f"{key.name}__{inclusive}": value}) & (
        Q(**{f"{key.name}__{strict}": value}) | beyond(keys[1:], values[1:], reverse)
    )


def _encode(row, keys: Sequence[Key]) -> str:
    values = [_plain(getattr(row, key.name)) for key in keys]
    return base64.urlsafe_b64encode(json.dumps(values).encode()).decode().rstrip("=")


def _plain(value):
    return value.isoformat() if hasattr(value, "isoformat") else value


def _decode(token: str, keys: Sequence[Key], name: str) -> list:
    try:
        padded = token + "=" * (-len(token) % 4)
        values = json.loads(base64.urlsafe_b64decode(padded.encode("ascii")))
        if not isinstance(values, list) or len(values) != len(keys):
            raise ValueError("wrong number of values")
        return [
            key.parse(value) if key.parse else value
            for key, value in zip(keys, values, strict=True)
        ]
    except (ValueError, TypeError, UnicodeError, binascii.Error, ValidationError) as error:
        raise BadRequest(f"{name}: {token[:40]!r} is not a page of this list") from error


def _query(keep: str, name: str, value: str) -> str:
    return f"{keep}&{name}={value}" if keep else f"{name}={value}"


def count_on_page(page: KeysetPage, rows: Manager | QuerySet, field: str, attribute: str) -> None:
    """Set `attribute` on each object of the page to how many `rows` point at it by `field`."""
    counts = dict(
        rows.filter(**{f"{field}__in": page.object_list})
        .values_list(field)
        .annotate(n=Count("pk"))
        .order_by()
    )
    for item in page.object_list:
        setattr(item, attribute, counts.get(item.pk, 0))


def query_without_page(request: HtmxHttpRequest) -> str:
    """The list's filters as a query string, for the pager's links to keep."""
    query = request.GET.copy()
    for name in (AFTER, BEFORE, PAGE):
        query.pop(name, None)
    return query.urlencode()


def list_template(request: HtmxHttpRequest, template: str, results: str) -> str:
    """The whole page, or for an htmx filter (not a boosted link) only its `results` partial."""
    if request.htmx and not request.htmx.boosted:
        return f"{template}#{results}"
    return template


def bad_request(request, exception=None) -> HttpResponse:
    """The project's 400 page (`handler400`): a refused page parameter says which and why,
    as plain text; any other bad request (a suspicious header, say) only that it was one."""
    refused = type(exception) is BadRequest and str(exception)
    message = str(exception) if refused else "Bad request."
    return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
