"""The insights page's form (a rule is chosen among those that exist, not typed) and how it
explains its intervals: once per panel, in plain words, not in every cell."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string

from grounding.agreement import Agreement
from review.models import Entry
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.plans import update_entries

pytestmark = pytest.mark.django_db


def with_rules(plan, *rules: str, state: str = Entry.State.ACCEPTED) -> None:
    for entry in entries_of(plan):
        update_entries(Entry.objects.filter(pk=entry.pk), rules=list(rules), state=state)


def rule_options(body: str) -> list[str]:
    (select,) = re.findall(r'<select name="rule">(.*?)</select>', body, flags=re.DOTALL)
    return re.findall(r"<option[^>]*>([^<]*)</option>", select)


def test_the_rule_is_chosen_among_the_rules_entries_name(client, editor):
    with_rules(make_plan(2, name="a.md"), "rule:a", "rule:<b>")
    with_rules(make_plan(2, name="c.md", title="Other"), "rule:c")

    body = client.get("/p/default/insights/", {"rule": "rule:c"}).content.decode()

    assert '<input name="rule"' not in body
    assert rule_options(body) == ["all", "rule:&lt;b&gt;", "rule:a", "rule:c"]
    assert "<option selected>rule:c</option>" in body


def test_a_rule_no_entry_names_is_still_shown_as_the_one_the_figures_are_narrowed_to(
    client, editor
):
    with_rules(make_plan(2), "rule:a")

    body = client.get("/p/default/insights/", {"rule": "rule:gone"}).content.decode()

    assert rule_options(body) == ["all", "rule:a", "rule:gone"]
    assert "<option selected>rule:gone</option>" in body
    assert 'data-rule="rule:a"' not in body


def test_a_figure_without_an_interval_says_so_in_its_cell_without_the_resampling_sentence():
    reason = (
        "no interval: 1990 of 2000 resamples of the 4 items held one label only, where the "
        "figure is undefined; it needs more items or a less rare label"
    )
    kappa = Agreement("cohen_kappa", 0.5, None, None, 4, reason_if_undefined=reason)

    cell = render_to_string("review/_agreement.html", {"a": kappa})

    assert "no interval" in cell and "0.50" in cell
    assert "resamples" not in cell


def test_each_panel_explains_its_intervals_once(client, editor):
    with_rules(make_plan(3), "rule:a")

    body = client.get("/p/default/insights/").content.decode()

    sections = re.findall(r"<section .*?</section>", body, flags=re.DOTALL)
    notes = {
        re.search(r'id="([a-z]+)"', section).group(1): section.count('class="muted intervals-note"')
        for section in sections
    }
    # Finalization has no answers and no week has a decision's time: nothing to explain there.
    assert notes == {"rules": 1, "validator": 1, "finalization": 0, "people": 1, "weeks": 0}
    rules = next(section for section in sections if 'id="rules"' in section)
    assert rules.count("a Wilson interval") == 1 and rules.count("a bootstrap") == 1
