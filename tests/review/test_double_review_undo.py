"""Undo of a double review's steps from the case and answer pages: the curator who settled a
disagreement gets an Undo (and its key) without the verdict buttons, and taking it back puts
the item in curation again; a reviewer who may not undo the latest step gets no Undo."""

from __future__ import annotations

import pytest

from review.models import Answer, Case, Decision
from tests.builders.cases_answers import make_answer, make_case
from tests.builders.reviews import double_review
from tests.builders.users import user_in

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def post(client, user, item, path, note="x"):
    client.force_login(user)
    item.refresh_from_db()
    return client.post(path, {"version": item.version, "note": note})


@pytest.fixture
def curated_case(client, moderator, moderator2, curator):
    double_review("cases")
    case = make_case("c-5")
    post(client, moderator, case, f"/p/default/cases/{case.pk}/uphold/")
    post(client, moderator2, case, f"/p/default/cases/{case.pk}/overturn/")
    post(client, curator, case, f"/p/default/cases/{case.pk}/overturn/", "Satire, clearly.")
    case.refresh_from_db()
    assert case.review_stage == Case.CURATED
    return case


def undo_button(html: str) -> str:
    """The Undo button's tag, or "" when the page has none."""
    at = html.find('data-action="undo"')
    return html[html.rfind("<button", 0, at) : html.find(">", at) + 1] if at >= 0 else ""


def test_the_curator_who_settled_a_case_gets_undo_and_its_key_but_no_verdicts(
    client, curated_case, curator
):
    client.force_login(curator)

    html = client.get(f"/p/default/cases/{curated_case.pk}/").content.decode()

    assert 'aria-keyshortcuts="z"' in undo_button(html)
    assert f'formaction="/p/default/cases/{curated_case.pk}/uphold/"' not in html
    undo_form = html[html.rfind("<form", 0, html.find('data-action="undo"')) :]
    assert undo_form.startswith(
        f'<form method="post" action="/p/default/cases/{curated_case.pk}/undo/"'
    )
    assert "data-verdict-form" in undo_form[: undo_form.find(">")]


def test_the_curators_undo_from_the_page_puts_the_case_back_in_curation(
    client, curated_case, curator
):
    client.force_login(curator)

    response = client.post(
        f"/p/default/cases/{curated_case.pk}/undo/", {"version": curated_case.version}, headers=HTMX
    )

    assert response.status_code == 200 and "<html" not in response.content.decode()
    curated_case.refresh_from_db()
    assert (curated_case.verdict, curated_case.review_stage) == ("proposed", Case.IN_CURATION)
    undo = Decision.objects.filter(action="case.undo").get()
    assert undo.undoes.action == "case.curate" and undo.actor == curator
    assert f'formaction="/p/default/cases/{curated_case.pk}/uphold/"' in response.content.decode()


def test_a_moderator_who_neither_gave_the_curation_nor_curates_gets_no_undo(
    client, curated_case, moderator2
):
    client.force_login(moderator2)

    html = client.get(f"/p/default/cases/{curated_case.pk}/").content.decode()

    assert undo_button(html) == ""


def test_the_second_reviewer_whose_verdict_agreed_gets_undo(client, moderator, moderator2):
    double_review("cases")
    case = make_case("c-6")
    post(client, moderator, case, f"/p/default/cases/{case.pk}/uphold/")
    post(client, moderator2, case, f"/p/default/cases/{case.pk}/uphold/")

    html = client.get(f"/p/default/cases/{case.pk}/").content.decode()
    assert undo_button(html)
    client.force_login(moderator)
    assert undo_button(client.get(f"/p/default/cases/{case.pk}/").content.decode()) == ""


def test_a_reader_may_not_undo_a_curated_case(client, curated_case, reader):
    response = client.post(
        f"/p/default/cases/{curated_case.pk}/undo/", {"version": curated_case.version}
    )

    assert response.status_code == 403


def test_the_curator_takes_back_an_answers_curation_from_its_page(
    client, django_user_model, editor, curator
):
    editor2 = user_in(django_user_model, "editor2", "Editors")
    double_review("answers")
    answer = make_answer("a-5")
    post(client, editor, answer, f"/p/default/answers/{answer.pk}/publish/")
    post(client, editor2, answer, f"/p/default/answers/{answer.pk}/withdraw/")
    post(client, curator, answer, f"/p/default/answers/{answer.pk}/publish/")
    answer.refresh_from_db()
    assert answer.state == "published"

    html = client.get(f"/p/default/answers/{answer.pk}/").content.decode()
    assert undo_button(html)
    post(client, curator, answer, f"/p/default/answers/{answer.pk}/undo/")

    answer.refresh_from_db()
    assert (answer.state, answer.review_stage) == ("proposed", Answer.IN_CURATION)
