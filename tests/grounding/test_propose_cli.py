"""The propose-segments command: its three exit statuses, its messages, and how it writes."""

from __future__ import annotations

import json
import os
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from grounding import propose
from grounding.propose import main, propose_plan

DOCUMENT = (
    "# Grunnmur\n\nMuren støpes på frostfritt fundament.\n\n## Drenering\n\nRør rundt muren.\n"
)


def source(tmp_path: Path, text: str = DOCUMENT, name: str = "mur.md") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name.endswith(".tmp"))


def test_a_written_plan_is_the_pure_functions_plan_as_indented_json(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    assert main([str(source(tmp_path)), "--out", str(out)]) == 0
    written = out.read_text(encoding="utf-8")
    expected = propose_plan("mur.md", DOCUMENT.encode("utf-8"))
    assert json.loads(written) == expected
    assert written == json.dumps(expected, ensure_ascii=False, indent=2) + "\n"
    assert "støpes" in written  # written as UTF-8, not \u escapes
    assert leftovers(tmp_path) == []


def test_without_out_the_plan_goes_to_standard_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main([str(source(tmp_path))]) == 0
    assert json.loads(capsys.readouterr().out)["entries"]


def test_options_reach_the_plan(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    arguments = ["--max-segment-chars", "30", "--path-prefix", "Bilag 2"]
    assert main([str(source(tmp_path)), "--out", str(out), *arguments]) == 0
    entries = json.loads(out.read_text(encoding="utf-8"))["entries"]
    assert all(entry["path"].startswith("bilag-2/") for entry in entries)
    assert all(entry["span"][1] - entry["span"][0] <= 30 for entry in entries)


def test_nothing_to_propose_exits_one_says_why_and_leaves_an_existing_file_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "plan.json"
    out.write_text("earlier plan", encoding="utf-8")
    flat = source(tmp_path, "Bare tekst, ingen overskrifter.\n", "flat.txt")
    assert main([str(flat), "--out", str(out)]) == 1
    message = capsys.readouterr().err
    assert message.startswith("propose-segments: nothing to propose for ")
    assert "no headings" in message and "FAILED" not in message
    assert out.read_text(encoding="utf-8") == "earlier plan"


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["{dir}/absent.md"], "absent.md"),
        (["{dir}/mur.md", "--max-segment-chars", "-5"], "max-segment-chars"),
        (["{dir}/mur.md", "--max-segment-chars", "mange"], "max-segment-chars"),
        (["{dir}/mur.md", "--path-prefix", "!!!"], "empty path component"),
        (["{dir}/mur.md", "--no-such-option"], "--no-such-option"),
        ([], "source"),
        (["{dir}/plan.docx"], "'.docx'"),
        (["{dir}/latin1.txt"], "byte offset 7"),
        (["{dir}/broken.pdf"], "not a readable PDF"),
    ],
)
def test_a_failure_exits_two_with_a_failed_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], says: str
) -> None:
    source(tmp_path)
    (tmp_path / "plan.docx").write_bytes(b"PK\x03\x04")
    (tmp_path / "latin1.txt").write_bytes("1 Bro\nB\u00e6rende\n".encode("latin-1"))
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.7\nnot really\n")
    out = tmp_path / "plan.json"
    filled = [argument.format(dir=tmp_path) for argument in arguments]
    assert main([*filled, "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("propose-segments: FAILED: ")
    assert says in error
    assert not out.exists() and leftovers(tmp_path) == []


def test_an_out_folder_that_does_not_exist_is_a_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "missing" / "plan.json"
    assert main([str(source(tmp_path)), "--out", str(out)]) == 2
    assert "FAILED" in capsys.readouterr().err


def test_an_interrupted_write_leaves_the_old_plan_whole_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "plan.json"
    out.write_text("earlier plan", encoding="utf-8")

    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    assert main([str(source(tmp_path)), "--out", str(out)]) == 2
    assert "No space left" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "earlier plan"
    assert leftovers(tmp_path) == []


def test_a_written_plan_gets_the_mode_of_any_new_file(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    previous = os.umask(0o022)
    try:
        assert main([str(source(tmp_path)), "--out", str(out)]) == 0
    finally:
        os.umask(previous)
    assert out.stat().st_mode & 0o777 == 0o644


def test_an_unexpected_error_is_a_failure_and_never_nothing_to_propose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Left uncaught it would exit 1, which a driver reads as "nothing to propose".
    def broken(*args: object, **kwargs: object) -> dict:
        raise RuntimeError("a bug")

    monkeypatch.setattr(propose, "propose_plan", broken)
    assert main([str(source(tmp_path)), "--out", str(tmp_path / "p.json")]) == 2
    assert "propose-segments: FAILED: unexpected RuntimeError: a bug" in capsys.readouterr().err


def test_the_console_script_exits_with_the_status_main_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    flat = source(tmp_path, "Ingen overskrift.\n", "flat.md")
    monkeypatch.setattr("sys.argv", ["propose-segments", str(flat)])
    with pytest.raises(SystemExit) as exited:
        propose.console_main()
    assert exited.value.code == 1


def test_the_installed_command_is_named_propose_segments() -> None:
    (script,) = entry_points(group="console_scripts", name="propose-segments")
    assert script.value == "grounding.propose:console_main"


def test_help_is_not_a_failure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "--max-segment-chars" in capsys.readouterr().out
