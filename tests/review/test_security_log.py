"""The security log: sign-ins, failed ones and API tokens made or revoked are recorded with who,
when and from which address, never changed afterwards, and read by staff on /security/,
narrowed by kind, person, address and time."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth.models import User
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from review.actions.tokens import create_token, revoke_token
from review.models import SecurityEvent, SecurityLogError
from review.security import record
from tests.builders.users import member

pytestmark = pytest.mark.django_db

Kind = SecurityEvent.Kind


def events() -> list[tuple[str, str, str | None]]:
    return list(SecurityEvent.objects.order_by("pk").values_list("kind", "username", "address"))


def test_a_sign_in_and_a_failed_one_are_recorded_without_the_password() -> None:
    User.objects.create_user("ada", password="a long and good passphrase")
    client = Client(REMOTE_ADDR="192.0.2.7")

    client.post(reverse("login"), {"username": "ada", "password": "wrong horse"})
    client.post(reverse("login"), {"username": "ada", "password": "a long and good passphrase"})

    assert events() == [
        (Kind.SIGN_IN_FAILED, "ada", "192.0.2.7"),
        (Kind.SIGN_IN, "ada", "192.0.2.7"),
    ]
    assert "wrong horse" not in " ".join(SecurityEvent.objects.values_list("detail", flat=True))


def test_a_token_made_and_revoked_is_recorded_with_who_revoked_it() -> None:
    ada = User.objects.create_user("ada")
    member(ada, None, "editor")
    boss = User.objects.create_user("boss", is_staff=True)

    token, _ = create_token(ada, "nightly")
    revoke_token(token, boss)
    revoke_token(token, boss)  # once revoked, again is nothing new

    made, revoked = SecurityEvent.objects.order_by("pk")
    assert (made.kind, made.username, made.detail) == (
        Kind.TOKEN_MADE,
        "ada",
        "'nightly' (default: editor)",
    )
    assert (revoked.kind, revoked.username, revoked.actor) == (Kind.TOKEN_REVOKED, "ada", boss)


def test_the_log_is_never_changed_or_emptied() -> None:
    event = record(Kind.SIGN_IN, "ada")

    event.detail = "rewritten"
    with pytest.raises(SecurityLogError):
        event.save()
    with pytest.raises(SecurityLogError):
        event.delete()
    with pytest.raises(SecurityLogError):
        SecurityEvent.objects.update(detail="rewritten")
    with pytest.raises(SecurityLogError):
        SecurityEvent.objects.all().delete()
    assert SecurityEvent.objects.get().detail == ""


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE review_securityevent SET detail = 'rewritten' WHERE id = %s",
        "DELETE FROM review_securityevent WHERE id = %s",
    ],
    ids=["update", "delete"],
)
def test_raw_sql_that_changes_an_event_is_refused_by_the_database(statement) -> None:
    event = record(Kind.SIGN_IN, "ada")
    with (
        pytest.raises(DatabaseError, match="the security log is append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(statement, [event.pk])
    assert SecurityEvent.objects.get(pk=event.pk).detail == ""


def test_an_account_that_acted_in_the_log_is_kept_not_forgotten() -> None:
    # Forgetting it would be an UPDATE of the event, which the database refuses.
    boss = User.objects.create_user("boss", is_staff=True)
    record(Kind.LOCKOUT_LIFTED, "ada", actor=boss)

    with pytest.raises(IntegrityError), transaction.atomic():
        boss.delete()

    assert SecurityEvent.objects.get().actor == boss


def test_an_overlong_name_is_recorded_cut_not_refused() -> None:
    record(Kind.SIGN_IN_FAILED, "x" * 10_000, detail="y" * 10_000)

    event = SecurityEvent.objects.get()
    assert (len(event.username), len(event.detail)) == (150, 500)


def test_staff_read_the_log_narrowed_and_others_are_refused(client) -> None:
    record(Kind.SIGN_IN, "ada")
    record(Kind.SIGN_IN_FAILED, "<script>alert(1)</script>")
    ada = User.objects.create_user("ada")
    client.force_login(ada)
    assert client.get(reverse("security-log")).status_code == 403

    client.force_login(User.objects.create_user("boss", is_staff=True))
    everything = client.get(reverse("security-log")).content.decode()
    failed = client.get(reverse("security-log"), {"kind": "sign_in_failed"}).content.decode()
    by_name = client.get(reverse("security-log"), {"username": "ada"}).content.decode()
    not_an_address = client.get(reverse("security-log"), {"address": "not-an-address"})

    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in everything
    assert "<script>alert(1)" not in everything
    assert "Sign-in failed" in failed and "<td>ada</td>" not in failed
    assert "<td>ada</td>" in by_name and "alert(1)" not in by_name
    # Text that is no address matches nothing, rather than failing the column's comparison.
    assert "Nothing recorded that matches" in not_an_address.content.decode()


def test_the_log_pages_newest_first(client) -> None:
    for number in range(105):
        record(Kind.SIGN_IN_FAILED, f"guess-{number}")
    client.force_login(User.objects.create_user("boss", is_staff=True))

    first = client.get(reverse("security-log"))
    body = first.content.decode()

    assert "guess-104" in body and "guess-4<" not in body and 'rel="next"' in body


def recorded_at(monkeypatch, when: str, kind: str, username: str, **fields) -> SecurityEvent:
    """An event as if recorded at `when` (UTC): the log takes its time from the clock alone."""
    moment = dt.datetime.fromisoformat(when).replace(tzinfo=dt.UTC)
    monkeypatch.setattr(timezone, "now", lambda: moment)
    try:
        return record(kind, username, **fields)
    finally:
        monkeypatch.undo()


def shown(client, query: str = "", **filters) -> list[str]:
    """The names in the log's Whom column, narrowed by `filters` (or by a page link's query)."""
    body = client.get(f"{reverse('security-log')}?{query}", filters).content.decode()
    return re.findall(r"<td>\d{4}-\d\d-\d\d [\d:]+</td>\s*<td>[^<]*</td>\s*<td>([^<]*)</td>", body)


@pytest.fixture
def staff_client(client) -> Client:
    client.force_login(User.objects.create_user("boss", is_staff=True))
    return client


def test_staff_narrow_the_log_to_a_time_from_and_to_both_included(monkeypatch, staff_client):
    recorded_at(monkeypatch, "2026-03-01 23:59:30", Kind.SIGN_IN, "before")
    recorded_at(monkeypatch, "2026-03-02 00:00:00", Kind.SIGN_IN, "first")
    recorded_at(monkeypatch, "2026-03-02 12:30:59", Kind.SIGN_IN, "noon")
    recorded_at(monkeypatch, "2026-03-03 00:00:00", Kind.SIGN_IN, "after")

    assert shown(staff_client, since="2026-03-02", until="2026-03-02") == ["noon", "first"]
    assert shown(staff_client, since="2026-03-02T00:01", until="2026-03-02T12:30") == ["noon"]
    # (boss signed in just now, at the real time.)
    assert shown(staff_client, since="2026-03-02 12:31") == ["boss", "after"]
    assert shown(staff_client, until="2026-03-01 23:59") == ["before"]


def test_a_time_that_is_no_time_or_a_range_that_ends_before_it_begins_is_named(staff_client):
    record(Kind.SIGN_IN, "ada")

    garbled = staff_client.get(reverse("security-log"), {"since": "last tuesday"})
    backwards = staff_client.get(
        reverse("security-log"), {"since": "2026-03-02", "until": "2026-03-01"}
    )

    assert garbled.status_code == 422
    assert "From: give a day (YYYY-MM-DD)" in garbled.content.decode()
    assert "Nothing recorded that matches" in garbled.content.decode()
    assert backwards.status_code == 422
    assert "“From” is after “To”" in backwards.content.decode()


def test_a_person_is_found_whom_an_event_is_about_and_who_did_it(monkeypatch, staff_client):
    lena = User.objects.create_user("lena")
    recorded_at(monkeypatch, "2026-03-02 10:00", Kind.SIGN_IN, "lena", request=None)
    recorded_at(monkeypatch, "2026-03-02 11:00", Kind.INVITED, "new@example.org", actor=lena)
    recorded_at(monkeypatch, "2026-03-02 12:00", Kind.SIGN_IN, "otto")

    assert shown(staff_client, username="lena") == ["new@example.org", "lena"]


def test_the_filters_narrow_together_and_the_pages_keep_them(monkeypatch, staff_client):
    start = dt.datetime(2026, 3, 2, 10, 0)
    for minute in range(105):
        at = start + dt.timedelta(minutes=minute)
        recorded_at(monkeypatch, at.isoformat(), Kind.SIGN_IN_FAILED, f"guess-{minute}")
    recorded_at(monkeypatch, "2026-03-02 10:30", Kind.SIGN_IN, "ada")
    filters = {"kind": "sign_in_failed", "since": "2026-03-02T10:00", "until": "2026-03-02T11:44"}

    first = staff_client.get(reverse("security-log"), filters).content.decode()
    next_query = re.search(r'href="\?([^"]+)" rel="next"', first).group(1).replace("&amp;", "&")

    assert "guess-104" in first and "<td>ada</td>" not in first
    assert shown(staff_client, next_query) == [
        "guess-4",
        "guess-3",
        "guess-2",
        "guess-1",
        "guess-0",
    ]
