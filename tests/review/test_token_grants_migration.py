"""Migration 0023 gives each token made before it what it could do then: a grant for every
project its owner was a member of, with their roles there, and every project and role for a
token of staff. No pipeline gains or loses a thing by the change."""

from __future__ import annotations

import pytest

from tests.builders.migrating import migrate, migrate_to_latest

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = ("review", "0022_conflict_project")
AFTER = ("review", "0023_token_grants")
ROLES = ("editor", "moderator", "curator", "lead")


@pytest.fixture(autouse=True)
def _back_to_the_latest_schema():
    yield
    migrate_to_latest()


def test_each_token_keeps_exactly_what_its_owner_could_do() -> None:
    before = migrate(*BEFORE)
    model = lambda name: before.get_model(*name.split("."))  # noqa: E731
    # Made by migration 0017, unless a test that empties the database ran before this one.
    default = model("review.Project").objects.get_or_create(slug="default", name="Default")[0]
    shop = model("review.Project").objects.create(name="Shop", slug="shop")
    editor = model("auth.User").objects.create(username="editor")
    boss = model("auth.User").objects.create(username="boss", is_staff=True)
    model("review.Membership").objects.create(project=default, user=editor, editor=True)
    model("review.Membership").objects.create(project=shop, user=editor)
    for name, user in (("ed-1", editor), ("ed-2", editor), ("boss", boss)):
        model("review.ApiToken").objects.create(user=user, name=name, key_sha256=name * 8)

    after = migrate(*AFTER)

    grants = {
        (grant.token.name, grant.project.slug): {role for role in ROLES if getattr(grant, role)}
        for grant in after.get_model("review", "TokenGrant").objects.select_related(
            "token", "project"
        )
    }
    assert grants == {
        ("ed-1", "default"): {"editor"},
        ("ed-1", "shop"): set(),
        ("ed-2", "default"): {"editor"},
        ("ed-2", "shop"): set(),
        ("boss", "default"): set(ROLES),
        ("boss", "shop"): set(ROLES),
    }
