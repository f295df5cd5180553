"""/api/docs: the API's reference for anyone signed in, drawn by Swagger UI from the served
schema with files of this origin only, and linked from the top bar and the tokens page."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from tests.builders.pages import policy_of

pytestmark = pytest.mark.django_db


def test_the_reference_answers_a_reader_and_points_swagger_ui_at_the_served_schema(
    client: Client, reader
) -> None:
    response = client.get(reverse("openapi-reference"))

    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-openapi-url="{reverse("api:openapi-json")}"' in html
    assert client.get(reverse("api:openapi-json")).status_code == 200


def test_every_file_the_reference_loads_is_of_this_origin_and_is_there(
    client: Client, reader
) -> None:
    html = client.get(reverse("openapi-reference")).content.decode()

    loaded = re.findall(r'<(?:script|link)\b[^>]*?(?:src|href)="([^"]+)"', html)
    swagger = [address for address in loaded if "swagger-ui" in address]
    assert len(swagger) == 2, loaded
    for address in loaded:
        assert address.startswith("/static/"), address
        assert finders.find(address.removeprefix("/static/")), f"{address} is not served"
    assert "<script>" not in html  # the one that starts Swagger UI is a file too


def test_only_this_page_takes_data_images_for_swagger_uis_icons(client: Client, reader) -> None:
    docs = policy_of(client.get(reverse("openapi-reference")))
    tokens = policy_of(client.get(reverse("tokens")))

    assert docs["img-src"] == "'self' data:"
    assert "data:" not in " ".join(tokens.values())
    assert docs["script-src"] == "'self'"


def test_someone_not_signed_in_is_sent_to_sign_in(client: Client) -> None:
    response = client.get(reverse("openapi-reference"))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_post_is_refused(client: Client, reader) -> None:
    assert client.post(reverse("openapi-reference")).status_code == 405


def test_the_top_bar_and_the_tokens_page_link_to_it(client: Client, reader) -> None:
    docs = reverse("openapi-reference")
    tokens_page = client.get(reverse("tokens")).content.decode()

    assert tokens_page.count(f'href="{docs}"') == 2  # the top bar's and the page's own
    assert f'href="{docs}"' in client.get(reverse("dashboard")).content.decode()
