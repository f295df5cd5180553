"""Webhooks through the real worker: `manage.py db_worker` in a subprocess on the tests' own
database, sending to a real receiver on 127.0.0.1. Nothing is sent by the request that decided;
a 500 is retried by the worker's sweep; and a worker killed mid-delivery loses nothing: once its
lease lapses, the worker started again sends the same message (the same `webhook-id`)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from django_tasks_db.models import DBTaskResult
from standardwebhooks import Webhook

from review.models import WebhookDelivery
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.receiver import running_receiver
from tests.builders.users import user_in
from tests.builders.webhooks import accept, allow_loopback, endpoint_to
from tests.builders.worker import DATABASE_TASKS, ROOT, WORKER_SECONDS, worker_env

pytestmark = pytest.mark.django_db(transaction=True)

# The worker's settings, from its environment: loopback allowed (the receiver's), retries and
# the sweep a second apart, and a short timeout, so its lease lapses in 4 × 2 + 5 seconds.
WORKER_ENV = {
    "REVIEW_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
    "REVIEW_WEBHOOK_RETRY_SECONDS": "1,1,1",
    "REVIEW_WEBHOOK_SWEEP_SECONDS": "1",
    "REVIEW_WEBHOOK_TIMEOUT_SECONDS": "2",
}


@pytest.fixture
def lead(django_user_model, settings):
    settings.TASKS = DATABASE_TASKS
    allow_loopback(settings)
    return user_in(django_user_model, "lead", "Leads")


def start_worker() -> subprocess.Popen:
    return subprocess.Popen(  # noqa: S603 - our own manage.py with arguments we chose
        [
            sys.executable,
            "manage.py",
            "db_worker",
            "--no-startup-delay",
            "--no-reload",
            "--interval",
            "0.2",
        ],
        cwd=ROOT,
        env={**worker_env(), **WORKER_ENV},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def stop(worker: subprocess.Popen, how: int = signal.SIGTERM) -> None:
    if worker.poll() is None:
        os.kill(worker.pid, how)
    worker.wait(timeout=WORKER_SECONDS)
    worker.stderr.close()


def wait_until_delivered() -> WebhookDelivery:
    deadline = time.monotonic() + WORKER_SECONDS
    while (delivery := WebhookDelivery.objects.get()).status != "delivered":
        assert time.monotonic() < deadline, f"not delivered: {delivery.last_error}"
        time.sleep(0.2)
    return delivery


def test_the_worker_sends_after_the_commit_and_retries_a_500(lead, editor) -> None:
    plan = make_plan(2)
    with running_receiver(answers=[500]) as receiver:
        _, secret = endpoint_to(receiver.url, plan.project, lead)
        accept(entries_of(plan)[0], editor)
        # The request that decided sent nothing; it queued the worker's task.
        assert receiver.requests == []
        assert DBTaskResult.objects.filter(status="READY").count() == 1
        worker = start_worker()
        try:
            delivery = wait_until_delivered()
        finally:
            stop(worker)
    assert [request.answered for request in receiver.requests] == [500, 200]
    first, second = receiver.requests
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    assert Webhook(secret).verify(second.body, second.headers)["type"] == "entry.decided"
    assert (delivery.attempts, delivery.response_code) == (2, 200)


def test_a_worker_killed_mid_delivery_loses_nothing(lead, editor) -> None:
    plan = make_plan(2)
    with running_receiver(held=True) as receiver:
        _, secret = endpoint_to(receiver.url, plan.project, lead)
        accept(entries_of(plan)[0], editor)
        worker = start_worker()
        try:
            receiver.wait_for(1)
        finally:
            # Killed while the receiver holds its request, before any answer.
            stop(worker, signal.SIGKILL)
        assert WebhookDelivery.objects.get().status == "pending"
        receiver.release()
        worker = start_worker()
        try:
            delivery = wait_until_delivered()
        finally:
            stop(worker)
    first, *_, last = receiver.requests
    assert first.headers["webhook-id"] == last.headers["webhook-id"]
    assert Webhook(secret).verify(last.body, last.headers)["data"]["actor"] == "editor"
    assert delivery.attempts == len(receiver.requests) == 2
