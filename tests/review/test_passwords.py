"""Passwords: everyone signed in changes their own; someone who forgot theirs asks for a link
by mail (sent here through a real SMTP server), follows it once, sets a new one and signs in
with it. The page answers the same for an address nobody has; the security log says which."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from review.models import SecurityEvent
from tests.builders.mail import the_link

pytestmark = pytest.mark.django_db

Kind = SecurityEvent.Kind
OLD = "an old and good passphrase"
NEW = "a new and better passphrase"


@pytest.fixture
def ada() -> User:
    return User.objects.create_user("ada", email="ada@example.org", password=OLD)


def signs_in(username: str, password: str) -> bool:
    response = Client().post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302


def logged(kind: str) -> list[tuple[str, str]]:
    return list(
        SecurityEvent.objects.filter(kind=kind).order_by("pk").values_list("username", "detail")
    )


def path_of(link: str) -> str:
    return urlsplit(link).path


def test_the_sign_in_page_links_the_reset_and_the_top_bar_the_change(client, ada) -> None:
    assert reverse("password_reset") in client.get(reverse("login")).content.decode()
    client.force_login(ada)
    assert reverse("password_change") in client.get(reverse("dashboard")).content.decode()


def test_a_person_changes_their_password_and_signs_in_with_the_new_one(client, ada) -> None:
    client.force_login(ada)

    response = client.post(
        reverse("password_change"),
        {"old_password": OLD, "new_password1": NEW, "new_password2": NEW},
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("password_change_done")
    assert signs_in("ada", NEW) and not signs_in("ada", OLD)
    assert logged(Kind.PASSWORD_CHANGED) == [("ada", "changed by its owner, who gave the old one")]


def test_a_wrong_old_password_changes_nothing_and_is_not_logged_as_a_change(client, ada) -> None:
    client.force_login(ada)

    response = client.post(
        reverse("password_change"),
        {"old_password": "not it", "new_password1": NEW, "new_password2": NEW},
    )

    assert response.status_code == 200
    assert "incorrectly" in response.content.decode()
    assert signs_in("ada", OLD)
    assert logged(Kind.PASSWORD_CHANGED) == []


def test_the_change_page_sends_anyone_signed_out_to_sign_in() -> None:
    response = Client().get(reverse("password_change"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_reset_link_arrives_by_smtp_and_sets_a_password_to_sign_in_with(smtp_server, ada) -> None:
    client = Client()

    asked = client.post(reverse("password_reset"), {"email": "ada@example.org"})

    assert asked.status_code == 302 and asked["Location"] == reverse("password_reset_done")
    (message,) = smtp_server.wait_for(1)
    assert message["To"] == "ada@example.org"
    assert "new password" in message["Subject"]
    # The link leads to the form under a token kept in the session, as Django's view does.
    form = client.get(path_of(the_link(message)), follow=True)
    assert form.status_code == 200 and "Choose a new password" in form.content.decode()
    set_url = form.redirect_chain[-1][0]
    done = client.post(set_url, {"new_password1": NEW, "new_password2": NEW})

    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")
    assert signs_in("ada", NEW) and not signs_in("ada", OLD)
    assert logged(Kind.PASSWORD_RESET_ASKED) == [("ada", "ada@example.org")]
    assert logged(Kind.PASSWORD_CHANGED) == [("ada", "set by a mailed reset link")]


def test_a_reset_link_works_once(smtp_server, ada) -> None:
    Client().post(reverse("password_reset"), {"email": "ada@example.org"})
    link = path_of(the_link(smtp_server.wait_for(1)[0]))
    first = Client()
    set_url = first.get(link, follow=True).redirect_chain[-1][0]
    first.post(set_url, {"new_password1": NEW, "new_password2": NEW})

    again = Client().get(link, follow=True)

    assert again.status_code == 200
    assert "This link no longer works" in again.content.decode()
    assert "new_password1" not in again.content.decode()
    assert signs_in("ada", NEW)


def test_an_unknown_address_gets_the_same_answer_and_no_mail(smtp_server, ada) -> None:
    known = Client().post(reverse("password_reset"), {"email": "ada@example.org"})
    unknown = Client().post(reverse("password_reset"), {"email": "nobody@example.org"})

    assert (unknown.status_code, unknown["Location"]) == (known.status_code, known["Location"])
    page = Client().get(unknown["Location"])
    assert "If an account has that address" in page.content.decode()
    assert [message["To"] for message in smtp_server.wait_for(1)] == ["ada@example.org"]
    assert logged(Kind.PASSWORD_RESET_ASKED)[1] == (
        "",
        "nobody@example.org: no account can be reset by this address, nothing was sent",
    )


def test_a_reset_asked_while_the_mail_server_is_down_answers_as_ever(settings, ada) -> None:
    """Django logs the failure instead of raising it: a 500 for known addresses only would tell
    which addresses have an account."""
    from tests.builders.mail import free_port

    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", free_port(), 2

    response = Client().post(reverse("password_reset"), {"email": "ada@example.org"})

    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")


def test_the_reset_form_refuses_a_post_without_its_csrf_token(ada) -> None:
    client = Client(enforce_csrf_checks=True)

    refused = client.post(reverse("password_reset"), {"email": "ada@example.org"})
    page = client.get(reverse("password_reset"))
    token = page.cookies["csrftoken"].value
    sent = client.post(
        reverse("password_reset"), {"email": "ada@example.org", "csrfmiddlewaretoken": token}
    )

    assert refused.status_code == 403
    assert sent.status_code == 302
