"""Two-factor sign-in: enrolling an authenticator on /account/ (its secret shown, confirmed
with a code, ten recovery codes shown once), the code asked after the password before any
page, recovery codes that work once, wrong codes counted as failed sign-ins, removing it,
and the requirement, site-wide and per project. Every code is computed here from the
device's own key, as an authenticator app computes it."""

from __future__ import annotations

import base64
import re
import time

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django_otp.oath import TOTP
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from review.models import Decision, SecurityEvent
from tests.builders.users import make_project, member

pytestmark = pytest.mark.django_db

Kind = SecurityEvent.Kind
PASSWORD = "a long and good passphrase"
LIMIT = 3


@pytest.fixture(autouse=True)
def _limit(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT


@pytest.fixture
def ada() -> User:
    return User.objects.create_user("ada", password=PASSWORD)


def code_for(device: TOTPDevice, steps_ahead: int = 0) -> str:
    """What an app holding the device's key shows now (or `steps_ahead` steps on: a code
    is taken once, so a second sign-in within the same 30 seconds needs the next one)."""
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time() + steps_ahead * device.step
    return f"{totp.token():0{device.digits}d}"


def signed_in_with_password(user: User) -> Client:
    client = Client(REMOTE_ADDR="192.0.2.1")
    response = client.post(reverse("login"), {"username": user.username, "password": PASSWORD})
    assert response.status_code == 302
    return client


def enrol(client: Client) -> tuple[TOTPDevice, list[str]]:
    """Enrol through the pages; the device and the recovery codes the page shows."""
    client.post(reverse("second-factor-start"))
    device = TOTPDevice.objects.get(confirmed=False)
    response = client.post(reverse("second-factor-confirm"), {"code": code_for(device)})
    assert response.status_code == 200
    device.refresh_from_db()
    codes = re.findall(r"<li><code>([a-z2-7]+)</code></li>", response.content.decode())
    return device, codes


def details(username: str = "ada") -> list[str]:
    events = SecurityEvent.objects.filter(kind=Kind.SECOND_FACTOR, username=username)
    return list(events.order_by("pk").values_list("detail", flat=True))


def test_enrolment_shows_the_secret_then_asks_a_code_then_shows_ten_recovery_codes(ada):
    client = signed_in_with_password(ada)
    assert client.post(reverse("second-factor-start")).url == reverse("account")
    device = TOTPDevice.objects.get(user=ada)
    assert not device.confirmed
    page = client.get(reverse("account")).content.decode()
    secret = base64.b32encode(device.bin_key).decode().rstrip("=")
    assert secret in page
    assert "otpauth://totp/" in page

    response = client.post(reverse("second-factor-confirm"), {"code": code_for(device)})

    device.refresh_from_db()
    assert device.confirmed
    codes = re.findall(r"<li><code>([a-z2-7]+)</code></li>", response.content.decode())
    assert len(codes) == 10
    assert sorted(codes) == sorted(StaticToken.objects.values_list("token", flat=True))
    assert response.headers["Cache-Control"].startswith("max-age=0")
    # Shown once: the account page after it names how many are left, not the codes.
    again = client.get(reverse("account")).content.decode()
    assert codes[0] not in again and "Recovery codes left: 10" in again
    assert details() == ["enrolment started", "authenticator enrolled, 10 recovery codes made"]


def test_a_wrong_code_does_not_confirm_the_enrolment(ada):
    client = signed_in_with_password(ada)
    client.post(reverse("second-factor-start"))
    device = TOTPDevice.objects.get(user=ada)
    wrong = f"{(int(code_for(device)) + 1) % 1_000_000:06d}"

    response = client.post(reverse("second-factor-confirm"), {"code": wrong})

    assert response.status_code == 422
    assert "not the code your app shows now" in response.content.decode()
    device.refresh_from_db()
    assert not device.confirmed
    assert not StaticToken.objects.exists()


def test_starting_an_enrolment_is_a_post(ada):
    client = signed_in_with_password(ada)
    assert client.get(reverse("second-factor-start")).status_code == 405
    assert not TOTPDevice.objects.exists()


def test_after_the_password_no_page_opens_until_the_code_is_given(ada):
    device, _ = enrol(signed_in_with_password(ada))
    client = signed_in_with_password(ada)

    for name in ("dashboard", "account", "tokens", "password_change"):
        response = client.get(reverse(name))
        assert response.status_code == 302, name
        assert response.url == f"{reverse('second-factor')}?next={reverse(name)}"
    assert client.get("/admin/").url.startswith(reverse("second-factor"))
    code_page = client.get(reverse("second-factor"))
    # No header: no project's name shows before the code.
    assert code_page.status_code == 200 and 'class="topbar"' not in code_page.content.decode()

    response = client.post(
        reverse("second-factor"), {"code": code_for(device, 1), "next": reverse("tokens")}
    )

    assert response.url == reverse("tokens")
    assert client.get(reverse("dashboard")).status_code == 200
    assert details()[-1] == "signed in with an authenticator code"


def test_signing_out_is_open_before_the_code(ada):
    enrol(signed_in_with_password(ada))
    client = signed_in_with_password(ada)
    assert client.post(reverse("logout")).url == reverse("login")
    assert client.get(reverse("dashboard")).url.startswith(reverse("login"))


def test_a_project_page_is_not_reached_before_the_code_either(ada):
    member(ada, make_project("north"))
    enrol(signed_in_with_password(ada))
    client = signed_in_with_password(ada)
    response = client.get(reverse("plans", kwargs={"project": "north"}))
    assert response.url.startswith(reverse("second-factor"))


def test_a_recovery_code_lets_one_in_once(ada):
    _, codes = enrol(signed_in_with_password(ada))
    first = signed_in_with_password(ada)
    assert first.post(reverse("second-factor"), {"code": codes[0]}).url == "/"
    assert details()[-1] == "signed in with a recovery code, 9 left"

    second = signed_in_with_password(ada)
    response = second.post(reverse("second-factor"), {"code": codes[0]})

    assert response.status_code == 422
    assert second.get(reverse("dashboard")).url.startswith(reverse("second-factor"))


def test_a_wrong_code_is_refused_and_counted_as_a_failed_sign_in(ada):
    device, _ = enrol(signed_in_with_password(ada))
    client = signed_in_with_password(ada)
    wrong = f"{(int(code_for(device, 1)) + 1) % 1_000_000:06d}"
    failed_before = SecurityEvent.objects.filter(kind=Kind.SIGN_IN_FAILED).count()

    response = client.post(reverse("second-factor"), {"code": wrong})

    assert response.status_code == 422
    assert client.get(reverse("dashboard")).url.startswith(reverse("second-factor"))
    failed = SecurityEvent.objects.filter(kind=Kind.SIGN_IN_FAILED, username="ada")
    assert failed.count() == failed_before + 1


def test_wrong_codes_up_to_the_limit_lock_the_account_out_and_sign_out(ada):
    enrol(signed_in_with_password(ada))
    client = signed_in_with_password(ada)
    for _ in range(LIMIT - 1):
        assert client.post(reverse("second-factor"), {"code": "not-a-code"}).status_code == 422

    response = client.post(reverse("second-factor"), {"code": "not-a-code"})

    assert response.status_code == 429
    assert client.get(reverse("dashboard")).url.startswith(reverse("login"))
    assert SecurityEvent.objects.filter(kind=Kind.LOCKED_OUT, username="ada").exists()
    # The right password is refused now too.
    again = Client(REMOTE_ADDR="192.0.2.1")
    refused = again.post(reverse("login"), {"username": "ada", "password": PASSWORD})
    assert refused.status_code == 429


def test_the_second_factor_is_removed_with_the_password_or_a_code_not_a_wrong_one(ada):
    device, _ = enrol(client := signed_in_with_password(ada))
    remove = reverse("second-factor-remove")

    assert client.post(remove, {"code_or_password": "wrong"}).status_code == 422
    assert TOTPDevice.objects.filter(user=ada).exists()
    assert client.post(remove, {"code_or_password": PASSWORD}).url == reverse("account")
    assert not TOTPDevice.objects.filter(user=ada).exists()
    assert not StaticToken.objects.exists()
    assert details()[-1] == "second factor removed"
    # Signing in again takes the password alone.
    assert signed_in_with_password(ada).get(reverse("dashboard")).status_code == 200


def test_the_second_factor_is_removed_with_a_current_code(ada):
    device, _ = enrol(client := signed_in_with_password(ada))
    response = client.post(
        reverse("second-factor-remove"), {"code_or_password": code_for(device, 1)}
    )
    assert response.url == reverse("account")
    assert not TOTPDevice.objects.filter(user=ada).exists()


def test_required_site_wide_one_enrols_before_anything_else(ada, settings):
    settings.REQUIRE_SECOND_FACTOR = True
    client = signed_in_with_password(ada)

    assert client.get(reverse("dashboard")).url == reverse("account")
    assert client.get(reverse("tokens")).url == reverse("account")
    account = client.get(reverse("account"))
    assert account.status_code == 200
    assert "asks everyone for a second factor" in account.content.decode()

    enrol(client)

    assert client.get(reverse("dashboard")).status_code == 200


def test_not_required_one_goes_on_without_a_second_factor(ada):
    client = signed_in_with_password(ada)
    assert client.get(reverse("dashboard")).status_code == 200


def test_a_project_that_requires_it_sends_its_members_to_enrol_before_its_pages(ada):
    north, south = make_project("north"), make_project("south")
    north.require_second_factor = True
    north.save()
    member(ada, north)
    member(ada, south)
    client = signed_in_with_password(ada)

    assert client.get(reverse("plans", kwargs={"project": "north"})).url == reverse("account")
    assert client.get(reverse("plans", kwargs={"project": "south"})).status_code == 200
    assert client.get(reverse("dashboard")).status_code == 200

    enrol(client)

    assert client.get(reverse("plans", kwargs={"project": "north"})).status_code == 200


def test_staff_set_a_projects_requirement_on_its_members_page(django_user_model):
    north = make_project("north")
    staff = django_user_model.objects.create_user("sam", password=PASSWORD, is_staff=True)
    client = signed_in_with_password(staff)
    url = reverse("project-second-factor", kwargs={"slug": "north"})

    page = client.get(reverse("project-members", kwargs={"slug": "north"})).content.decode()
    assert f'action="{url}"' in page
    assert client.post(url, {"require_second_factor": "on"}).status_code == 302

    north.refresh_from_db()
    assert north.require_second_factor
    logged = Decision.objects.get(action="project.second_factor")
    assert logged.after == {"require_second_factor": True}

    client.post(url, {})
    north.refresh_from_db()
    assert not north.require_second_factor


def test_a_lead_cannot_lift_their_projects_requirement(ada):
    north = make_project("north")
    north.require_second_factor = True
    north.save()
    member(ada, north, "lead")
    enrol(client := signed_in_with_password(ada))
    url = reverse("project-second-factor", kwargs={"slug": "north"})

    assert client.post(url, {}).status_code == 403
    north.refresh_from_db()
    assert north.require_second_factor
    members_page = client.get(reverse("project-members", kwargs={"slug": "north"}))
    assert f'action="{url}"' not in members_page.content.decode()


RESET = reverse("second-factor-reset")


@pytest.fixture
def staff(django_user_model) -> User:
    return django_user_model.objects.create_user("sam", password=PASSWORD, is_staff=True)


def reset_by(client: Client, username: str = "ada", reason: str = "lost phone, seen in person"):
    return client.post(RESET, {"username": username, "reason": reason})


def test_staff_reset_a_lost_second_factor_with_a_reason_and_the_persons_sessions_end(ada, staff):
    device, _ = enrol(first := signed_in_with_password(ada))
    second = signed_in_with_password(ada)
    second.post(reverse("second-factor"), {"code": code_for(device, 1)})
    assert second.get(reverse("dashboard")).status_code == 200
    staff_client = signed_in_with_password(staff)

    response = reset_by(staff_client)

    assert response.url == f"{reverse('security-log')}?username=ada"
    assert not TOTPDevice.objects.filter(user=ada).exists()
    assert not StaticToken.objects.exists()
    event = SecurityEvent.objects.get(kind=Kind.SECOND_FACTOR_RESET)
    assert (event.username, event.actor, event.address) == ("ada", staff, "192.0.2.1")
    assert event.detail == (
        "authenticator and recovery codes removed, 2 sessions ended: lost phone, seen in person"
    )
    for client in (first, second):
        assert client.get(reverse("dashboard")).url.startswith(reverse("login"))
    assert staff_client.get(reverse("dashboard")).status_code == 200
    # Nothing else asks for a code: the password alone signs in.
    assert signed_in_with_password(ada).get(reverse("dashboard")).status_code == 200


@pytest.mark.parametrize("where", ["site", "project"])
def test_after_a_reset_a_required_second_factor_is_enrolled_again_first(
    ada, staff, settings, where
):
    north = make_project("north")
    member(ada, north)
    enrol(signed_in_with_password(ada))
    assert reset_by(signed_in_with_password(staff)).status_code == 302
    if where == "site":
        settings.REQUIRE_SECOND_FACTOR = True
    else:
        north.require_second_factor = True
        north.save()

    client = signed_in_with_password(ada)

    assert client.get(reverse("plans", kwargs={"project": "north"})).url == reverse("account")
    enrol(client)
    assert client.get(reverse("plans", kwargs={"project": "north"})).status_code == 200


def test_only_staff_reset_a_second_factor(ada, django_user_model):
    north = make_project("north")
    enrol(signed_in_with_password(ada))
    lead = django_user_model.objects.create_user("lena", password=PASSWORD)
    member(lead, north, "lead")
    member(ada, north)
    client = signed_in_with_password(lead)

    assert client.get(RESET).status_code == 403
    assert reset_by(client).status_code == 403
    assert TOTPDevice.objects.filter(user=ada, confirmed=True).exists()
    assert not SecurityEvent.objects.filter(kind=Kind.SECOND_FACTOR_RESET).exists()


@pytest.mark.parametrize(
    ("username", "reason", "says"),
    [
        ("ada", "   ", "This field is required"),
        ("nobody", "asked", "No account is named “nobody”"),
        ("sam", "asked", "Remove your own second factor on your account page"),
        ("bo", "asked", "bo has no second factor to reset"),
    ],
    ids=["no reason", "unknown", "own", "none to reset"],
)
def test_a_reset_that_cannot_be_made_is_refused_with_the_reason(
    ada, staff, django_user_model, username, reason, says
):
    django_user_model.objects.create_user("bo")
    enrol(signed_in_with_password(ada))
    enrol(client := signed_in_with_password(staff))

    response = reset_by(client, username, reason)

    assert response.status_code == 422 and says in response.content.decode()
    assert TOTPDevice.objects.filter(confirmed=True).count() == 2
    assert not SecurityEvent.objects.filter(kind=Kind.SECOND_FACTOR_RESET).exists()


def test_a_reset_is_refused_without_its_csrf_token(ada, staff):
    enrol(signed_in_with_password(ada))
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(staff)

    refused = reset_by(browser)
    token = browser.get(RESET).cookies["csrftoken"].value
    done = browser.post(RESET, {"username": "ada", "reason": "r", "csrfmiddlewaretoken": token})

    assert (refused.status_code, done.status_code) == (403, 302)


def test_the_security_log_narrowed_to_a_person_with_a_second_factor_links_its_reset(ada, staff):
    enrol(signed_in_with_password(ada))
    client = signed_in_with_password(staff)
    log = reverse("security-log")

    theirs = client.get(log, {"username": "ada"}).content.decode()
    staffs = client.get(log, {"username": "sam"}).content.decode()
    page = client.get(RESET, {"username": "ada"}).content.decode()

    assert f'href="{RESET}?username=ada"' in theirs
    assert f'href="{RESET}?username=' not in staffs
    assert 'value="ada"' in page
