"""Sending webhooks to a real HTTP receiver on 127.0.0.1 (the worker's task, run here in the
test's own process): signed so that the Standard Webhooks package's own verifier accepts it,
retried after a 500 or while the receiver is down, each endpoint's events in order, refused at
an address the guard refuses, and the endpoint disabled after the last retry."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from standardwebhooks import Webhook

from review.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from review.webhooks.delivery import send_webhooks
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.receiver import closed_port_url, running_receiver
from tests.builders.users import user_in
from tests.builders.webhooks import accept, allow_loopback, endpoint_to

pytestmark = pytest.mark.django_db


@pytest.fixture
def lead(django_user_model, settings):
    allow_loopback(settings)
    # A retry is due at once, so each run of the task is the next attempt.
    settings.WEBHOOK_RETRY_SECONDS = (0, 0)
    settings.WEBHOOK_TIMEOUT_SECONDS = 2
    return user_in(django_user_model, "lead", "Leads")


def due_now() -> None:
    WebhookDelivery.objects.update(next_attempt_at=timezone.now())


def test_a_delivery_is_signed_so_the_packages_own_verifier_accepts_it(lead, editor) -> None:
    plan = make_plan(2)
    with running_receiver() as receiver:
        _, secret = endpoint_to(receiver.url, plan.project, lead)
        decision = accept(entries_of(plan)[0], editor)
        assert send_webhooks.call() == 1
        (request,) = receiver.wait_for(1)
    payload = Webhook(secret).verify(request.body, request.headers)
    event = WebhookEvent.objects.get()
    assert request.headers["webhook-id"] == f"msg_{event.pk}"
    assert payload["type"] == "entry.decided"
    assert payload["data"]["decision"] == decision.pk
    assert payload["data"]["actor"] == "editor"
    assert payload["data"]["url"] == f"http://127.0.0.1:8000/api/projects/default/plans/{plan.pk}"
    with pytest.raises(Exception, match="No matching signature"):
        Webhook("whsec_" + "A" * 32).verify(request.body, request.headers)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.response_code, delivery.attempts) == ("delivered", 200, 1)


def test_after_a_500_it_is_sent_again_and_delivered_once(lead, editor) -> None:
    plan = make_plan(2)
    with running_receiver(answers=[500]) as receiver:
        endpoint_to(receiver.url, plan.project, lead)
        accept(entries_of(plan)[0], editor)
        send_webhooks.call()
        delivery = WebhookDelivery.objects.get()
        assert (delivery.status, delivery.response_code) == ("pending", 500)
        assert "answered 500" in delivery.last_error
        assert WebhookEndpoint.objects.get().failing_since is not None
        send_webhooks.call()
        first, second = receiver.wait_for(2)
        send_webhooks.call()  # nothing is left to send
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    assert [request.answered for request in receiver.requests] == [500, 200]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("delivered", 2, 200)
    assert WebhookEndpoint.objects.get().failing_since is None


def test_while_the_receiver_is_down_it_is_retried_until_it_answers(lead, editor) -> None:
    plan = make_plan(2)
    endpoint, _ = endpoint_to(closed_port_url(), plan.project, lead)
    accept(entries_of(plan)[0], editor)
    send_webhooks.call()
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("pending", 1, None)
    assert "ConnectError" in delivery.last_error
    with running_receiver() as receiver:
        WebhookEndpoint.objects.filter(pk=endpoint.pk).update(url=receiver.url)
        send_webhooks.call()
        receiver.wait_for(1)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("delivered", 2)


def test_an_endpoint_gets_its_events_in_order_a_later_one_waiting_for_an_earlier(
    lead, editor
) -> None:
    plan = make_plan(3)
    first, second, third = entries_of(plan)[:3]
    with running_receiver(answers=[503]) as receiver:
        endpoint_to(receiver.url, plan.project, lead)
        for entry in (first, second, third):
            accept(entry, editor)
        send_webhooks.call()
        # The first failed: the two after it were not sent past it.
        assert len(receiver.requests) == 1
        assert WebhookDelivery.objects.filter(status="pending").count() == 3
        due_now()
        send_webhooks.call()
        receiver.wait_for(4)
    ids = [json.loads(request.body)["data"]["event"] for request in receiver.requests]
    events = list(WebhookEvent.objects.order_by("pk").values_list("pk", flat=True))
    assert ids == [events[0], *events]


def test_an_address_refused_at_delivery_is_not_sent_to(lead, editor, settings) -> None:
    plan = make_plan(2)
    with running_receiver() as receiver:
        endpoint_to(receiver.url, plan.project, lead)
        # Registered while loopback was allowed; staff have taken it back since (or the
        # host's DNS now answers with an internal address).
        settings.WEBHOOK_ALLOWED_NETWORKS = []
        accept(entries_of(plan)[0], editor)
        send_webhooks.call()
        assert receiver.requests == []
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "pending"
    assert "127.0.0.1, a loopback address" in delivery.last_error


def test_a_redirect_is_not_followed(lead, editor) -> None:
    plan = make_plan(2)
    with running_receiver(redirect_to="http://169.254.169.254/") as receiver:
        endpoint_to(receiver.url, plan.project, lead)
        accept(entries_of(plan)[0], editor)
        send_webhooks.call()
        assert len(receiver.requests) == 1
    delivery = WebhookDelivery.objects.get()
    assert (delivery.status, delivery.response_code) == ("pending", 307)
    assert "redirect" in delivery.last_error


def test_after_the_last_retry_the_delivery_failed_and_the_endpoint_is_disabled_saying_why(
    lead, editor
) -> None:
    plan = make_plan(3)
    first, second = entries_of(plan)[:2]
    with running_receiver(answers=[500, 500, 500]) as receiver:
        endpoint, _ = endpoint_to(receiver.url, plan.project, lead)
        accept(first, editor)
        accept(second, editor)
        for _ in range(3):
            send_webhooks.call()
        assert len(receiver.requests) == 3  # the first attempt and the two retries
        send_webhooks.call()
        assert len(receiver.requests) == 3
    endpoint.refresh_from_db()
    assert not endpoint.enabled
    assert endpoint.version == 2
    assert "failed 3 attempts" in endpoint.disabled_reason
    assert "answered 500" in endpoint.disabled_reason
    statuses = WebhookDelivery.objects.order_by("event_id").values_list("status", flat=True)
    assert list(statuses) == ["failed", "pending"]


def test_an_endpoint_another_worker_holds_is_left_to_it_until_its_lease_lapses(
    lead, editor
) -> None:
    plan = make_plan(2)
    with running_receiver() as receiver:
        endpoint, _ = endpoint_to(receiver.url, plan.project, lead)
        accept(entries_of(plan)[0], editor)
        held = WebhookEndpoint.objects.filter(pk=endpoint.pk)
        held.update(claimed_until=timezone.now() + timedelta(minutes=1))
        assert send_webhooks.call() == 0
        assert receiver.requests == []
        # That worker was killed: its lease lapses, and the delivery is this worker's.
        held.update(claimed_until=timezone.now() - timedelta(seconds=1))
        assert send_webhooks.call() == 1
        receiver.wait_for(1)
    assert WebhookDelivery.objects.get().status == "delivered"
    assert held.get().claimed_until is None


def test_the_command_sends_what_is_due_as_the_sweep_does(lead, editor) -> None:
    plan = make_plan(2)
    with running_receiver(answers=[500]) as receiver:
        endpoint_to(receiver.url, plan.project, lead)
        accept(entries_of(plan)[0], editor)
        out = io.StringIO()
        call_command("send_webhooks", stdout=out)
        assert out.getvalue() == "attempted 1 deliveries; 1 pending\n"
        call_command("send_webhooks", stdout=out)
        receiver.wait_for(2)
    assert out.getvalue().endswith("attempted 1 deliveries; 0 pending\n")


def test_a_host_name_is_sent_to_the_address_checked_with_its_own_host_header(lead, editor) -> None:
    plan = make_plan(2)
    with running_receiver() as receiver:
        port = receiver.server.server_address[1]
        endpoint_to(f"http://localhost:{port}/hooks?from=review", plan.project, lead)
        accept(entries_of(plan)[0], editor)
        send_webhooks.call()
        (request,) = receiver.wait_for(1)
    assert request.headers["host"] == f"localhost:{port}"
    assert request.path == "/hooks?from=review"
