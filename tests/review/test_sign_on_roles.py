"""What single sign-on sets at a sign-in, without a provider: the memberships a person's claim
values map to (`apply_claims`), the usernames new accounts get, password sign-in turned off
but for the break-glass account, and the staff's page of mappings."""

from __future__ import annotations

import pytest
from django.urls import reverse

from review.actions.sign_on import apply_claims, map_claim
from review.backends import username_from
from review.models import ClaimRole, Decision, Membership, SecurityEvent
from tests.builders.users import make_project, member

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("root", password="demo", is_staff=True)


@pytest.fixture
def codes(staff):
    project = make_project("codes")
    map_claim(actor=staff, claim_value="editors", project=project, roles={"editor": True})
    map_claim(actor=staff, claim_value="leads", project=project, roles={"lead": True})
    return project


def roles_in(project, user) -> set[str] | None:
    membership = Membership.objects.filter(project=project, user=user).first()
    return set(membership.role_names) if membership else None


def test_a_removed_group_loses_its_role_at_the_next_sign_in(codes, django_user_model) -> None:
    ada = django_user_model.objects.create_user("ada")
    apply_claims(ada, {"groups": ["editors", "leads"]})

    changes = apply_claims(ada, {"groups": ["editors"]})

    assert roles_in(codes, ada) == {"editor"}
    assert changes == ["codes: Lead, Editor → Editor"]
    event = SecurityEvent.objects.filter(kind=SecurityEvent.Kind.SSO_ROLES).first()
    assert (event.username, event.detail) == ("ada", changes[0])


def test_no_mapped_value_left_takes_the_place_in_the_project_away(codes, django_user_model):
    ada = django_user_model.objects.create_user("ada")
    apply_claims(ada, {"groups": ["editors"]})

    apply_claims(ada, {"groups": []})

    assert roles_in(codes, ada) is None
    removal = Decision.objects.filter(action="membership.remove").get()
    assert (removal.actor_name, removal.before["editor"]) == ("single sign-on", True)


def test_a_project_without_mappings_keeps_what_its_lead_gave(codes, django_user_model) -> None:
    ada = django_user_model.objects.create_user("ada")
    other = make_project("other")
    member(ada, other, "curator")

    apply_claims(ada, {"groups": ["editors"]})

    assert roles_in(other, ada) == {"curator"}
    assert roles_in(codes, ada) == {"editor"}


def test_a_sign_in_that_changes_nothing_logs_nothing(codes, django_user_model) -> None:
    ada = django_user_model.objects.create_user("ada")
    apply_claims(ada, {"groups": ["leads"]})
    logged = (Decision.objects.count(), SecurityEvent.objects.count())

    assert apply_claims(ada, {"groups": ["leads", "unmapped"]}) == []
    assert (Decision.objects.count(), SecurityEvent.objects.count()) == logged


def test_one_group_sent_as_a_string_and_a_claim_name_of_ones_choosing(
    codes, django_user_model, settings
) -> None:
    settings.SSO_ROLES_CLAIM = "roles"
    ada = django_user_model.objects.create_user("ada")

    apply_claims(ada, {"roles": "leads", "groups": ["editors"]})

    assert roles_in(codes, ada) == {"lead"}


def test_a_username_is_made_of_what_usernames_allow_and_never_an_existing_ones(
    django_user_model,
) -> None:
    django_user_model.objects.create_user("Ada-Lovelace")
    django_user_model.objects.create_user("ada-lovelace-2")

    assert username_from({"preferred_username": "ada lovelace"}) == "ada-lovelace-3"
    assert username_from({"preferred_username": "bo <b>!"}) == "bo-b"
    assert username_from({"email": "cy@example.org"}) == "cy"
    assert username_from({"preferred_username": "  "}) == "user"


@pytest.fixture
def password_off(settings, staff):
    settings.SSO_ENABLED = True
    settings.PASSWORD_SIGN_IN = False
    settings.BREAK_GLASS_USERNAME = staff.username


def test_with_password_sign_in_off_only_the_break_glass_account_signs_in_with_one(
    password_off, client, django_user_model
) -> None:
    django_user_model.objects.create_user("ada", password="demo")

    refused = client.post(reverse("login"), {"username": "ada", "password": "demo"})
    let_in = client.post(reverse("login"), {"username": "root", "password": "demo"})

    assert refused.status_code == 200
    assert "Password sign-in is off" in refused.content.decode()
    assert let_in.status_code == 302
    failed = SecurityEvent.objects.filter(kind=SecurityEvent.Kind.SIGN_IN_FAILED).get()
    assert failed.username == "ada"


def test_a_break_glass_account_that_is_not_staff_is_refused(
    settings, client, django_user_model
) -> None:
    settings.SSO_ENABLED, settings.PASSWORD_SIGN_IN = True, False
    settings.BREAK_GLASS_USERNAME = "glass"
    django_user_model.objects.create_user("glass", password="demo")

    answer = client.post(reverse("login"), {"username": "glass", "password": "demo"})

    assert answer.status_code == 200


def test_the_sign_in_page_offers_single_sign_on_when_it_is_on(settings, client) -> None:
    settings.SSO_ENABLED = True
    settings.SSO_PROVIDER_NAME = "Example ID"

    page = client.get(reverse("login"), {"next": "/p/codes/plans/"}).content.decode()

    assert "Sign in with Example ID" in page
    assert f"{reverse('sign-on-start')}?next=/p/codes/plans/" in page.replace("%2F", "/")


def test_the_sign_on_addresses_are_not_found_while_it_is_off(client) -> None:
    assert client.get(reverse("sign-on-start")).status_code == 404
    assert client.get(reverse("sign-on-callback")).status_code == 404


# --- /sign-on/roles/ ---------------------------------------------------------------------------


def test_staff_map_a_claim_value_and_a_second_send_of_the_form_is_refused(staff, client) -> None:
    make_project("codes")
    client.force_login(staff)
    form = {"claim_value": "codes-curators", "project": make_project("codes").pk, "curator": "on"}

    added = client.post(reverse("claim-roles"), form)
    again = client.post(reverse("claim-roles"), form)

    assert added.status_code == 302
    mapping = ClaimRole.objects.get()
    assert (mapping.claim_value, mapping.role_names) == ("codes-curators", {"curator"})
    assert again.status_code == 422
    assert "already mapped" in again.content.decode()
    assert Decision.objects.filter(action="claim_role.add").count() == 1


def test_staff_remove_a_mapping_and_a_second_send_says_it_is_gone(codes, staff, client) -> None:
    client.force_login(staff)
    mapping = ClaimRole.objects.get(claim_value="editors")
    url = reverse("claim-role-remove", kwargs={"pk": mapping.pk})

    first = client.post(url)
    second = client.post(url, follow=True)

    assert first.status_code == 302
    assert not ClaimRole.objects.filter(pk=mapping.pk).exists()
    assert "already removed" in second.content.decode()
    assert Decision.objects.filter(action="claim_role.remove").count() == 1
    assert client.get(url).status_code == 405


def test_someone_who_is_not_staff_may_not_see_or_change_the_mappings(
    codes, client, django_user_model
) -> None:
    lead = django_user_model.objects.create_user("lead")
    member(lead, codes, "lead")
    client.force_login(lead)
    mapping = ClaimRole.objects.first()

    assert client.get(reverse("claim-roles")).status_code == 403
    assert client.post(reverse("claim-role-remove", kwargs={"pk": mapping.pk})).status_code == 403
    assert ClaimRole.objects.filter(pk=mapping.pk).exists()
