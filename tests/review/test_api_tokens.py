"""A token acts for the projects it names, with the roles it names there, and never for more
than its owner holds at the time of the request; the API's addresses name the project, and
the addresses from before projects lead to the same operation in the right one."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django_otp.plugins.otp_totp.models import TOTPDevice

from review.actions.tokens import create_token
from review.models import Case, Membership, Project
from review.permissions import token_holder
from tests.builders.api import api_client
from tests.builders.cases_answers import case_line
from tests.builders.plan_views import make_plan
from tests.builders.users import make_project, member

pytestmark = pytest.mark.django_db

KEY = "a-key-for-the-shop-and-default"


@pytest.fixture
def owner() -> User:
    """An editor and moderator of "Default", and an editor of "shop"."""
    user = User.objects.create_user("owner")
    member(user, None, "editor", "moderator")
    member(user, make_project("shop"), "editor")
    return user


def post_cases(api: Client, slug: str):
    return api.post(
        f"/api/projects/{slug}/cases", case_line() + "\n", content_type="application/x-ndjson"
    )


def test_a_project_the_token_does_not_name_answers_as_one_that_does_not_exist(owner) -> None:
    create_token(owner, "default only", [("default", None)], key=KEY)
    api = api_client(KEY)

    named = api.get("/api/projects/default/plans")
    not_named = api.get("/api/projects/shop/plans")
    nowhere = api.get("/api/projects/no-such/plans")

    assert named.status_code == 200
    assert (not_named.status_code, nowhere.status_code) == (404, 404)
    assert not_named.json()["detail"] == "there is no project 'shop' this key acts for"
    assert nowhere.json()["detail"] == "there is no project 'no-such' this key acts for"


def test_a_token_acts_with_the_roles_its_grant_names_not_all_its_owner_holds(owner) -> None:
    create_token(owner, "moderating", [("default", frozenset({"moderator"}))], key=KEY)
    api = api_client(KEY)

    refused = api.post("/api/projects/default/documents")
    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        "only Editors push documents; this key acts as Moderator in 'default'"
    )
    assert post_cases(api, "default").status_code == 200
    assert Case.objects.filter(project__slug="default").count() == 1


def test_a_role_or_a_project_its_owner_loses_is_lost_to_the_token_at_once(owner) -> None:
    create_token(owner, "all", key=KEY)
    api = api_client(KEY)
    assert post_cases(api, "default").status_code == 200

    Membership.objects.filter(user=owner, project__slug="default").update(moderator=False)
    refused = post_cases(api, "default")
    Membership.objects.filter(user=owner, project__slug="shop").delete()
    left = api.get("/api/projects/shop/plans")

    assert refused.status_code == 403
    assert left.status_code == 404


def test_a_staff_owners_token_is_held_to_its_grants(owner) -> None:
    staff = User.objects.create_user("boss", is_staff=True)
    create_token(staff, "reads default", [("default", frozenset({"reader"}))], key=KEY)
    api = api_client(KEY)

    assert api.get("/api/projects/default/plans").status_code == 200
    assert post_cases(api, "default").status_code == 403
    assert api.get("/api/projects/shop/plans").status_code == 404


def test_an_item_of_another_project_is_not_found_at_this_ones_address(owner) -> None:
    create_token(owner, "all", key=KEY)
    shop_plan = make_plan(2, project=make_project("shop"))
    api = api_client(KEY)

    here = api.get(f"/api/projects/default/plans/{shop_plan.pk}")
    there = api.get(f"/api/projects/shop/plans/{shop_plan.pk}")
    listed = api.get("/api/projects/default/plans").json()["items"]

    assert here.status_code == 404 and here.json()["detail"] == f"there is no plan {shop_plan.pk}"
    assert there.status_code == 200 and there.json()["id"] == shop_plan.pk
    assert shop_plan.pk not in {row["id"] for row in listed}


def test_the_list_of_projects_says_what_the_token_acts_for_and_as_what(owner) -> None:
    create_token(
        owner, "some", [("default", frozenset({"moderator"})), ("shop", frozenset({"reader"}))]
    )
    token_key = "another-key"
    create_token(owner, "named", [("shop", None)], key=token_key)

    listed = api_client(token_key).get("/api/projects").json()

    assert listed == [{"slug": "shop", "name": "Shop", "description": "", "roles": ["editor"]}]


def test_a_job_started_in_a_project_is_polled_at_that_projects_address(
    owner, settings, django_capture_on_commit_callbacks
) -> None:
    settings.JOB_INLINE_MAX_LINES = 1
    create_token(owner, "all", key=KEY)
    api = api_client(KEY)
    body = case_line("c-1") + "\n" + case_line("c-2") + "\n"

    with django_capture_on_commit_callbacks(execute=True):
        started = api.post("/api/projects/default/cases", body, content_type="application/x-ndjson")
    status_url = started.json()["status_url"]
    job_id = started.json()["job"]

    assert started.status_code == 202
    assert status_url == f"/api/projects/default/jobs/{job_id}"
    assert api.get(status_url).json()["status"] == "succeeded"
    assert api.get(f"/api/projects/shop/jobs/{job_id}").status_code == 404


def test_a_tokens_holder_can_never_be_saved_over_its_owner() -> None:
    staff = User.objects.create_user("boss", is_staff=True)
    holder = token_holder(staff, [])

    with pytest.raises(TypeError, match="not a user to save"):
        holder.save()
    staff.refresh_from_db()
    assert staff.is_staff and not holder.is_staff


# --- the addresses from before projects -----------------------------------------------------


def test_an_old_address_of_an_item_leads_to_its_own_projects_address(owner) -> None:
    create_token(owner, "all", key=KEY)
    shop_plan = make_plan(2, project=make_project("shop"))
    api = api_client(KEY)

    moved = api.get(f"/api/plans/{shop_plan.pk}/export?x=1")
    followed = api.get(f"/api/plans/{shop_plan.pk}", follow=True)

    assert moved.status_code == 302
    assert moved["Location"] == f"/api/projects/shop/plans/{shop_plan.pk}/export?x=1"
    assert followed.status_code == 200 and followed.json()["id"] == shop_plan.pk


def test_an_old_import_address_posts_again_in_the_tokens_own_project(owner) -> None:
    create_token(owner, "all", key=KEY)
    api = api_client(KEY)

    moved = api.post("/api/cases", case_line() + "\n", content_type="application/x-ndjson")
    followed = api.post(
        "/api/cases", case_line() + "\n", content_type="application/x-ndjson", follow=True
    )

    assert (moved.status_code, moved["Location"]) == (307, "/api/projects/default/cases")
    assert followed.status_code == 200 and followed.json()["created"] == 1
    assert Case.objects.filter(project__slug="default").count() == 1


def test_an_old_address_is_refused_without_a_key_and_for_what_the_key_may_not_see(
    owner,
) -> None:
    hidden = make_plan(2, project=make_project("elsewhere"))
    create_token(owner, "shop only", [("shop", None)], key=KEY)
    create_token(owner, "all", key="a-key-for-both")

    anonymous = Client().get("/api/plans")
    not_seen = api_client(KEY).get(f"/api/plans/{hidden.pk}")
    ambiguous = api_client(KEY).get("/api/plans")
    mine = api_client("a-key-for-both").get("/api/plans")

    assert anonymous.status_code == 401 and "Authorization: Bearer" in anonymous.json()["detail"]
    assert not_seen.status_code == 404
    # Its only project is where a list leads; one of several, when none is "Default", is not.
    assert ambiguous["Location"] == "/api/projects/shop/plans"
    assert mine["Location"] == "/api/projects/default/plans"


def test_an_old_address_leads_nowhere_when_the_key_acts_for_several_and_none_is_default(
    owner,
) -> None:
    member(owner, make_project("lab"), "editor")
    create_token(owner, "two", [("shop", None), ("lab", None)], key=KEY)

    response = api_client(KEY).get("/api/plans")

    assert response.status_code == 404
    assert "name one, /api/projects/<slug>/" in response.json()["detail"]


def test_a_project_that_requires_a_second_factor_refuses_the_key_of_an_owner_with_none(
    owner,
) -> None:
    """The pages would send its owner to enrol first; the key is no way round that, in the
    project that asks it and only there."""
    create_token(owner, "everywhere", key=KEY)
    Project.objects.filter(slug="shop").update(require_second_factor=True)
    api = api_client(KEY)

    refused = api.get("/api/projects/shop/plans")
    elsewhere = api.get("/api/projects/default/plans")
    TOTPDevice.objects.create(user=owner, name="phone", confirmed=False)
    still_refused = api.get("/api/projects/shop/plans")
    TOTPDevice.objects.filter(user=owner).update(confirmed=True)
    enrolled = api.get("/api/projects/shop/plans")

    assert (refused.status_code, still_refused.status_code) == (401, 401)
    assert refused.json()["detail"] == (
        "'shop' requires a second factor, and this key's owner, owner, has none:"
        " they enrol one on their account page, and the key works again"
    )
    assert (elsewhere.status_code, enrolled.status_code) == (200, 200)


@override_settings(REQUIRE_SECOND_FACTOR=True)
def test_a_site_that_requires_a_second_factor_refuses_the_key_of_an_owner_with_none(
    owner,
) -> None:
    create_token(owner, "everywhere", key=KEY)
    api = api_client(KEY)

    refused = api.get("/api/projects")

    assert refused.status_code == 401
    assert refused.json()["detail"].startswith("this site requires a second factor")
