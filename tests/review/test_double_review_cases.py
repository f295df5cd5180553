"""Double review of cases: two blind opinions, agreement decides, disagreement goes to a
curator, and every step is a logged decision that undo takes back."""

from __future__ import annotations

import re

import pytest

from review.models import Case, Decision
from tests.builders.cases_answers import make_case
from tests.builders.reviews import double_review

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def case():
    double_review("cases")
    return make_case("c-77")


def post(client, case, action, note=""):
    case.refresh_from_db()
    return client.post(
        f"/p/default/cases/{case.pk}/{action}/", {"version": case.version, "note": note}
    )


def as_user(client, user):
    client.force_login(user)
    return client


def actions_on(case) -> list[str]:
    rows = Decision.objects.filter(object_type="case", object_id=str(case.pk)).order_by("pk")
    return [row.action for row in rows]


def test_a_first_verdict_under_double_review_does_not_decide_the_case(client, moderator, case):
    post(client, case, "uphold", "Clear rule match.")

    case.refresh_from_db()
    assert case.verdict == Case.Verdict.PROPOSED and case.decided_by is None
    assert (case.first_opinion, case.first_by) == ("upheld", moderator)
    assert actions_on(case) == ["case.first_opinion"]


def test_a_single_review_queue_decides_on_the_first_verdict(client, moderator):
    plain = make_case("c-1")

    post(client, plain, "uphold")

    plain.refresh_from_db()
    assert (plain.verdict, plain.first_opinion) == ("upheld", "")


def test_the_first_reviewer_cannot_give_the_second_opinion(client, moderator, case):
    post(client, case, "uphold")

    response = post(client, case, "uphold")

    assert response.status_code == 422
    assert "second reviewer decides" in response.content.decode()
    case.refresh_from_db()
    assert case.second_opinion == ""


def test_two_agreeing_verdicts_decide_the_case(client, moderator, moderator2, case):
    post(as_user(client, moderator), case, "uphold")
    post(as_user(client, moderator2), case, "uphold", "Agreed.")

    case.refresh_from_db()
    assert (case.verdict, case.decided_by, case.review_stage) == ("upheld", moderator2, "agreed")
    assert actions_on(case) == ["case.first_opinion", "case.second_opinion"]


def test_two_differing_verdicts_wait_for_a_curator(client, moderator, moderator2, case):
    post(as_user(client, moderator), case, "uphold")
    post(as_user(client, moderator2), case, "overturn", "The quote is satire.")

    case.refresh_from_db()
    assert (case.verdict, case.review_stage) == ("proposed", "in_curation")
    response = post(as_user(client, moderator), case, "overturn", "Fine, overturn.")
    assert response.status_code == 422
    assert "a curator decides this item" in response.content.decode()
    case.refresh_from_db()
    assert case.verdict == "proposed"


def test_the_curators_decision_supersedes_both_and_names_them(
    client, moderator, moderator2, curator, case
):
    post(as_user(client, moderator), case, "uphold")
    post(as_user(client, moderator2), case, "overturn", "Satire.")

    response = post(as_user(client, curator), case, "needs-rewrite", "Neither: cite ev-2.")

    assert response.status_code == 302
    case.refresh_from_db()
    assert (case.verdict, case.decided_by, case.review_stage) == (
        "needs_rewrite",
        curator,
        "curated",
    )
    curation = Decision.objects.filter(action="case.curate").get()
    assert "upheld by moderator" in curation.note and "overturned by moderator2" in curation.note
    assert curation.after["verdict"] == "needs_rewrite"


def test_the_curator_sees_both_verdicts_and_notes_side_by_side(
    client, moderator, moderator2, curator, case
):
    post(as_user(client, moderator), case, "uphold", "Rule 2 matched.")
    post(as_user(client, moderator2), case, "overturn", "It is satire.")

    body = as_user(client, curator).get(f"/p/default/cases/{case.pk}/").content.decode()

    assert "Rule 2 matched." in body and "It is satire." in body
    assert "by moderator2" in body and "a curator decides" in body
    assert f'formaction="/p/default/cases/{case.pk}/uphold/"' in body


def test_the_blind_reviewers_page_never_includes_the_first_decision(
    client, moderator, moderator2, case
):
    post(as_user(client, moderator), case, "overturn", "A secret reason only I wrote.")

    as_user(client, moderator2)
    page = client.get(f"/p/default/cases/{case.pk}/").content.decode()
    fragment = client.post(
        f"/p/default/cases/{case.pk}/undo/", {"version": case.version + 1}, headers=HTMX
    ).content.decode()

    for html in (page, fragment):
        assert "A secret reason only I wrote." not in html
        assert "case.first_opinion" not in html
        assert (
            ">moderator<" not in html
            and "by moderator," not in html
            and "by moderator<" not in html
        )
        assert "Overturned" not in html.split('id="verdict"')[1]
    assert "decide without seeing the first" in page


def test_the_first_reviewer_sees_their_own_opinion_but_no_buttons(client, moderator, case):
    post(client, case, "overturn", "My reason.")

    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    assert "My reason." in body and "a second reviewer decides blind" in body
    assert f'formaction="/p/default/cases/{case.pk}/uphold/"' not in body


def test_undo_takes_back_the_second_opinion_then_the_first(client, moderator, moderator2, case):
    post(as_user(client, moderator), case, "uphold")
    post(as_user(client, moderator2), case, "uphold")

    post(client, case, "undo")
    case.refresh_from_db()
    assert (case.verdict, case.second_opinion, case.first_opinion) == ("proposed", "", "upheld")

    post(as_user(client, moderator), case, "undo")
    case.refresh_from_db()
    assert case.first_opinion == "" and case.first_by is None
    assert actions_on(case)[-2:] == ["case.undo", "case.undo"]


def test_a_blind_reviewer_cannot_undo_the_first_opinion(client, moderator, moderator2, case):
    post(as_user(client, moderator), case, "uphold")

    response = post(as_user(client, moderator2), case, "undo")

    assert response.status_code == 422
    case.refresh_from_db()
    assert case.first_opinion == "upheld"


def test_a_validator_reason_always_asks_for_two_even_at_a_zero_share(client, moderator):
    double_review("cases", share_percent=0, reasons=["no_citations"])
    cited = make_case("c-cited")
    uncited = make_case("c-uncited", rationale="Remove it.")
    assert (cited.validator_reason, uncited.validator_reason) == ("", "no_citations")

    post(client, cited, "uphold")
    post(client, uncited, "uphold")

    cited.refresh_from_db()
    uncited.refresh_from_db()
    assert (cited.verdict, uncited.verdict) == ("upheld", "proposed")


def test_an_overturn_asks_for_a_second_opinion_when_the_policy_says_so(client, moderator):
    double_review("cases", share_percent=0, on_overturn=True)
    upheld, overturned = make_case("c-a"), make_case("c-b")

    post(client, upheld, "uphold")
    post(client, overturned, "overturn", "Satire.")

    upheld.refresh_from_db()
    overturned.refresh_from_db()
    assert upheld.verdict == "upheld"
    assert (overturned.verdict, overturned.first_opinion) == ("proposed", "overturned")


def test_the_old_review_next_address_sends_people_to_the_queues_next(client, moderator):
    response = client.get("/p/default/next/cases/")

    assert response.status_code == 302 and response["Location"] == "/p/default/cases/next/"
    assert client.get("/p/default/next/nothing/").status_code == 404


# --- told before the verdict ------------------------------------------------------------------


def test_a_moderator_is_told_before_a_verdict_that_theirs_is_the_first_of_two_opinions(
    client, moderator, case
):
    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    assert "yours is the first opinion" in body
    assert "A second reviewer also decides this case, blind" in body


def test_the_panel_fragment_says_so_too(client, moderator, case):
    response = client.post(
        f"/p/default/cases/{case.pk}/undo/", {"version": case.version}, headers=HTMX
    )

    html = response.content.decode()
    assert response.status_code == 422 and "<html" not in html
    assert "yours is the first opinion" in html


def test_a_moderator_is_told_an_overturn_would_be_checked_by_a_second_reviewer(client, moderator):
    double_review("cases", share_percent=0, on_overturn=True)
    plain = make_case("c-8")

    body = client.get(f"/p/default/cases/{plain.pk}/").content.decode()

    assert "Single review, unless your verdict is overturned" in body
    assert "yours is the first opinion" not in body


def test_a_single_review_case_says_nothing_of_a_second_opinion(client, moderator):
    plain = make_case("c-8")

    body = client.get(f"/p/default/cases/{plain.pk}/").content.decode()

    assert "second reviewer" not in body and 'class="second-opinions"' not in body


def test_a_reader_is_not_told_about_opinions_they_cannot_give(client, reader, case):
    body = client.get(f"/p/default/cases/{case.pk}/").content.decode()

    assert "yours is the first opinion" not in body


def test_the_second_reviewer_is_told_before_deciding_and_not_whose_the_first_was(
    client, moderator, moderator2, case
):
    post(as_user(client, moderator), case, "overturn", "Satire, clearly.")

    body = as_user(client, moderator2).get(f"/p/default/cases/{case.pk}/").content.decode()

    assert "Second opinion: decide without seeing the first." in body
    assert "yours is the first opinion" not in body
    assert "Satire, clearly." not in body and "by moderator," not in body


def test_the_curator_sees_the_two_opinions_side_by_side_with_what_differs_marked(
    client, moderator, moderator2, curator, case
):
    post(as_user(client, moderator), case, "uphold", "Rule 2 matched the quote.")
    post(as_user(client, moderator2), case, "overturn", "Rule 2 missed <i>satire</i> in the quote.")

    body = as_user(client, curator).get(f"/p/default/cases/{case.pk}/").content.decode()

    panel = body.split('class="opinions-side-by-side"')[1].split('<form method="post"')[0]
    first, second = panel.split('<div class="opinion">')[1:3]
    marks = [
        re.findall(r'<mark class="differs[^"]*">(.*?)</mark>', side) for side in (first, second)
    ]
    assert marks[0] == ["Upheld", "matched"]
    assert marks[1] == ["Overturned", "missed &lt;i&gt;satire&lt;/i&gt; in"]
    assert "<i>satire</i>" not in body


def test_agreeing_opinions_mark_only_where_their_notes_differ(
    client, moderator, moderator2, curator, case
):
    post(as_user(client, moderator), case, "uphold", "Clear match.")
    post(as_user(client, moderator2), case, "uphold", "Clear match.")

    body = as_user(client, curator).get(f"/p/default/cases/{case.pk}/").content.decode()

    panel = body.split('class="opinions-side-by-side"')[1].split("</section>")[0]
    assert 'class="differs' not in panel
