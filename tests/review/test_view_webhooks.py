"""/projects/<slug>/webhooks/: a project's leads and staff register webhooks (the secret shown
once), read each one's delivery log, send a delivery again, disable, enable and delete it; each
change in the project's log. Anyone else is refused, and another project's lead cannot tell an
endpoint exists."""

from __future__ import annotations

import pytest
from django.utils import timezone

from review.models import Decision, Membership, Project, WebhookDelivery, WebhookEndpoint
from review.models import WebhookEvent as Event
from tests.builders.pages import html_of
from tests.builders.webhooks import allow_loopback

pytestmark = pytest.mark.django_db

URL = "http://127.0.0.1:9/hooks"
HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def project():
    return Project.objects.create(name="Building code", slug="code")


@pytest.fixture
def lead(django_user_model, client, project, settings):
    allow_loopback(settings)
    user = django_user_model.objects.create_user("lena", password="demo")
    Membership.objects.create(project=project, user=user, lead=True)
    client.force_login(user)
    return user


def page(project: Project, *rest) -> str:
    return "/".join([f"/projects/{project.slug}/webhooks", *map(str, rest)]) + "/"


def register(client, project, url=URL, events=("entry.decided", "case.settled"), **more):
    return client.post(page(project, "new"), {"url": url, "events": list(events), **more})


def an_endpoint(project, **fields) -> WebhookEndpoint:
    return WebhookEndpoint.objects.create(
        project=project, url=URL, events=["entry.decided"], secret="whsec_AAAA", **fields
    )


def test_a_lead_registers_a_webhook_and_sees_its_secret_only_once(client, lead, project) -> None:
    response = register(client, project, description=HOSTILE)
    assert response.status_code == 201
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.secret.startswith("whsec_")
    assert endpoint.secret in html_of(response)
    assert "no-cache" in response["Cache-Control"]
    assert (endpoint.events, endpoint.created_by) == (["entry.decided", "case.settled"], lead)
    listed = html_of(client.get(page(project)))
    assert endpoint.url in listed and endpoint.secret not in listed
    assert HOSTILE not in listed and "&lt;script&gt;" in listed
    logged = Decision.objects.get(action="webhook.create")
    assert (logged.project_id, logged.actor, logged.object_id) == (
        project.pk,
        lead,
        str(endpoint.pk),
    )
    assert endpoint.secret not in str(logged.after)


def test_an_internal_address_is_refused_at_registration_naming_why(
    client, lead, project, settings
) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    response = register(client, project, url="http://127.0.0.1:8000/admin/")
    assert response.status_code == 422
    assert "127.0.0.1, a loopback address" in html_of(response)
    assert not WebhookEndpoint.objects.exists()


def test_no_event_chosen_or_one_that_is_not_an_event_is_refused(client, lead, project) -> None:
    assert "Choose at least one event" in html_of(register(client, project, events=()))
    response = register(client, project, events=("entry.decided", "plan.deleted"))
    assert response.status_code == 422
    assert not WebhookEndpoint.objects.exists()


def test_the_delivery_log_shows_each_attempt_and_a_failed_one_is_sent_again(
    client, lead, project
) -> None:
    endpoint = an_endpoint(project)
    event = Event.objects.create(project=project, type="entry.decided", at=timezone.now())
    delivery = WebhookDelivery.objects.create(
        endpoint=endpoint,
        event=event,
        status="failed",
        attempts=8,
        next_attempt_at=timezone.now(),
        response_code=500,
        last_error=f"answered 500: {HOSTILE}",
    )
    body = html_of(client.get(page(project, endpoint.pk)))
    assert "Failed" in body and ">8<" in body and "500" in body
    assert HOSTILE not in body
    response = client.post(
        page(project, endpoint.pk, "deliveries", delivery.pk, "redeliver"), {"version": 1}
    )
    assert response.status_code == 302
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.version) == ("pending", 0, 2)
    assert Decision.objects.filter(action="webhook.redeliver", actor=lead).count() == 1
    again = client.post(
        page(project, endpoint.pk, "deliveries", delivery.pk, "redeliver"), {"version": 2}
    )
    assert again.status_code == 422
    assert "waiting to be sent already" in html_of(again)


def test_a_lead_disables_and_enables_a_webhook_and_a_stale_page_is_refused(
    client, lead, project
) -> None:
    endpoint = an_endpoint(project)
    disabled = client.post(page(project, endpoint.pk, "enabled"), {"version": 1, "enabled": "0"})
    assert disabled.status_code == 302
    endpoint.refresh_from_db()
    assert not endpoint.enabled and "Disabled by lena" in endpoint.disabled_reason
    stale = client.post(page(project, endpoint.pk, "enabled"), {"version": 1, "enabled": "1"})
    assert stale.status_code == 409
    client.post(page(project, endpoint.pk, "enabled"), {"version": 2, "enabled": "1"})
    endpoint.refresh_from_db()
    assert (endpoint.enabled, endpoint.disabled_reason, endpoint.version) == (True, "", 3)
    actions = Decision.objects.filter(object_type="webhookendpoint").values_list(
        "action", flat=True
    )
    assert list(actions) == ["webhook.disable", "webhook.enable"]


def test_why_the_worker_disabled_a_webhook_is_shown_to_its_leads(client, lead, project) -> None:
    endpoint = an_endpoint(
        project, enabled=False, disabled_reason="Disabled by the worker: answered 500"
    )
    assert "Disabled by the worker: answered 500" in html_of(client.get(page(project)))
    assert "Disabled by the worker: answered 500" in html_of(client.get(page(project, endpoint.pk)))


def test_a_lead_deletes_a_webhook_and_the_log_keeps_what_it_was(client, lead, project) -> None:
    endpoint = an_endpoint(project)
    response = client.post(page(project, endpoint.pk, "delete"), {"version": 1})
    assert response.status_code == 302
    assert not WebhookEndpoint.objects.exists()
    logged = Decision.objects.get(action="webhook.delete")
    assert logged.before == {"url": URL, "events": ["entry.decided"]}


def test_the_pages_that_change_something_refuse_a_get(client, lead, project) -> None:
    endpoint = an_endpoint(project)
    for rest in (("new",), (endpoint.pk, "enabled"), (endpoint.pk, "delete")):
        assert client.get(page(project, *rest)).status_code == 405


def test_a_member_who_is_not_a_lead_is_refused_and_changes_nothing(
    client, lead, project, django_user_model
) -> None:
    endpoint = an_endpoint(project)
    editor = django_user_model.objects.create_user("edna", password="demo")
    Membership.objects.create(project=project, user=editor, editor=True)
    client.force_login(editor)
    assert client.get(page(project)).status_code == 403
    assert client.get(page(project, endpoint.pk)).status_code == 403
    assert register(client, project).status_code == 403
    response = client.post(page(project, endpoint.pk, "enabled"), {"version": 1, "enabled": "0"})
    assert response.status_code == 403
    endpoint.refresh_from_db()
    assert endpoint.enabled and WebhookEndpoint.objects.count() == 1


def test_another_projects_lead_cannot_tell_a_webhook_exists(
    client, lead, project, django_user_model
) -> None:
    endpoint = an_endpoint(project)
    other = Project.objects.create(name="Other", slug="other")
    other_lead = django_user_model.objects.create_user("olga", password="demo")
    Membership.objects.create(project=other, user=other_lead, lead=True)
    client.force_login(other_lead)
    assert client.get(page(project)).status_code == 404
    # Nor through their own project's address.
    assert client.get(page(other, endpoint.pk)).status_code == 404
    deleting = client.post(page(other, endpoint.pk, "delete"), {"version": 1})
    assert deleting.status_code == 404
    assert endpoint.url not in html_of(client.get(page(other)))
    assert WebhookEndpoint.objects.filter(pk=endpoint.pk).exists()


def test_staff_manage_every_projects_webhooks(client, project, django_user_model, settings) -> None:
    allow_loopback(settings)
    staff = django_user_model.objects.create_user("sam", password="demo", is_staff=True)
    client.force_login(staff)
    assert register(client, project).status_code == 201
    assert client.get(page(project)).status_code == 200


def test_the_members_page_tells_the_leads_a_webhook_is_disabled(client, lead, project) -> None:
    an_endpoint(project)
    assert "disabled)" not in html_of(client.get(f"/projects/{project.slug}/members/"))
    an_endpoint(project, enabled=False, disabled_reason="Disabled by the worker.")
    assert "(1 disabled)" in html_of(client.get(f"/projects/{project.slug}/members/"))
