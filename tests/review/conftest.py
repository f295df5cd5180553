"""Fixtures the review tests share."""

from __future__ import annotations

import pytest

from tests.review.user_builders import user_in


@pytest.fixture
def sign_in(client, django_user_model):
    """Make a user in a group and sign them in on `client`: `sign_in("reader", "Readers")`."""

    def sign_in(username: str, group: str | None = None):
        user = user_in(django_user_model, username, group)
        client.force_login(user)
        return user

    return sign_in
