"""The trust suite's server (`tests.builders.served`): gunicorn with the demo data and fifty
reviewers, each with a key and a session of their own."""

from __future__ import annotations

import pytest

from tests.builders.served import Server, people, served


@pytest.fixture(scope="session")
def server(tmp_path_factory) -> Server:
    with served(tmp_path_factory.mktemp("trust"), people(editors=25, moderators=25)) as running:
        yield running
