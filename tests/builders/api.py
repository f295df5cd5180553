"""For the JSON API's tests: a pipeline's user holding a key, and a client that sends it."""

from __future__ import annotations

import hashlib

from django.contrib.auth.models import User
from django.test import Client

from review.models import ApiToken
from tests.builders.users import ROLE_OF, member

API_KEY = "a-test-key-for-the-pipeline"
# A pipeline that pushes every kind of proposal needs both roles that may.
PIPELINE_GROUPS = ("Editors", "Moderators")


def pipeline_user(
    key: str = API_KEY, groups: tuple[str, ...] = PIPELINE_GROUPS, username: str = "pipeline"
) -> User:
    user = User.objects.create_user(username)
    # The roles the groups name, in the project "Default" (a reader with none).
    member(user, None, *(ROLE_OF[name] for name in groups if ROLE_OF[name]))
    ApiToken.objects.create(
        user=user, name="ci", key_sha256=hashlib.sha256(key.encode()).hexdigest()
    )
    return user


def api_client(key: str = API_KEY) -> Client:
    # CSRF enforced as a browser would meet it: a token-authenticated API must not need it.
    return Client(enforce_csrf_checks=True, headers={"Authorization": f"Bearer {key}"})
