"""Fixtures shared by the whole suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builders.users import user_in


def _is_transactional(request: pytest.FixtureRequest) -> bool:
    marker = request.node.get_closest_marker("django_db")
    if marker and marker.kwargs.get("transaction"):
        return True
    return bool({"transactional_db", "live_server"} & set(request.fixturenames))


@pytest.fixture(autouse=True)
def _decision_log_triggers(request: pytest.FixtureRequest):
    """Keep the append-only triggers of the decision log and the security log in place for
    every database test.

    Django empties the database after a transactional test by deleting or truncating
    every table, which the triggers rightly refuse; so they are lifted just for that
    flush (this fixture's teardown runs before the database fixture's) and put back
    when the next test starts.
    """
    marker = request.node.get_closest_marker("django_db")
    if not marker and "_django_db_helper" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("_django_db_helper")
    from django.db import connection

    from review import log_triggers

    for log in log_triggers.LOGS:
        log_triggers.install(connection, log)
    yield
    if _is_transactional(request):
        for log in log_triggers.LOGS:
            log_triggers.remove(connection, log)


def pytest_configure() -> None:
    # The real hasher is slow on purpose; a test signs in hundreds of times (healthchecks'
    # test settings do the same, "for speed").
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Test databases reuse ids after a rollback, so a cache keyed by the latest ids could
    # hand one test another's figures; the test of the cache turns it on itself.
    settings.INSIGHTS_CACHE_SECONDS = 0
    settings.DASHBOARD_CACHE_SECONDS = 0
    # Jobs run in the test's own thread; the tests of the worker itself use the database
    # backend and start `db_worker`.
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


@pytest.fixture(scope="session")
def django_db_modify_db_settings(request: pytest.FixtureRequest) -> None:
    """On SQLite, a test database in a file rather than in memory, so the task worker a test
    starts in a subprocess (tests/builders/worker.py) sees the same data; named before
    pytest-django adds each xdist worker's suffix to it (it leaves an unnamed SQLite database
    alone), so each worker has its own file, as each has its own PostgreSQL database."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    test = database.setdefault("TEST", {})
    if database["ENGINE"] == "django.db.backends.sqlite3" and not test.get("NAME"):
        test["NAME"] = str(Path(database["NAME"]).with_name("test.sqlite3"))
    request.getfixturevalue("django_db_modify_db_settings_parallel_suffix")


@pytest.fixture
def sign_in(client, django_user_model):
    """Make a user in a group and sign them in on `client`: `sign_in("rita", "Readers")`."""

    def sign_in(username: str, group: str | None = None):
        user = user_in(django_user_model, username, group)
        client.force_login(user)
        return user

    return sign_in


# The people of the view tests, each signed in on `client` when asked for (the last one asked
# for is the one signed in); tests that need another sign in call `client.force_login`.


@pytest.fixture
def editor(sign_in):
    return sign_in("editor", "Editors")


@pytest.fixture
def moderator(sign_in):
    return sign_in("moderator", "Moderators")


@pytest.fixture
def reader(sign_in):
    return sign_in("reader", "Readers")


@pytest.fixture
def alice(django_user_model):
    """An editor who is not signed in: the one who uploads, decides and is named in the tests
    of revisions and of what they carry."""
    return user_in(django_user_model, "alice", "Editors")


# Double review: a second moderator, and a curator who settles what two reviewers disagree on.


@pytest.fixture
def moderator2(sign_in):
    return sign_in("moderator2", "Moderators")


@pytest.fixture
def curator(sign_in):
    return sign_in("curator", "Curators")


@pytest.fixture
def smtp_server(settings):
    """A real SMTP server on 127.0.0.1 that keeps what it receives (`.messages`, or
    `.wait_for(n)`), with Django's mail sent to it over SMTP, as in production."""
    from tests.builders.mail import smtp_settings, start_server

    controller, inbox = start_server()
    for name, value in smtp_settings(controller).items():
        setattr(settings, name, value)
    yield inbox
    controller.stop()
