"""An item page is never kept by the browser: Back after a decision fetches it again, so a
decided row is not shown as it was before (no HTTP cache, and no back-forward cache, which
Chromium does not keep a no-store page in)."""

from __future__ import annotations

import pytest

from tests.builders.cases_answers import make_answer, make_case
from tests.builders.plan_views import make_plan
from tests.builders.urls import url_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("route", ["plan", "plan-curation", "case", "answer"])
def test_an_item_page_tells_the_browser_not_to_store_it(client, django_user_model, route):
    client.force_login(django_user_model.objects.create_user("boss", is_staff=True))
    item = {"plan": make_plan, "plan-curation": make_plan, "case": make_case}.get(
        route, make_answer
    )()

    response = client.get(url_of(route, item.pk))

    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
