"""/p/default/answers/<id>/: the finalized body, its references, and what finalization changed."""

from __future__ import annotations

import re

import pytest

from grounding.citations import finalize
from tests.builders.cases_answers import make_answer, make_source

pytestmark = pytest.mark.django_db

MESSY = (
    "Compartments are limited by area [3]. Sprinklers double it \\[1\\]. "
    "Older rules said otherwise [7].\n\n"
    "Escape routes need two exits [1, 2].\n\n"
    "Walls between compartments resist fire for sixty minutes."
)


def already_final(text: str) -> str:
    """An answer exactly as finalization would leave it, references and all."""
    return finalize(text, [make_source(1), make_source(2)]).text


def messy_answer():
    return make_answer(text=MESSY, sources=[make_source(n) for n in (1, 2, 3)])


def test_the_body_is_rendered_and_each_citation_links_to_its_reference(client, reader):
    answer = messy_answer()

    body = client.get(f"/p/default/answers/{answer.pk}/").content.decode()

    assert "<p>Compartments are limited by area" in body
    assert '<a href="#ref-1" class="cite" rel="noopener noreferrer nofollow">[1]</a>' in body
    for number in (1, 2, 3):
        assert f'<li id="ref-{number}"' in body


def test_references_show_authors_year_title_venue_link_and_snippet(client, reader):
    answer = make_answer(text="Fire walls hold [1].", sources=[make_source(4)])

    body = client.get(f"/p/default/answers/{answer.pk}/").content.decode()
    reference = re.search(r'<li id="ref-1".*?</li>', body, flags=re.DOTALL).group(0)

    assert "Author 4, Second Author" in reference
    assert "(2004)" in reference
    assert "Study number 4" in reference and "Journal of Examples" in reference
    assert 'href="https://example.org/study/4"' in reference
    assert "What study 4 found." in reference
    assert "was [4] in the raw text" not in reference  # its number did not change


def test_the_changes_panel_lists_numbers_phantoms_rewrites_and_backfills(client, reader):
    answer = messy_answer()

    response = client.get(f"/p/default/answers/{answer.pk}/")
    body = response.content.decode()
    panel = body[body.index("What finalization changed") :]

    shown = [(item.original, item.shown) for item in response.context["changes"].renumbered]
    assert shown == [(3, 1), (1, 2), (2, 3)]
    assert panel.count("renumbered</span>") == 3
    assert "Phantom citations dropped (1)" in panel and "[7]</del>" in panel
    assert "escaped: <code>\\[1\\]</code>" in panel
    assert "grouped: <code>[1, 2]</code>" in panel
    assert "Paragraphs backfilled (1)" in panel
    assert "<summary>Raw text as the model wrote it</summary>" in panel
    assert "Older rules said otherwise [7]." in panel


def test_an_answer_finalization_left_alone_says_so(client, reader):
    answer = make_answer(text=already_final("Walls resist fire [1]. Doors close [2]."))

    body = client.get(f"/p/default/answers/{answer.pk}/").content.decode()

    assert "Unchanged by finalization" in body
    assert "Nothing: the answer is shown as the model wrote it." in body


def test_markup_in_the_body_and_sources_is_never_run(client, reader):
    answer = make_answer(
        question="<img src=x onerror=alert(1)>",
        text="Hi <script>alert(1)</script> [1].\n\n[x](javascript:alert(2))",
        sources=[
            make_source(1, title="<b>Bold</b>", url="javascript:alert(3)", snippet="<script>")
        ],
    )

    body = client.get(f"/p/default/answers/{answer.pk}/").content.decode()

    assert "<script>alert" not in body and "<img src=x" not in body and "<b>Bold" not in body
    assert 'href="javascript' not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "is not a web address" in body


def test_an_editor_sees_publish_and_withdraw_and_a_reader_sees_neither(client, sign_in):
    answer = make_answer()
    sign_in("reader", "Readers")
    body = client.get(f"/p/default/answers/{answer.pk}/").content.decode()
    assert ">Publish</button>" not in body and ">Withdraw</button>" not in body
    assert f"/p/default/answers/{answer.pk}/publish/" not in body

    sign_in("editor", "Editors")
    body = client.get(f"/p/default/answers/{answer.pk}/").content.decode()
    assert ">Publish</button>" in body and ">Withdraw</button>" in body


def test_an_unknown_answer_is_not_found(client, reader):
    assert client.get("/p/default/answers/999999/").status_code == 404


def test_the_answer_page_takes_as_many_queries_for_a_hundred_references_as_for_three(
    client, editor, django_assert_max_num_queries
):
    few = make_answer(
        "a-few", text="A [1]. B [2]. C [3].", sources=[make_source(n) for n in (1, 2, 3)]
    )
    many_text = " ".join(f"Claim number {n} holds [{n}]." for n in range(1, 101))
    many = make_answer("a-many", text=many_text, sources=[make_source(n) for n in range(1, 101)])
    client.get(f"/p/default/answers/{few.pk}/")

    # Four of the twelve: the project its address names, the top bar's projects, the guidelines
    # panel's and the discussion's.
    with django_assert_max_num_queries(12) as small:
        client.get(f"/p/default/answers/{few.pk}/")
    with django_assert_max_num_queries(12) as large:
        response = client.get(f"/p/default/answers/{many.pk}/")

    assert len(large.captured_queries) == len(small.captured_queries)
    assert response.content.decode().count('class="cite"') == 100
