"""Single sign-on in real Chromium against a real OpenID Connect provider: a person new to
the app signs in through the provider's own form, arrives with the roles their group maps
to, works in that project, finds no door of a project no claim of theirs names, and signs
out of the app and of the provider."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from review.actions.sign_on import map_claim
from review.models import Membership
from tests.builders.plan_views import make_plan
from tests.builders.provider import running_provider
from tests.builders.users import make_project


@pytest.fixture
def provider(live_server, settings, tmp_path):
    callback, sign_in_page = (
        live_server.url + reverse(name) for name in ("sign-on-callback", "login")
    )
    with running_provider(tmp_path, [callback], [sign_in_page]) as provider:
        for name, value in provider.app_settings().items():
            setattr(settings, name, value)
        yield provider


@pytest.fixture
def projects(transactional_db, django_user_model):
    codes, moderation = make_project("codes", "Building codes"), make_project("moderation")
    staff = django_user_model.objects.create_user("root", is_staff=True)
    map_claim(actor=staff, claim_value="codes-editors", project=codes, roles={"editor": True})
    map_claim(actor=staff, claim_value="mods", project=moderation, roles={"moderator": True})
    return make_plan(2, name="brannkode.md", project=codes)


def test_a_newcomer_signs_in_through_the_provider_and_works_where_their_group_says(
    page, provider, projects
) -> None:
    provider.set_account("ada-1", preferred_username="ada", groups=["codes-editors"])

    page.goto("/accounts/login/?next=/p/codes/plans/")
    page.get_by_role("link", name="Sign in with the test provider").click()
    page.locator("input[name=login]").fill("ada-1")
    page.locator("input[name=password]").fill("anything")
    page.get_by_role("button", name="Sign-in").click()

    page.wait_for_url("**/p/codes/plans/")
    expect(page.locator(".who .username")).to_have_text("ada")
    assert Membership.objects.get(user__username="ada").role_names == {"editor"}
    page.goto(f"/p/codes/plans/{projects.pk}/")
    expect(page.get_by_role("heading", level=1, name="brannkode.md")).to_be_visible()
    response = page.goto("/p/moderation/cases/")
    assert response.status == 404

    page.goto("/p/codes/plans/")
    page.get_by_role("button", name="Log out").click()
    page.get_by_role("button", name="Yes, sign me out").click()

    page.wait_for_url("**/accounts/login/")
    page.get_by_role("link", name="Sign in with the test provider").click()
    expect(page.locator("input[name=login]")).to_be_visible()
