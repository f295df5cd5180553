"""/p/default/cases/<id>/: the flagged content, the rationale by sentence, the evidence and
the validator's verdict, side by side."""

from __future__ import annotations

import re

import pytest

from tests.builders.cases_answers import RULE_MATCH, make_case

pytestmark = pytest.mark.django_db

HISTORY = ("user_history", "success", "Three earlier removals", 120, {"removals": 3})
TIMEOUT = ("toxicity", "timeout", "Classifier timed out", 5000, None)
MIXED = (
    "The post threatens a member [ev-1]. "
    "The author was removed three times before [ev-2]. "
    "The classifier rated it toxic [ev-3]. "
    "It also named their employer [ev-9]. "
    "The author posts this in every thread they join. "
    "Recommendation: remove."
)


def sentence_items(body: str) -> list[str]:
    return re.findall(r'<li id="s-\d+".*?</li>', body, flags=re.DOTALL)


def test_the_case_page_shows_the_flagged_content_and_who_reported_it(client, reader):
    case = make_case(text="Leave or else.", author="u/angry", community="r/town")

    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    assert "Leave or else." in body
    assert "u/angry" in body and "r/town" in body and "harassment" in body


def test_each_sentence_shows_its_grounding_status_as_text(client, reader):
    case = make_case(evidence=(RULE_MATCH, HISTORY, TIMEOUT), rationale=MIXED)

    items = sentence_items(client.get(f"/p/default/cases/{case.pk}/").content.decode())

    assert len(items) == 6
    assert "supported" in items[0] and "supported" in items[1]
    assert "cites non-success evidence: ev-3" in items[2]
    assert "cites unknown id: ev-9" in items[3]
    assert "uncited claim" in items[4]
    assert "not a claim" in items[5]


def test_each_citation_links_to_its_evidence_row_and_an_unknown_id_links_nowhere(client, reader):
    case = make_case(evidence=(RULE_MATCH, HISTORY, TIMEOUT), rationale=MIXED)

    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    assert '<a class="cite" href="#ev-2" data-ev="ev-2">[ev-2]</a>' in body
    assert '<tr id="ev-2"' in body
    assert 'href="#ev-9"' not in body
    assert "[ev-9]</span>" in body


def test_evidence_shows_its_status_as_text_and_the_uncited_is_marked_ignored(client, reader):
    case = make_case(
        evidence=(RULE_MATCH, HISTORY, TIMEOUT),
        rationale="The post threatens a member directly [ev-1].",
    )

    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()
    rows = dict(re.findall(r'<tr id="(ev-\d+)"(.*?)</tr>', body, flags=re.DOTALL))

    assert "success" in rows["ev-1"] and "ignored" not in rows["ev-1"]
    assert "timeout" in rows["ev-3"] and "5000 ms" in rows["ev-3"]
    assert "ignored" in rows["ev-2"] and "ignored" in rows["ev-3"]


def test_raw_evidence_data_is_one_click_away(client, reader):
    case = make_case(evidence=(HISTORY,), rationale="Removed three times before [ev-1].")

    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    assert "<summary>Raw data</summary>" in body
    assert "&quot;removals&quot;: 3" in body


def test_the_validator_panel_sets_declared_ids_against_the_ids_in_the_text(client, reader):
    case = make_case(
        evidence=(RULE_MATCH, HISTORY),
        rationale="The post threatens a member directly [ev-1].",
        declared=["ev-1", "ev-2"],
    )

    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    assert "declared ids differ from the ids in the text" in body
    mismatch = re.search(r'<tr class="mismatch">(.*?)</tr>', body, flags=re.DOTALL).group(1)
    assert "ev-2" in mismatch and "(mismatch)" in mismatch
    assert "Recommended action: <strong>remove</strong>" in body


def test_a_reader_sees_no_verdict_buttons(client, reader):
    case = make_case()

    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    assert "Moderator&#x27;s verdict" in body or "Moderator's verdict" in body
    for label in ("Uphold", "Overturn", "Needs rewrite", "Undo"):
        assert f">{label}</button>" not in body
    assert f"/p/default/cases/{case.pk}/uphold/" not in body


def test_a_moderator_sees_the_verdict_buttons(client, moderator):
    case = make_case()

    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    for label in ("Uphold", "Overturn", "Needs rewrite"):
        assert f">{label}</button>" in body
    assert ">Undo</button>" not in body  # nothing to undo yet


def test_an_unknown_case_is_not_found(client, reader):
    assert client.get("/p/default/cases/999999/").status_code == 404


def test_markup_in_the_content_and_rationale_is_shown_as_text(client, reader):
    case = make_case(
        text="<script>alert('content')</script>",
        author='"><img src=x onerror=alert(1)>',
        rationale="It says <script>alert(1)</script> and <img src=x onerror=alert(2)> [ev-1].",
        evidence=(("policy_match", "success", "<b>bold</b> summary", 3, {"html": "<i>x</i>"}),),
    )

    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    assert "<script>alert" not in body
    assert "<img src=x" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "&lt;img src=x onerror=alert(2)&gt;" in body
    assert "&lt;b&gt;bold&lt;/b&gt; summary" in body


def test_the_case_page_takes_as_many_queries_for_fifty_evidence_items_as_for_five(
    client, moderator, django_assert_max_num_queries
):
    def case_with(count: int):
        evidence = [("policy_match", "success", f"Rule {n}", n, {"n": n}) for n in range(count)]
        rationale = " ".join(f"Rule {n} matched this post [ev-{n}]." for n in range(1, count + 1))
        return make_case(f"c-{count}", evidence=evidence, rationale=rationale)

    small, large = case_with(5), case_with(50)
    client.get(f"/p/default/cases/{small.pk}/")  # the first request warms the session

    # Four of the twelve: the project its address names, the top bar's projects, the guidelines
    # panel's and the discussion's.
    with django_assert_max_num_queries(12) as few:
        client.get(f"/p/default/cases/{small.pk}/")
    with django_assert_max_num_queries(12) as many:
        client.get(f"/p/default/cases/{large.pk}/")

    assert len(many.captured_queries) == len(few.captured_queries)


def test_beside_the_verdict_buttons_the_page_says_what_uphold_upholds(client, moderator) -> None:
    from tests.builders.cases_answers import make_case

    case = make_case("c-77", recommended_action="remove")
    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()
    assert "Uphold agrees with the model: its recommendation (remove) stands." in body
