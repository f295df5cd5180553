"""manage.py import_cases and import_answers: counts, refusals and the rejects file."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from review.models import Answer, Case
from tests.review.test_import_answers import make_answer
from tests.review.test_import_cases import jsonl, make_case

pytestmark = pytest.mark.django_db


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_command_imports_a_file_and_prints_the_counts(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text(jsonl(make_case("c-1"), make_case("c-2")), encoding="utf-8")

    first, _ = run("import_cases", str(path))
    second, _ = run("import_cases", str(path))

    assert "2 cases created, 0 unchanged, 0 rejected" in first
    assert "0 cases created, 2 unchanged, 0 rejected" in second
    assert Case.objects.count() == 2


def test_a_refused_file_lists_every_bad_line_and_imports_nothing(tmp_path):
    bad = make_case("c-2")
    bad["evidence"][1]["status"] = "done"
    path = tmp_path / "cases.jsonl"
    path.write_text(jsonl(make_case("c-1"), bad, "{nope"), encoding="utf-8")

    with pytest.raises(CommandError) as caught:
        run("import_cases", str(path))

    message = str(caught.value)
    assert "nothing imported" in message
    assert (
        "line 2: evidence[1].status: 'done' is not one of success, failure, timeout, skipped"
        in message
    )
    assert "line 3: not valid JSON" in message
    assert Case.objects.count() == 0
    assert not (tmp_path / "cases.rejected.jsonl").exists()


def test_skip_invalid_writes_the_bad_lines_beside_the_file_byte_for_byte(tmp_path):
    undecodable = b'{"case_id": "c-3", "content": {"text": "caf\xe9"}}'
    path = tmp_path / "cases.jsonl"
    path.write_bytes(jsonl(make_case("c-1"), "{nope").encode() + undecodable + b"\n")

    out, err = run("import_cases", str(path), "--skip-invalid")

    rejects = tmp_path / "cases.rejected.jsonl"
    assert "1 cases created, 0 unchanged, 2 rejected" in out
    assert str(rejects) in out
    assert "line 2: not valid JSON" in err
    assert "line 3: not UTF-8" in err
    assert rejects.read_bytes() == b"{nope\n" + undecodable + b"\n"
    assert list(Case.objects.values_list("case_id", flat=True)) == ["c-1"]


def test_rejects_out_chooses_where_the_bad_lines_go(tmp_path):
    path = tmp_path / "answers.jsonl"
    bad_line = json.dumps(make_answer("a-2", sources="none"))
    path.write_text(jsonl(make_answer("a-1"), bad_line), encoding="utf-8")
    target = tmp_path / "fix-me.jsonl"

    out, _ = run("import_answers", str(path), "--skip-invalid", "--rejects-out", str(target))

    assert "1 answers created, 0 unchanged, 1 rejected" in out
    assert target.read_text(encoding="utf-8") == bad_line + "\n"
    assert Answer.objects.count() == 1


def test_no_rejects_file_is_written_when_every_line_is_good(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text(jsonl(make_answer("a-1")), encoding="utf-8")

    run("import_answers", str(path), "--skip-invalid")

    assert not (tmp_path / "answers.rejected.jsonl").exists()


def test_the_rejects_file_may_not_overwrite_the_file_being_imported(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text(jsonl(make_answer("a-1")), encoding="utf-8")

    with pytest.raises(CommandError, match="is the file being imported"):
        run("import_answers", str(path), "--skip-invalid", "--rejects-out", str(path))
    assert Answer.objects.count() == 0


def test_a_missing_file_and_an_empty_file_are_refused_with_a_reason(tmp_path):
    with pytest.raises(CommandError, match="cannot read"):
        run("import_answers", str(tmp_path / "absent.jsonl"))
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(CommandError, match="the file has no lines"):
        run("import_cases", str(empty))


def test_a_refused_file_exits_2_like_every_other_data_command(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text("{nope\n", encoding="utf-8")
    with pytest.raises(CommandError) as caught:
        run("import_cases", str(path))
    assert caught.value.returncode == 2
    with pytest.raises(CommandError) as missing:
        run("import_answers", str(tmp_path / "absent.jsonl"))
    assert missing.value.returncode == 2
