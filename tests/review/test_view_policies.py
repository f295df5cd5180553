"""/policies/: staff set each queue's review policy; the change is logged."""

from __future__ import annotations

import pytest

from review.models import Decision, ReviewPolicy

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(sign_in):
    user = sign_in("boss")
    user.is_staff = True
    user.save()
    return user


def form(**fields) -> dict:
    values = {"mode": "double", "share_percent": 25, "seed": "s", "version": 1}
    values.update(fields)
    return {f"cases-{name}": value for name, value in values.items()}


def test_staff_set_double_review_for_a_share_and_the_change_is_logged(client, staff):
    response = client.post(
        "/policies/cases/", form(reasons="no_citations, uncited_claims", on_overturn="on")
    )

    assert response.status_code == 302
    policy = ReviewPolicy.objects.get(queue="cases")
    assert (policy.mode, policy.share_percent, policy.on_overturn) == ("double", 25, True)
    assert policy.reasons == ["no_citations", "uncited_claims"]
    [logged] = Decision.objects.filter(action="policy.set")
    assert (logged.actor_name, logged.before["mode"], logged.after["mode"]) == (
        "boss",
        "single",
        "double",
    )


def test_the_page_shows_every_queue_to_staff(client, staff):
    body = client.get("/policies/").content.decode()

    for queue in ("plans", "cases", "answers"):
        assert f'action="/policies/{queue}/"' in body


def test_a_share_over_a_hundred_is_refused_with_the_field_named(client, staff):
    response = client.post("/policies/cases/", form(share_percent=150))

    assert response.status_code == 422
    assert "less than or equal to 100" in response.content.decode()
    assert not ReviewPolicy.objects.exists()


def test_a_stale_version_is_refused_rather_than_overwriting(client, staff):
    client.post("/policies/cases/", form())

    response = client.post("/policies/cases/", form(share_percent=90, version=1))

    assert response.status_code == 422
    assert ReviewPolicy.objects.get(queue="cases").share_percent == 25


@pytest.mark.parametrize("path", ["/policies/", "/policies/cases/"])
def test_a_moderator_may_not_see_or_set_policies(client, moderator, path):
    response = client.get(path) if path == "/policies/" else client.post(path, form())

    assert response.status_code == 403
    assert not ReviewPolicy.objects.exists()


def test_an_unknown_queue_is_not_found(client, staff):
    assert client.post("/policies/nothing/", form()).status_code == 404
