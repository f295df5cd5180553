"""For the JSON API's tests: a pipeline's user holding a key, and a client that sends it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client

from review.actions.tokens import create_token
from tests.builders.users import ROLE_OF, member

API_KEY = "a-test-key-for-the-pipeline"
# The API's address of the project "Default", where the tests' pipelines work.
API = "/api/projects/default"
# A pipeline that pushes every kind of proposal needs both roles that may.
PIPELINE_GROUPS = ("Editors", "Moderators")


def pipeline_user(
    key: str = API_KEY,
    groups: tuple[str, ...] = PIPELINE_GROUPS,
    username: str = "pipeline",
    staff: bool = False,
) -> User:
    """A user with those roles in "Default", and a token acting for all they may do there."""
    user = User.objects.create_user(username, is_staff=staff)
    # The roles the groups name, in the project "Default" (a reader with none).
    member(user, None, *(ROLE_OF[name] for name in groups if ROLE_OF[name]))
    create_token(user, "ci", key=key)
    return user


def api_client(key: str = API_KEY) -> Client:
    # CSRF enforced as a browser would meet it: a token-authenticated API must not need it.
    return Client(enforce_csrf_checks=True, headers={"Authorization": f"Bearer {key}"})
