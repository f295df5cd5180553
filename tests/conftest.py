"""Fixtures shared by the whole suite."""

from __future__ import annotations

import pytest


def _is_transactional(request: pytest.FixtureRequest) -> bool:
    marker = request.node.get_closest_marker("django_db")
    if marker and marker.kwargs.get("transaction"):
        return True
    return bool({"transactional_db", "live_server"} & set(request.fixturenames))


@pytest.fixture(autouse=True)
def _decision_log_guard(request: pytest.FixtureRequest):
    """Keep the decision log's append-only triggers in place for every database test.

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

    from review import log_guard

    log_guard.install(connection)
    yield
    if _is_transactional(request):
        log_guard.remove(connection)
