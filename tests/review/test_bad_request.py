"""The 400 page: a refused page parameter names itself; other bad requests say only that."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("page", ["/p/default/cases/", "/p/default/answers/", "/p/default/plans/"])
def test_a_broken_cursor_is_named_in_plain_text(client, editor, moderator, page):
    response = client.get(page, {"before": "not-a-cursor"})

    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == "before: 'not-a-cursor' is not a page of this list"


def test_a_request_for_a_host_not_served_says_only_that_it_was_bad(client, editor):
    response = client.get("/p/default/plans/", HTTP_HOST="<b>elsewhere.example</b>")

    assert response.status_code == 400
    assert response.content.decode() == "Bad request."
