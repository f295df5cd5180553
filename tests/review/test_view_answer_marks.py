"""/p/default/answers/<id>/: a citation finalization added is never drawn as the model's own."""

from __future__ import annotations

import re

import pytest

from tests.builders.cases_answers import make_answer, make_source

pytestmark = pytest.mark.django_db

# The middle paragraph cites only phantoms ([7], [8]); the last cites nothing. Both are
# backfilled from their neighbour: the first as "replaced, unverified", the second as added.
REPLACED_AND_ADDED = (
    "Compartments are limited by floor area, and sprinklers raise the limit [1].\n\n"
    "Walls between compartments must resist fire for sixty minutes[7]. Doors in them "
    "close by themselves[8].\n\n"
    "Escape routes from each compartment lead to two separate exits in every storey."
)


def page(client, answer) -> str:
    return client.get(f"/p/default/answers/{answer.pk}/").content.decode()


def article(body: str) -> str:
    return body[body.index('aria-label="Finalized answer"') : body.index("</article>")]


def test_an_added_citation_is_marked_and_labelled_and_the_models_own_is_not(client, reader):
    answer = make_answer(text=REPLACED_AND_ADDED, sources=[make_source(1)])

    shown = article(page(client, answer))

    own, replaced, added = re.findall(r'<a href="#ref-1"[^>]*>\[1\]</a>', shown)
    assert 'class="cite"' in own and "aria-label" not in own
    assert 'class="cite cite-replaced"' in replaced
    assert 'aria-label="[1], citation replaced, unverified"' in replaced
    assert 'class="cite cite-added"' in added
    assert 'aria-label="[1], citation added by finalization"' in added


def test_the_legend_explains_both_marks_only_when_the_answer_has_them(client, reader):
    marked = make_answer("a-1", text=REPLACED_AND_ADDED, sources=[make_source(1)])
    plain = make_answer("a-2", text="Walls resist fire for an hour [1].", sources=[make_source(1)])

    legend = article(page(client, marked))
    assert "added by finalization" in legend and "citation replaced, unverified" in legend
    assert 'id="cite-legend"' not in page(client, plain)


def test_a_replaced_citation_is_listed_first_in_what_finalization_changed(client, reader):
    answer = make_answer(text=REPLACED_AND_ADDED, sources=[make_source(1)])

    body = page(client, answer)

    changes = body[body.index('id="changes-heading"') :]
    assert changes.index("Citations replaced, unverified (1)") < changes.index("<h3>Numbers</h3>")
    replaced = changes[changes.index("Citations replaced") : changes.index("<h3>Numbers</h3>")]
    assert "[7]" in replaced and "[8]" in replaced
    assert "Walls between compartments" in replaced


def test_marks_written_by_the_model_itself_mark_nothing(client, reader):
    # The private-use characters the page marks added citations with, typed by a model.
    text = "Walls resist fire for an hour \ue0001\ue002 [1]."
    answer = make_answer(text=text, sources=[make_source(1)])

    shown = article(page(client, answer))

    assert "cite-added" not in shown and "\ue000" not in shown and "\ue002" not in shown
