"""Who the cases and answers lists offer "Next" to: whoever the queue would hand an item,
curators included (they take disagreements from the same Next), and nobody else."""

import pytest

from tests.builders.urls import url_of

pytestmark = pytest.mark.django_db

LISTS = [("cases", "cases-next"), ("answers", "answers-next")]
DECIDES = {"cases": "moderator", "answers": "editor"}


@pytest.mark.parametrize(("page", "next_route"), LISTS)
@pytest.mark.parametrize("role", ["decides", "curator"])
def test_a_person_the_queue_serves_is_offered_next(request, client, page, next_route, role):
    who = DECIDES[page] if role == "decides" else role
    request.getfixturevalue(who)

    html = client.get(url_of(page)).content.decode()

    assert f'action="{url_of(next_route)}"' in html
    assert "review-next" not in html and "Review next" not in html


@pytest.mark.parametrize(("page", "next_route"), LISTS)
def test_a_reader_is_not_offered_next(client, reader, page, next_route):
    html = client.get(url_of(page)).content.decode()

    assert f'action="{url_of(next_route)}"' not in html
