"""Importing LLM answers from JSON lines: finalized once, at import, with every change kept."""

from __future__ import annotations

import json

import pytest

from grounding.citations import format_reference
from review.adapters.answers import import_answers
from review.adapters.errors import ImportRefused
from review.models import Answer, AnswerReference
from review.views.answer_changes import finalization_changes

pytestmark = pytest.mark.django_db


def make_source(title: str, **fields) -> dict:
    return {
        "title": title,
        "year": 2021,
        "authors": [f"{title} Author"],
        "url": f"https://example.org/{title.lower().replace(' ', '-')}",
        "venue": "Fire Safety Journal",
        "snippet": f"What {title} says about smoke spread.",
        **fields,
    }


def make_answer(answer_id: str = "a-77", text: str | None = None, **overrides) -> dict:
    answer = {
        "answer_id": answer_id,
        "question": "How fast does smoke fill a stairwell?",
        "text": text or "Smoke can fill an open stairwell within minutes [1].",
        "sources": [make_source("Stairwell Smoke"), make_source("Door Closers")],
        "model": "answer-llm-1",
    }
    answer.update(overrides)
    return answer


def jsonl(*records) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def refusal(data) -> list[str]:
    with pytest.raises(ImportRefused) as caught:
        import_answers(data)
    return caught.value.problems


def test_a_clean_answer_with_its_reference_list_is_stored_unchanged():
    body = "Smoke can fill an open stairwell within minutes [1]."
    source = make_source("Stairwell Smoke")
    text = f"{body}\n\n### References\n\n{format_reference(1, source)}"
    result = import_answers(jsonl(make_answer("a-1", text, sources=[source])))

    assert (result.created, result.unchanged, result.rejected) == (1, 0, [])
    answer = Answer.objects.get()
    assert answer.body == body
    assert answer.changed is False
    assert finalization_changes(answer).citations_changed is False
    assert answer.model == "answer-llm-1"
    reference = answer.references.get()
    assert (reference.number, reference.original_number) == (1, 1)
    assert reference.title == "Stairwell Smoke"
    assert reference.authors == ["Stairwell Smoke Author"]
    assert reference.year == 2021
    assert reference.venue == "Fire Safety Journal"
    assert reference.snippet == "What Stairwell Smoke says about smoke spread."


def test_an_answer_without_a_reference_list_changes_only_by_gaining_one():
    import_answers(jsonl(make_answer("a-1")))

    answer = Answer.objects.get()
    assert answer.body == answer.raw_text
    assert answer.changed is True
    changes = finalization_changes(answer)
    assert changes.only_references_rebuilt is True
    assert [(r.original, r.shown) for r in changes.renumbered] == [(1, 1)]


def test_out_of_order_citations_are_renumbered_by_first_appearance():
    text = "Door closers keep smoke out [3]. Open stairwells fill fast [1]."
    sources = [make_source("Stairwell Smoke"), make_source("Unused"), make_source("Door Closers")]
    import_answers(jsonl(make_answer("a-1", text, sources=sources)))

    answer = Answer.objects.get()
    assert answer.body == "Door closers keep smoke out [1]. Open stairwells fill fast [2]."
    assert answer.changed is True
    assert list(answer.references.values_list("number", "original_number", "title")) == [
        (1, 3, "Door Closers"),
        (2, 1, "Stairwell Smoke"),
    ]
    changes = finalization_changes(answer)
    assert [(r.original, r.shown, r.moved) for r in changes.renumbered] == [
        (3, 1, True),
        (1, 2, True),
    ]
    assert [(s.original, s.title) for s in changes.uncited_sources] == [(2, "Unused")]


def test_a_phantom_citation_is_dropped_and_shown_with_the_text_around_it():
    text = "Smoke can fill an open stairwell within minutes [1][4]."
    import_answers(jsonl(make_answer("a-1", text)))

    answer = Answer.objects.get()
    assert "[4]" not in answer.body
    (dropped,) = finalization_changes(answer).dropped
    assert (dropped.numbers, dropped.citation) == ((4,), "[4]")
    assert dropped.before.endswith("within minutes [1]")
    assert dropped.after == "."
    assert answer.raw_text[dropped.position :].startswith("[4]")


def test_a_range_of_phantoms_is_shown_once_with_every_number_it_dropped():
    text = "Grazing keeps heather short [1]. Ten studies agree [3-5]."
    import_answers(jsonl(make_answer("a-1", text)))

    (dropped,) = finalization_changes(Answer.objects.get()).dropped
    assert (dropped.numbers, dropped.citation) == ((3, 4, 5), "[3-5]")
    assert dropped.before.endswith("Ten studies agree ")


def test_grouped_range_and_escaped_citations_are_rewritten_and_recorded():
    text = "Smoke rises [1, 2]. Doors help [1-3]. Closers matter \\[2\\]."
    sources = [make_source("A"), make_source("B"), make_source("C")]
    import_answers(jsonl(make_answer("a-1", text, sources=sources)))

    answer = Answer.objects.get()
    assert answer.body == "Smoke rises [1][2]. Doors help [1][2][3]. Closers matter [2]."
    rewrites = finalization_changes(answer).rewrites
    assert [(r.kind, r.original, r.replacement) for r in rewrites] == [
        ("grouped", "[1, 2]", "[1][2]"),
        ("range", "[1-3]", "[1][2][3]"),
        ("escaped", "\\[2\\]", "[2]"),
    ]


def test_an_uncited_paragraph_is_backfilled_and_recorded():
    text = "Smoke fills a stairwell fast [1].\n\nPressurised stairs keep it out for longer."
    import_answers(jsonl(make_answer("a-1", text)))

    (backfill,) = finalization_changes(Answer.objects.get()).backfills
    assert (backfill.paragraph, backfill.number) == (1, 1)
    assert backfill.excerpt == "Pressurised stairs keep it out for longer."


def test_the_models_own_reference_list_is_replaced_by_the_sources():
    text = "Smoke fills a stairwell fast [1].\n\n### References\n[1] Somebody, somewhere."
    import_answers(jsonl(make_answer("a-1", text)))

    answer = Answer.objects.get()
    assert answer.body == "Smoke fills a stairwell fast [1]."
    assert answer.changes["text"].endswith(
        "Stairwell Smoke. Fire Safety Journal. https://example.org/stairwell-smoke"
    )
    assert finalization_changes(answer).raw_text == text


def test_optional_source_fields_may_be_absent_or_null():
    sources = [{"title": "Only a title"}, {"title": "Nulls", "year": None, "url": None}]
    text = "First claim about the smoke here [1]. Second claim about doors [2]."
    import_answers(jsonl(make_answer("a-1", text, sources=sources)))

    references = list(AnswerReference.objects.values_list("title", "year", "url", "authors"))
    assert references == [("Only a title", None, "", []), ("Nulls", None, "", [])]


def test_importing_the_same_file_twice_creates_nothing_twice():
    data = jsonl(make_answer("a-1"), make_answer("a-2"))
    import_answers(data)

    again = import_answers(data)

    assert (again.created, again.unchanged) == (0, 2)
    assert Answer.objects.count() == 2
    assert AnswerReference.objects.count() == 2


def test_the_same_answer_id_with_different_content_is_a_bad_line():
    import_answers(jsonl(make_answer("a-1")))

    problems = refusal(jsonl(make_answer("a-1", "A different answer altogether [1].")))

    assert problems == [
        "line 1: answer_id 'a-1' was already imported with different content; "
        "give the changed answer a new answer_id"
    ]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"answer_id": ["a-1"]}, "answer_id: must be a string, not a list"),
        ({"question": ""}, "question: must not be empty"),
        ({"text": 42}, "text: must be a string, not a number"),
        ({"sources": None}, "sources: must be a list, not null"),
        ({"sources": [{"year": 2020}]}, "sources[0].title: is required"),
        ({"sources": [{"title": " "}]}, "sources[0].title: must not be empty"),
        (
            {"sources": [{"title": "T", "year": "2020"}]},
            "sources[0].year: must be an integer, not a string",
        ),
        (
            {"sources": [{"title": "T", "authors": "Ada"}]},
            "sources[0].authors: must be a list, not a string",
        ),
        (
            {"sources": [{"title": "T", "authors": ["Ada", 7]}]},
            "sources[0].authors[1]: must be a string, not a number",
        ),
        (
            {"sources": [{"title": "T", "doi": "1" * 201}]},
            "sources[0].doi: is 201 characters long; the most allowed is 200",
        ),
        ({"sources": ["a title"]}, "sources[0]: must be an object, not a string"),
        (
            {"sources": [{"title": "T", "score": 0.9}]},
            "sources[0].score: unknown key "
            "(expected authors, doi, snippet, title, url, venue, year)",
        ),
        (
            {"temperature": 0.2},
            "temperature: unknown key (expected answer_id, model, question, sources, text)",
        ),
    ],
)
def test_bad_fields_are_named_by_their_path(change, expected):
    answer = make_answer("a-1")
    answer.update(change)

    assert refusal(jsonl(answer)) == [f"line 1: {expected}"]


def test_malformed_json_duplicate_ids_and_bad_bytes_are_each_reported_and_nothing_is_written():
    good = jsonl(make_answer("a-1"), make_answer("a-2")).encode()
    data = good + b"{oops\n" + jsonl(make_answer("a-1")).encode() + b'{"answer_id": "\xff"}\n'

    problems = refusal(data)

    assert [problem.split(":")[0] for problem in problems] == ["line 3", "line 4", "line 5"]
    assert problems[1] == "line 4: answer_id 'a-1' is already on line 1"
    assert problems[2].startswith("line 5: not UTF-8: byte 0xff")
    assert Answer.objects.count() == 0
    assert AnswerReference.objects.count() == 0


def test_an_empty_file_is_refused():
    assert refusal(b"\n\n") == ["the file has no lines"]


def test_skipping_invalid_lines_imports_the_good_ones_and_returns_the_bad_ones():
    bad_line = json.dumps(make_answer("a-2", sources=[{"title": 3}]))

    result = import_answers(jsonl(make_answer("a-1"), bad_line), skip_invalid=True)

    assert result.created == 1
    assert result.rejected == [(2, bad_line, "sources[0].title: must be a string, not a number")]
    assert list(Answer.objects.values_list("answer_id", flat=True)) == ["a-1"]


# --- sources listed as [n] URL lines at the foot of the text ----------------------------------

LISTED = (
    "Residential sprinklers control most fires before the fire service arrives [2]. "
    "Smoke alarms wake sleeping residents [1].\n\n"
    "Sources:\n"
    "[1] https://www.dsb.no/smoke-alarms\n"
    "[2] Sprinklers in homes - https://library.example.org/sprinklers\n"
)


def listed_line(answer_id: str, text: str) -> str:
    return json.dumps({"answer_id": answer_id, "question": "Do sprinklers help?", "text": text})


def test_sources_listed_as_numbered_urls_are_read_from_the_text_with_their_titles():
    import_answers([listed_line("a-1", LISTED)])

    answer = Answer.objects.get()
    references = {ref.original_number: (ref.title, ref.url) for ref in answer.references.all()}
    assert references == {
        1: ("dsb.no/smoke-alarms", "https://www.dsb.no/smoke-alarms"),
        2: ("Sprinklers in homes", "https://library.example.org/sprinklers"),
    }
    # The list is taken off the text: the reference list shown is finalization's own.
    assert "Sources:" not in answer.raw_text
    assert "https://www.dsb.no" not in answer.body.split("\n\n")[0]


def test_a_line_with_neither_sources_nor_a_listed_source_is_refused_naming_both():
    with pytest.raises(ImportRefused) as refused:
        import_answers([listed_line("a-1", "Sprinklers help [1].")])
    assert "sources: missing, and the text lists no sources as [n] URL lines" in str(refused.value)
    assert Answer.objects.count() == 0


def test_a_malformed_source_list_is_refused_naming_its_line():
    text = "Sprinklers help [1].\n\n[1] https://example.org/a\n[3] https://example.org/c\n"
    with pytest.raises(ImportRefused) as refused:
        import_answers([listed_line("a-1", text)])
    assert "line 1: text: its source list:" in str(refused.value)
    assert Answer.objects.count() == 0
