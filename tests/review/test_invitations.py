"""Invitations: a lead (or staff) invites an address into a project with roles from its members
page; the link arrives by a real SMTP server, works once until it expires, and makes an account
that is a member with those roles (logged as any membership is) and signs in with its password.
A signed-in person joins with their account. Anyone else may not invite. The waiting ones are
listed on the members page, where a lead withdraws one or resends it (a new link; the old one
then says it was replaced)."""

from __future__ import annotations

import datetime as dt
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from review.models import Decision, Invitation, Membership, SecurityEvent
from review.models.projects import DEFAULT_SLUG
from tests.builders.mail import body_of, free_port, the_link
from tests.builders.users import make_project, member

pytestmark = pytest.mark.django_db

Kind = SecurityEvent.Kind
PASSWORD = "a long and good passphrase"
INVITE = reverse("project-member-invite", args=[DEFAULT_SLUG])


@pytest.fixture
def lead(client, django_user_model) -> User:
    person = django_user_model.objects.create_user("lena", password=PASSWORD)
    member(person, None, "lead")
    client.force_login(person)
    return person


def invite(client: Client, email: str = "new@example.org", *roles: str):
    return client.post(INVITE, {"email": email, **dict.fromkeys(roles, "on")})


def link_path(inbox, count: int = 1) -> str:
    return urlsplit(the_link(inbox.wait_for(count)[-1])).path


def make_account(path: str, username: str = "newton", password: str = PASSWORD, client=None):
    client = client or Client()
    data = {"username": username, "password1": password, "password2": password}
    return client.post(path, data)


def signs_in(username: str, password: str) -> bool:
    response = Client().post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302


def test_an_invited_person_makes_an_account_by_the_mailed_link_and_signs_in_with_it(
    client, lead, smtp_server
) -> None:
    sent = invite(client, "New@Example.ORG", "editor", "curator")

    assert sent.status_code == 302
    (message,) = smtp_server.wait_for(1)
    assert message["To"] == "New@example.org"
    assert "lena invites you" in body_of(message) and "Editor, Curator" in body_of(message)
    path = urlsplit(the_link(message)).path
    page = Client().get(path)
    assert page.status_code == 200 and "Join Default" in page.content.decode()

    joined = make_account(path)

    assert joined.status_code == 302 and joined["Location"] == reverse("dashboard")
    newton = User.objects.get(username="newton")
    assert newton.email == "New@example.org"
    membership = Membership.objects.get(user=newton)
    assert membership.role_names == {"editor", "curator"}
    # Made by the one action that makes memberships, in the inviter's name.
    made = Decision.objects.get(action="membership.add", after__user="newton")
    assert made.actor == lead
    assert signs_in("newton", PASSWORD)
    kinds = SecurityEvent.objects.order_by("pk").values_list("kind", "username", "actor")
    assert (Kind.INVITED, "New@example.org", lead.pk) in kinds
    assert (Kind.INVITATION_ACCEPTED, "newton", lead.pk) in kinds


def test_the_link_works_once(client, lead, smtp_server) -> None:
    invite(client)
    path = link_path(smtp_server)
    make_account(path)

    again = Client().get(path)
    second = make_account(path, "intruder")

    assert again.status_code == 410 and "This invitation was used" in again.content.decode()
    assert second.status_code == 410
    assert not User.objects.filter(username="intruder").exists()


def test_an_expired_link_is_refused_and_says_so(client, lead, smtp_server) -> None:
    invite(client)
    path = link_path(smtp_server)
    Invitation.objects.update(expires_at=timezone.now() - dt.timedelta(minutes=1))

    page = Client().get(path)
    joined = make_account(path)

    assert page.status_code == 410 and "This invitation expired" in page.content.decode()
    assert joined.status_code == 410
    assert not User.objects.filter(username="newton").exists()


def test_the_link_expires_after_the_setting_s_seconds(client, lead, smtp_server, settings):
    settings.INVITATION_EXPIRY_SECONDS = 3600
    before = timezone.now()

    invite(client)

    expires = Invitation.objects.get().expires_at
    assert before + dt.timedelta(hours=1) <= expires <= timezone.now() + dt.timedelta(hours=1)


def test_a_link_nobody_sent_is_not_found() -> None:
    response = Client().get(reverse("invitation", args=["made-up-token"]))

    assert (
        response.status_code == 404 and "No invitation has this link" in response.content.decode()
    )


def test_only_the_token_s_hash_is_kept(client, lead, smtp_server) -> None:
    invite(client)
    token = link_path(smtp_server).rstrip("/").rsplit("/", 1)[-1]

    stored = Invitation.objects.get()

    assert token not in str(Invitation.objects.values().get())
    assert Invitation.objects.with_token(token) == stored


def test_someone_signed_in_joins_with_their_own_account(client, lead, smtp_server) -> None:
    invite(client, "rita@example.org", "moderator")
    path = link_path(smtp_server)
    rita = User.objects.create_user("rita", password=PASSWORD)
    other = make_project("other")
    member(rita, other)
    signed_in = Client()
    signed_in.force_login(rita)

    page = signed_in.get(path)
    joined = signed_in.post(path)

    assert "Join as rita" in page.content.decode()
    assert joined.status_code == 302
    assert Membership.objects.get(user=rita, project__slug=DEFAULT_SLUG).role_names == {"moderator"}
    assert User.objects.count() == 2


def test_a_member_already_there_is_told_so_and_the_link_stays_unused(
    client, lead, smtp_server
) -> None:
    invite(client)
    path = link_path(smtp_server)

    response = client.post(path)

    assert (
        response.status_code == 409 and "a member of Default already" in response.content.decode()
    )
    assert Invitation.objects.get().accepted_at is None


def test_a_lead_may_invite_with_every_role_of_the_project(client, lead, smtp_server) -> None:
    invite(client, "all@example.org", "lead", "editor", "moderator", "curator")
    make_account(link_path(smtp_server))

    membership = Membership.objects.get(user__username="newton")

    assert membership.role_names == {"lead", "editor", "moderator", "curator"}


def test_a_member_who_is_no_lead_may_not_invite_and_a_non_member_finds_no_project(
    client, django_user_model, smtp_server
) -> None:
    editor = django_user_model.objects.create_user("eddie")
    member(editor, None, "editor")
    outsider = django_user_model.objects.create_user("otto")
    member(outsider, make_project("other"), "lead")

    client.force_login(editor)
    refused = invite(client, "new@example.org", "lead")
    client.force_login(outsider)
    hidden = invite(client, "new@example.org", "lead")

    assert refused.status_code == 403
    assert hidden.status_code == 404
    assert not Invitation.objects.exists() and smtp_server.messages == []


def test_staff_invite_into_any_project(client, django_user_model, smtp_server) -> None:
    client.force_login(django_user_model.objects.create_user("stan", is_staff=True))

    assert invite(client).status_code == 302
    assert smtp_server.wait_for(1)


def test_an_invitation_whose_inviter_is_no_longer_a_lead_no_longer_works(
    client, lead, smtp_server
) -> None:
    invite(client)
    path = link_path(smtp_server)
    Membership.objects.filter(user=lead).update(lead=False)

    response = make_account(path)

    assert response.status_code == 410 and "can no longer add members" in response.content.decode()
    assert not User.objects.filter(username="newton").exists()


def test_the_password_validators_hold_for_the_new_account(
    client, lead, smtp_server, settings
) -> None:
    settings.AUTH_PASSWORD_VALIDATORS = [
        {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
        {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    ]
    invite(client, "newton.apple@example.org")
    path = link_path(smtp_server)

    short = make_account(path, password="short")
    like_the_address = make_account(path, password="newton.apple@example")

    assert short.status_code == 422 and "too short" in short.content.decode()
    assert (
        like_the_address.status_code == 422 and "too similar" in like_the_address.content.decode()
    )
    assert not User.objects.filter(username="newton").exists()
    assert Invitation.objects.get().accepted_at is None


def test_a_second_invitation_of_a_waiting_address_is_refused(client, lead, smtp_server) -> None:
    invite(client)

    again = invite(client, "NEW@example.org")

    assert again.status_code == 422 and "is waiting already" in again.content.decode()
    assert Invitation.objects.count() == 1


def test_a_mail_that_cannot_be_sent_keeps_no_invitation(client, lead, settings) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", free_port(), 2

    response = invite(client)

    assert response.status_code == 422 and "could not be sent" in response.content.decode()
    assert not Invitation.objects.exists()
    assert not SecurityEvent.objects.filter(kind=Kind.INVITED).exists()


def test_a_hostile_address_and_project_name_are_escaped_on_the_pages(
    client, lead, smtp_server
) -> None:
    hostile = '"<script>alert(1)</script>"@example.org'
    lead_project = make_project("default")
    lead_project.name = "<b>Evil</b> & co"
    lead_project.save()

    assert invite(client, hostile).status_code == 302
    members = client.get(reverse("project-members", args=[DEFAULT_SLUG])).content.decode()
    page = Client().get(link_path(smtp_server)).content.decode()

    assert "<script>alert(1)" not in members and "&lt;script&gt;alert(1)" in members
    assert "<b>Evil</b>" not in page and "&lt;b&gt;Evil&lt;/b&gt; &amp; co" in page
    # The mail is plain text: the name as written, one line of subject.
    message = smtp_server.wait_for(1)[0]
    assert message["Subject"] == "You are invited to <b>Evil</b> & co on Grounding Review"


def test_the_forms_refuse_a_post_without_its_csrf_token(lead, smtp_server) -> None:
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(lead)

    refused = browser.post(INVITE, {"email": "new@example.org"})
    token = browser.get(reverse("project-members", args=[DEFAULT_SLUG])).cookies["csrftoken"].value
    sent = browser.post(INVITE, {"email": "new@example.org", "csrfmiddlewaretoken": token})
    path = link_path(smtp_server)
    stranger = Client(enforce_csrf_checks=True)
    unjoined = make_account(path, client=stranger)
    form_token = stranger.get(path).cookies["csrftoken"].value
    joined = stranger.post(
        path,
        {
            "username": "newton",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "csrfmiddlewaretoken": form_token,
        },
    )

    assert (refused.status_code, sent.status_code) == (403, 302)
    assert (unjoined.status_code, joined.status_code) == (403, 302)


def waiting(project_slug: str = DEFAULT_SLUG) -> Invitation:
    return Invitation.objects.pending(timezone.now()).get(project__slug=project_slug)


def withdraw(client: Client, invitation: Invitation):
    args = [invitation.project.slug, invitation.pk]
    return client.post(reverse("project-invitation-withdraw", args=args))


def resend(client: Client, invitation: Invitation):
    return client.post(
        reverse("project-invitation-resend", args=[invitation.project.slug, invitation.pk])
    )


def test_the_members_page_lists_a_waiting_invitation_with_who_when_and_until(
    client, lead, smtp_server
) -> None:
    invite(client, "new@example.org", "editor")
    invitation = waiting()

    page = client.get(reverse("project-members", args=[DEFAULT_SLUG])).content.decode()

    row = page[page.index("<td>new@example.org</td>") :].split("</tr>")[0]
    assert "<td>Editor</td>" in row and "<td>lena</td>" in row
    assert f"<td>{invitation.created_at:%Y-%m-%d %H:%M}</td>" in row
    assert f"<td>{invitation.expires_at:%Y-%m-%d %H:%M}</td>" in row
    assert reverse("project-invitation-withdraw", args=[DEFAULT_SLUG, invitation.pk]) in row
    assert reverse("project-invitation-resend", args=[DEFAULT_SLUG, invitation.pk]) in row
    assert "Invitations waiting: 1" in page


def test_a_withdrawn_link_stops_working_and_says_so(client, lead, smtp_server) -> None:
    invite(client)
    path = link_path(smtp_server)
    invitation = waiting()

    response = withdraw(client, invitation)

    assert response.status_code == 302
    page = Client().get(path)
    joined = make_account(path)
    assert page.status_code == 410 and "This invitation was withdrawn" in page.content.decode()
    assert joined.status_code == 410
    assert not User.objects.filter(username="newton").exists()
    event = SecurityEvent.objects.get(kind=Kind.INVITATION_WITHDRAWN)
    assert (event.username, event.actor, event.address) == ("new@example.org", lead, "127.0.0.1")
    assert event.detail.startswith("to default as Reader, sent by lena on ")
    members = client.get(reverse("project-members", args=[DEFAULT_SLUG])).content.decode()
    assert "<td>new@example.org</td>" not in members
    # Withdrawn, the address may be invited again.
    assert invite(client).status_code == 302


def test_a_resent_invitation_mails_a_new_link_and_the_replaced_one_says_to_follow_it(
    client, lead, smtp_server, settings
) -> None:
    invite(client, "new@example.org", "moderator")
    old_path = link_path(smtp_server)
    old = waiting()
    settings.INVITATION_EXPIRY_SECONDS = 3600 * 24 * 30

    response = resend(client, old)

    assert response.status_code == 302
    new_path = link_path(smtp_server, 2)
    assert new_path != old_path
    replaced = Client().get(old_path)
    assert replaced.status_code == 410
    assert "replaced" in replaced.content.decode() and "newest mail" in replaced.content.decode()
    assert make_account(old_path, "intruder").status_code == 410
    new = waiting()
    assert new.expires_at > old.expires_at + dt.timedelta(days=20)
    assert make_account(new_path).status_code == 302
    assert Membership.objects.get(user__username="newton").role_names == {"moderator"}
    event = SecurityEvent.objects.get(kind=Kind.INVITATION_RESENT)
    assert (event.username, event.actor) == ("new@example.org", lead)
    assert "no longer works" in event.detail


def test_a_used_invitation_is_neither_withdrawn_nor_resent(client, lead, smtp_server) -> None:
    invite(client)
    invitation = waiting()
    make_account(link_path(smtp_server))

    withdrawn = withdraw(client, invitation)
    resent = resend(client, invitation)

    assert withdrawn.status_code == 409 and "This invitation was used" in withdrawn.content.decode()
    assert resent.status_code == 409
    assert len(smtp_server.messages) == 1
    assert not SecurityEvent.objects.filter(
        kind__in=[Kind.INVITATION_WITHDRAWN, Kind.INVITATION_RESENT]
    ).exists()


def test_a_resend_whose_mail_cannot_be_sent_leaves_the_old_link_working(
    client, lead, smtp_server, settings
) -> None:
    invite(client)
    path = link_path(smtp_server)
    settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = free_port(), 2

    response = resend(client, waiting())

    assert response.status_code == 422 and "still works" in response.content.decode()
    assert Invitation.objects.count() == 1
    assert make_account(path).status_code == 302
    assert not SecurityEvent.objects.filter(kind=Kind.INVITATION_RESENT).exists()


def test_only_the_project_s_leads_and_staff_withdraw_or_resend(
    client, lead, django_user_model, smtp_server
) -> None:
    invite(client)
    invitation = waiting()
    editor = django_user_model.objects.create_user("eddie")
    member(editor, None, "editor")
    outsider = django_user_model.objects.create_user("otto")
    member(outsider, make_project("other"), "lead")

    client.force_login(editor)
    refused = (withdraw(client, invitation).status_code, resend(client, invitation).status_code)
    client.force_login(outsider)
    hidden = (withdraw(client, invitation).status_code, resend(client, invitation).status_code)
    get = client.get(reverse("project-invitation-withdraw", args=[DEFAULT_SLUG, invitation.pk]))
    client.force_login(django_user_model.objects.create_user("stan", is_staff=True))
    by_staff = withdraw(client, invitation)

    assert refused == (403, 403) and hidden == (404, 404) and get.status_code == 405
    assert by_staff.status_code == 302
    assert Invitation.objects.get().withdrawn_by.username == "stan"
    assert len(smtp_server.messages) == 1


def test_withdrawing_refuses_a_post_without_its_csrf_token(lead, smtp_server) -> None:
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(lead)
    token = browser.get(reverse("project-members", args=[DEFAULT_SLUG])).cookies["csrftoken"].value
    browser.post(INVITE, {"email": "new@example.org", "csrfmiddlewaretoken": token})
    url = reverse("project-invitation-withdraw", args=[DEFAULT_SLUG, waiting().pk])

    refused = browser.post(url)
    withdrawn = browser.post(url, {"csrfmiddlewaretoken": token})

    assert (refused.status_code, withdrawn.status_code) == (403, 302)


def test_the_waiting_list_and_the_link_s_refusal_agree_in_every_state(django_user_model) -> None:
    project, now = make_project(DEFAULT_SLUG), timezone.now()
    hour = dt.timedelta(hours=1)
    newer = Invitation.objects.create(
        project=project, email="b@example.org", token_sha256="n" * 64, expires_at=now + hour
    )
    states = {
        "waiting": {},
        "used": {"accepted_at": now - hour},
        "expired": {"expires_at": now - hour},
        "withdrawn": {"withdrawn_at": now - hour},
        "replaced": {"withdrawn_at": now - hour, "replaced_by": newer},
    }
    for state, fields in states.items():
        invitation = Invitation.objects.create(
            project=project,
            email="a@example.org",
            token_sha256=state.ljust(64, "0"),
            **{"expires_at": now + hour} | fields,
        )
        listed = Invitation.objects.pending(now).filter(pk=invitation.pk).exists()
        assert listed == (invitation.refusal(now) == ""), state
        assert listed == (state == "waiting"), state
