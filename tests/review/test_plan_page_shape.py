"""How the plan page is put together: its addresses come from urls.py, its rows from an
explicit presenter, its templates from partial files one deep, its script from files by
concern."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings
from django.urls import Resolver404, resolve

from review.models.projects import DEFAULT_SLUG
from review.views.presenters import ENTRY_CHUNK, EntryRoute, EntryRow, PlanUrls
from tests.builders.pages import html_of
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.urls import url_of

ROOT = Path(settings.BASE_DIR)
PLAN_TEMPLATES = ROOT / "templates" / "review" / "plans"
SCRIPTS = ROOT / "static" / "review"
# Every address an element of the page names: links, forms, buttons and htmx's.
ADDRESS = re.compile(r'(?:href|action|formaction|hx-get|hx-post|data-light)="(/[^"#?]*)')
MOVED_URLS = override_settings(ROOT_URLCONF="tests.builders.moved_urls")


def addresses(html: str) -> set[str]:
    return {found for found in ADDRESS.findall(html) if not found.startswith("/static/")}


def unresolved(html: str) -> list[str]:
    missing = []
    for address in sorted(addresses(html)):
        try:
            resolve(address)
        except Resolver404:
            missing.append(address)
    return missing


@pytest.mark.django_db
@MOVED_URLS
def test_every_address_the_plan_page_draws_follows_urls_py(client, editor) -> None:
    plan = make_plan(3 * ENTRY_CHUNK + 5)
    entries = entries_of(plan)
    client.force_login(editor)
    # Opened at the last entry: the first lists are drawn light, with their own address.
    page = html_of(client.get(url_of("plan", plan.pk), {"entry": entries[-1].pk}))
    assert "data-light=" in page
    assert unresolved(page) == []
    accept = url_of("entry-decide", plan.pk, entries[-1].pk, "accept")
    assert f'formaction="{accept}"' in page
    assert f'href="{url_of("plan-history", plan.pk)}"' in page


@pytest.mark.django_db
@MOVED_URLS
def test_the_plan_fragments_draw_addresses_that_follow_urls_py(client, editor) -> None:
    plan = make_plan(4)
    first, second = entries_of(plan)[:2]
    client.force_login(editor)
    hx = {"HTTP_HX_REQUEST": "true"}
    accepted = client.post(
        url_of("entry-decide", plan.pk, second.pk, "accept"),
        {"version": second.version},
        **hx,
    )
    assert accepted.status_code == 200
    assert f'formaction="{url_of("entry-decide", plan.pk, second.pk, "undo")}"' in (
        accepted.content.decode()
    )
    edit = client.get(url_of("entry-edit", plan.pk, first.pk), **hx)
    listed = client.get(url_of("plan-entry-list", plan.pk, 1))
    for response in (accepted, edit, listed):
        assert response.status_code == 200
        assert unresolved(response.content.decode()) == []


@pytest.mark.django_db
def test_a_route_reversed_once_gives_each_row_the_address_reverse_gives_it() -> None:
    plan = make_plan(3)
    urls = PlanUrls(DEFAULT_SLUG, plan.pk)
    for entry in entries_of(plan):
        assert urls.decide("merge")(entry.pk) == url_of("entry-decide", plan.pk, entry.pk, "merge")
        assert urls.edit(entry.pk) == url_of("entry-edit", plan.pk, entry.pk)


def test_a_route_that_holds_no_pk_as_a_segment_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="'plans'"):
        EntryRoute("plans", project=DEFAULT_SLUG)


@pytest.mark.django_db
def test_an_entry_row_answers_only_the_names_its_presenter_gives() -> None:
    plan = make_plan(2)
    entry = entries_of(plan)[1]
    row = EntryRow(entry, PlanUrls(DEFAULT_SLUG, plan.pk))
    assert (row.title, row.path, row.span_start) == (entry.title, entry.path, entry.span_start)
    # The entry's other fields are not looked up behind the template's back.
    with pytest.raises(AttributeError):
        row.proposed  # noqa: B018
    with pytest.raises(AttributeError):
        row.plan_id  # noqa: B018


def test_the_plan_page_is_an_outline_of_partial_files_with_short_lines() -> None:
    page = (PLAN_TEMPLATES / "plan.html").read_text()
    # Each partial the views render by name wraps a file of its own, nesting nothing.
    wrapped = re.findall(
        r"{% partialdef ([a-z-]+)(?: inline)? %}({% include [^%]+%}){% endpartialdef %}", page
    )
    assert sorted(name for name, _ in wrapped) == [
        "counters",
        "doc-chunk",
        "edit-form",
        "entry-chunk",
    ]
    assert page.count("{% partialdef") == len(wrapped)
    for template in sorted(PLAN_TEMPLATES.glob("*.html")):
        longest = max(len(line) for line in template.read_text().splitlines())
        assert longest <= 450, f"{template.name} has a line of {longest} characters"


def test_the_plan_page_loads_its_scripts_by_concern_with_one_walk_over_the_text() -> None:
    page = (PLAN_TEMPLATES / "plan.html").read_text()
    loaded = re.findall(r"<script src=\"{% static 'review/(plan[^']*\.js)' %}\" defer>", page)
    assert loaded == ["plan-text.js", "plan-selection.js", "plan-keys.js", "plan-lists.js"]
    scripts = {name: (SCRIPTS / name).read_text() for name in loaded}
    walks = [
        name for name, text in scripts.items() for _ in re.findall(r"function textNodes", text)
    ]
    assert walks == ["plan-text.js"]
    # No script knows the shape of an address: each reads it from the page.
    shaped = re.compile(r"\\?/(plans|entries)\\?/")
    assert [name for name, text in scripts.items() if shaped.search(text)] == []


def templates_marking_unknown_names() -> list[dict]:
    engines = [dict(engine) for engine in settings.TEMPLATES]
    for engine in engines:
        engine["OPTIONS"] = engine.get("OPTIONS", {}) | {"string_if_invalid": "UNKNOWN[%s]"}
    return engines


@pytest.mark.django_db
def test_every_name_a_plan_row_draws_is_its_presenters(client, editor) -> None:
    plan = make_plan(3 * ENTRY_CHUNK)
    entries = entries_of(plan)
    client.force_login(editor)
    hx = {"HTTP_HX_REQUEST": "true"}
    with override_settings(TEMPLATES=templates_marking_unknown_names()):
        drawn = [
            html_of(client.get(url_of("plan", plan.pk), {"entry": entries[-1].pk})),
            client.post(
                url_of("entry-decide", plan.pk, entries[1].pk, "merge"),
                {"version": entries[1].version},
                **hx,
            ).content.decode(),
            client.get(url_of("entry-edit", plan.pk, entries[2].pk), **hx).content.decode(),
            client.get(url_of("entry-edit", plan.pk, entries[2].pk)).content.decode(),
        ]
    # What the presenters draw (the page's other regions have names of their own).
    presented = r"UNKNOWN\[(?:entry|region|chunk|urls|lead)\.[^\]]*\]"
    assert [re.findall(presented, html) for html in drawn] == [[], [], [], []]
