"""The plan commands: propose, import_plan, export_plan, export_decisions, create_api_token."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.utils import timezone

from review.actions.plan_reviews import adjudicate_plan
from review.adapters.plans import export_plan
from review.decisions import decide
from review.models import ApiToken, Decision, Document, Entry, Plan
from tests.builders.decisions import logged
from tests.builders.plans import (
    CODE_TEXT,
    payload_text,
    proposed_payload,
    row_counts,
    sha256,
)
from tests.builders.users import make_project, member

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def refused(*args: str) -> CommandError:
    before = row_counts()
    with pytest.raises(CommandError) as error:
        run(*args)
    assert row_counts() == before, "a refused command wrote to the database"
    return error.value


@pytest.fixture
def code_file(tmp_path: Path) -> Path:
    path = tmp_path / "n500.md"
    path.write_bytes(CODE_TEXT.encode())
    return path


@pytest.fixture
def plan_file(tmp_path: Path) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(payload_text(proposed_payload()), encoding="utf-8")
    return path


def adjudicated_plan(code_file: Path) -> Plan:
    run("propose", str(code_file))
    plan = Plan.objects.get()
    editor = User.objects.create_user("editor")
    for entry in plan.entries.all():
        decide(
            entry,
            expected_version=entry.version,
            actor=editor,
            action="entry.accept",
            changes={
                "state": Entry.State.ACCEPTED,
                "decided_by": editor,
                "decided_at": timezone.now(),
            },
        )
    return adjudicate_plan(plan, actor=editor, expected_version=plan.version)


# --- propose ------------------------------------------------------------------------------------


def test_propose_stores_the_document_and_its_plan_and_says_so(code_file: Path) -> None:
    out, _ = run("propose", str(code_file), "--max-segment-chars", "500", "--path-prefix", "vn")

    plan = Plan.objects.get()
    assert out == (
        f"plan {plan.pk} for n500.md (document {plan.document.pk}): "
        f"{plan.entries.count()} proposed entries\n"
    )
    assert plan.options == {"max_segment_chars": 500, "path_prefix": "vn"}
    assert bytes(plan.document.data) == code_file.read_bytes()


def test_propose_run_twice_stores_nothing_new(code_file: Path) -> None:
    run("propose", str(code_file))
    counts = row_counts()

    out, _ = run("propose", str(code_file))

    assert "was already proposed with these options" in out
    assert row_counts() == counts


def test_propose_with_nothing_to_propose_exits_one_and_stores_nothing(tmp_path: Path) -> None:
    flat = tmp_path / "flat.md"
    flat.write_text("One paragraph and no headings.\n")

    error = refused("propose", str(flat))

    assert error.returncode == 1
    assert "nothing to propose for flat.md" in str(error)


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.md", b"", "refused: empty.md is empty"),
        ("latin1.md", "# Rømning\n".encode("latin-1"), "not valid UTF-8 at byte offset 3"),
        ("notes.odt", b"PK", "cannot extract text from a file with type '.odt'"),
    ],
    ids=["empty", "undecodable", "unsupported"],
)
def test_propose_refuses_a_file_without_text_with_exit_two(tmp_path, name, data, reason) -> None:
    path = tmp_path / name
    path.write_bytes(data)

    error = refused("propose", str(path))

    assert error.returncode == 2
    assert reason in str(error)


def test_propose_names_a_file_it_cannot_read(tmp_path: Path) -> None:
    error = refused("propose", str(tmp_path / "missing.md"))
    assert error.returncode == 2
    assert f"cannot read document {tmp_path / 'missing.md'}: No such file" in str(error)


def test_a_refused_command_exits_non_zero_with_the_reason_on_stderr(tmp_path: Path) -> None:
    missing = tmp_path / "missing.md"
    finished = subprocess.run(  # noqa: S603 - our own manage.py with a path we made
        [sys.executable, "manage.py", "propose", str(missing)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert finished.returncode == 2
    assert f"cannot read document {missing}" in finished.stderr
    assert finished.stdout == ""


# --- import_plan -------------------------------------------------------------------------------


def test_import_plan_stores_a_new_document_file_and_the_plan(code_file, plan_file) -> None:
    out, _ = run("import_plan", str(code_file), str(plan_file))

    plan = Plan.objects.get()
    assert out.startswith(f"{plan_file} imported as plan {plan.pk} for n500.md")
    assert plan.original_payload == plan_file.read_text(encoding="utf-8")
    assert plan.document.sha256 == sha256(code_file.read_bytes())


def test_import_plan_accepts_the_id_of_a_stored_document(code_file, plan_file) -> None:
    run("propose", str(code_file))
    document = Document.objects.get()

    out, _ = run("import_plan", str(document.pk), str(plan_file))

    assert "imported as plan" in out
    assert Plan.objects.filter(document=document).count() == 2


def test_import_plan_refuses_a_plan_for_another_document_and_stores_neither(
    tmp_path: Path, plan_file: Path
) -> None:
    other = tmp_path / "other.md"
    other.write_text("## 9 Annet\n\nEt annet dokument.\n")

    error = refused("import_plan", str(other), str(plan_file))

    assert error.returncode == 2
    assert "refused: this plan is for other bytes" in str(error)
    assert "other.md" in str(error)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"entries": [', "refused: the plan is not valid JSON: line 1 column 14"),
        (b"", "refused: the plan is empty"),
        (b'{"adjudicated": "no"}', "'adjudicated': must be true or false"),
        (b"\xff\xfe", "is not UTF-8 text (byte 0 cannot be decoded)"),
    ],
    ids=["malformed-json", "empty-file", "wrong-type", "not-utf8"],
)
def test_import_plan_refuses_a_bad_plan_file_with_its_reason(
    code_file: Path, tmp_path: Path, content: bytes, reason: str
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)

    error = refused("import_plan", str(code_file), str(bad))

    assert reason in str(error)


def test_import_plan_lists_every_problem_on_its_own_line(code_file, tmp_path: Path) -> None:
    payload = proposed_payload()
    for entry in payload["entries"][:2]:
        entry["title"] = "T" * 600
    bad = tmp_path / "long.json"
    bad.write_text(payload_text(payload))

    message = str(refused("import_plan", str(code_file), str(bad)))

    assert message.startswith("refused (2 problems):\n  - entry #1")
    assert "\n  - entry #2" in message


def test_import_plan_refuses_a_document_that_is_neither_file_nor_id(plan_file: Path) -> None:
    error = refused("import_plan", "n500.md", str(plan_file))
    assert "DOCUMENT 'n500.md' is neither a file nor the id of a stored document" in str(error)
    assert "neither a file" in str(refused("import_plan", "9999", str(plan_file)))


# --- export_plan -------------------------------------------------------------------------------


def test_export_plan_writes_the_frozen_payload_to_stdout(code_file: Path) -> None:
    plan = adjudicated_plan(code_file)

    out, _ = run("export_plan", str(plan.pk))

    assert out == plan.adjudicated_payload == export_plan(plan)
    assert json.loads(out)["adjudicated"] is True


def test_export_plan_out_writes_the_whole_file_and_leaves_no_temporary(code_file, tmp_path):
    plan = adjudicated_plan(code_file)
    target = tmp_path / "exports" / "plan.json"
    target.parent.mkdir()
    target.write_text("an older export")

    run("export_plan", str(plan.pk), "--out", str(target))

    assert target.read_text(encoding="utf-8") == plan.adjudicated_payload
    assert [path.name for path in target.parent.iterdir()] == ["plan.json"]


def test_export_plan_refuses_an_open_plan_naming_the_undecided_entries(code_file: Path) -> None:
    run("propose", str(code_file))
    plan = Plan.objects.get()
    paths = list(plan.entries.order_by("position").values_list("path", flat=True))

    message = str(refused("export_plan", str(plan.pk)))

    assert f"plan {plan.pk} is not adjudicated" in message
    for number, path in enumerate(paths, start=1):
        assert f"entry #{number} ({path!r}) is still undecided" in message


def test_export_plan_names_a_missing_plan_and_an_unwritable_file(code_file, tmp_path) -> None:
    assert "there is no plan with id 404" in str(refused("export_plan", "404"))
    plan = adjudicated_plan(code_file)
    error = refused("export_plan", str(plan.pk), "--out", str(tmp_path / "no" / "such" / "x"))
    assert "cannot write" in str(error)


# --- export_decisions ------------------------------------------------------------------------


def test_export_decisions_writes_the_log_as_jsonl_in_the_order_decided(code_file) -> None:
    plan = adjudicated_plan(code_file)

    out, _ = run("export_decisions")

    rows = [json.loads(line) for line in out.splitlines()]
    accepted = ["entry.accept"] * plan.entries.count()
    assert [row["action"] for row in rows] == [*accepted, "plan.adjudicate"]
    assert [row["id"] for row in rows] == sorted(row["id"] for row in rows)
    last = rows[-1]
    assert (last["actor"], last["object_type"], last["object_id"]) == (
        "editor",
        "plan",
        str(plan.pk),
    )
    assert set(last) == {
        "id",
        "at",
        "actor",
        "action",
        "object_type",
        "object_id",
        "before",
        "after",
        "note",
        "undoes",
    }


def test_export_decisions_since_a_date_leaves_out_what_came_before() -> None:
    logged("case.uphold", "2026-11-30T23:59:59+00:00")
    kept = [
        logged("case.undo", "2026-12-01T00:00:00+00:00"),
        logged("case.overturn", "2026-12-02T09:30:00+01:00"),
    ]

    out, _ = run("export_decisions", "--since", "2026-12-01")
    assert [json.loads(line)["id"] for line in out.splitlines()] == [row.pk for row in kept]
    out, _ = run("export_decisions", "--since", "2026-12-02T09:00:00")
    assert [json.loads(line)["action"] for line in out.splitlines()] == []
    out, _ = run("export_decisions", "--since", "2026-12-02T09:00:00+01:00")
    assert [json.loads(line)["action"] for line in out.splitlines()] == ["case.overturn"]


def test_export_decisions_refuses_a_since_that_is_no_date() -> None:
    error = refused("export_decisions", "--since", "last tuesday")
    assert "since: 'last tuesday' is not a date" in str(error)


def test_export_decisions_out_writes_a_file(code_file: Path, tmp_path: Path) -> None:
    adjudicated_plan(code_file)
    target = tmp_path / "log.jsonl"

    run("export_decisions", "--out", str(target))

    lines = target.read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == list(
        Decision.objects.order_by("at", "pk").values_list("pk", flat=True)
    )


# --- create_api_token ------------------------------------------------------------------------


def test_create_api_token_prints_a_key_once_and_stores_only_its_hash() -> None:
    user = User.objects.create_user("pipeline")
    member(user, None, "editor")

    out, err = run("create_api_token", "pipeline", "--name", "nightly")

    key = out.strip()
    token = ApiToken.objects.get()
    assert (token.user, token.name) == (user, "nightly")
    assert token.key_sha256 == hashlib.sha256(key.encode()).hexdigest()
    assert key not in token.key_sha256
    assert "not shown again" in err and "acting for default as Editor" in err
    assert run("create_api_token", "pipeline")[0].strip() != key


def test_a_token_acts_for_the_projects_and_roles_named_or_all_its_owner_has() -> None:
    user = User.objects.create_user("pipeline")
    member(user, None, "editor", "moderator")
    member(user, make_project("shop"), "editor")

    run("create_api_token", "pipeline", "--name", "all")
    run("create_api_token", "pipeline", "--name", "some", "--project", "default:moderator")
    run("create_api_token", "pipeline", "--name", "read", "--project", "shop:reader")

    def grants(name: str) -> dict[str, frozenset[str]]:
        token = ApiToken.objects.get(name=name)
        return {grant.project.slug: grant.role_names for grant in token.grants.all()}

    assert grants("all") == {"default": {"editor", "moderator"}, "shop": {"editor"}}
    assert grants("some") == {"default": {"moderator"}}
    assert grants("read") == {"shop": {"reader"}}


@pytest.mark.parametrize(
    ("grant", "problem"),
    [
        ("default:curator", "pipeline is no curator in 'default': a token may not do more"),
        ("shop", "pipeline works in no project 'shop'"),
        ("default:admin", "'default:admin': no role 'admin'; the roles are lead, editor"),
    ],
)
def test_a_token_is_refused_a_grant_beyond_its_owner_and_nothing_is_made(grant, problem) -> None:
    member(User.objects.create_user("pipeline"), None, "editor")
    make_project("shop")

    assert problem in str(refused("create_api_token", "pipeline", "--project", grant))
    assert not ApiToken.objects.exists()


def test_create_api_token_refuses_an_unknown_user() -> None:
    assert "there is no user 'ghost'" in str(refused("create_api_token", "ghost"))
