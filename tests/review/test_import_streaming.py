"""Imports read, check and write a batch at a time, and stay whole or nothing."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from review.adapters import jsonl
from review.adapters.answers import import_answers
from review.adapters.cases import import_cases
from review.adapters.errors import ImportRefused
from review.models import Answer, AnswerReference, Case, Evidence
from tests.builders.cases_answers import answer_line, case_line

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_batches(monkeypatch) -> int:
    monkeypatch.setattr(jsonl, "BATCH_LINES", 2)
    return 2


def test_lines_are_written_a_batch_at_a_time_as_they_are_read(small_batches) -> None:
    stored_when_read: dict[int, int] = {}

    def lines():
        for number in range(1, 8):
            stored_when_read[number] = Case.objects.count()
            yield case_line(f"c-{number}") + "\n"

    result = import_cases(lines())

    assert result.created == 7
    # Before line 5 is read, the first two batches of two are in the database already.
    assert stored_when_read[5] == 4
    assert Case.objects.count() == 7
    assert Evidence.objects.filter(case__case_id="c-7").count() == 1


def test_a_bad_line_after_batches_were_written_leaves_nothing_and_is_named(small_batches):
    good = [case_line(f"c-{number}") for number in range(1, 8)]
    bad = json.loads(case_line("c-8"))
    bad["evidence"][0]["status"] = "done"
    lines = [*good, json.dumps(bad), case_line("c-9")]

    with pytest.raises(ImportRefused) as refused:
        import_cases("\n".join(lines))

    assert refused.value.problems == [
        "line 8: evidence[0].status: 'done' is not one of success, failure, timeout, skipped"
    ]
    assert not Case.objects.exists() and not Evidence.objects.exists()


def test_a_conflict_with_a_stored_case_in_a_later_batch_is_named(small_batches) -> None:
    import_cases(case_line("c-5"))
    lines = [case_line(f"c-{number}") for number in range(1, 5)]
    lines.append(case_line("c-5", text="Edited since it was imported."))

    with pytest.raises(ImportRefused, match="line 5: case_id 'c-5' was already imported"):
        import_cases("\n".join(lines))

    assert list(Case.objects.values_list("case_id", flat=True)) == ["c-5"]


def test_under_skip_invalid_the_good_lines_of_every_batch_are_kept(small_batches) -> None:
    lines = [case_line(f"c-{number}") for number in range(1, 6)]
    lines[2] = '{"case_id": "c-3"'

    result = import_cases("\n".join(lines), skip_invalid=True)

    assert result.created == 4
    assert [number for number, _raw, _problem in result.rejected] == [3]
    assert sorted(Case.objects.values_list("case_id", flat=True)) == ["c-1", "c-2", "c-4", "c-5"]


def _queries(importer, text: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        importer(text)
    return len(captured.captured_queries)


@pytest.mark.parametrize(
    ("importer", "line"), [(import_cases, case_line), (import_answers, answer_line)]
)
def test_the_queries_of_an_import_do_not_grow_with_its_lines(importer, line) -> None:
    few = "\n".join(line(f"few-{number}") for number in range(3))
    many = "\n".join(line(f"many-{number}") for number in range(30))

    assert _queries(importer, many) == _queries(importer, few)
    # And an unchanged re-import reads what is stored in bulk too, writing nothing.
    assert _queries(importer, many) == _queries(importer, few) < 6


def test_an_answers_file_is_stored_in_batches_with_its_references(small_batches) -> None:
    result = import_answers("\n".join(answer_line(f"a-{number}") for number in range(5)))

    assert result.created == 5
    assert AnswerReference.objects.filter(answer__answer_id="a-4").count() == 2
    assert Answer.objects.get(answer_id="a-0").body.startswith("Compartments")
