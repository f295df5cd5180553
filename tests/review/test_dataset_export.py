"""The dataset folder: the decision log and the adjudicated plans as Parquet and a card, read
back by pyarrow and by the `datasets` library as a user would; nothing undecided in it, the
log as blind as its other exports, one project's alone, written whole or not at all."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError

from review.actions.cases import decide_case
from review.actions.entries import accept_entry, merge_entry, reject_entry
from review.actions.plan_reviews import adjudicate_plan
from review.adapters import dataset
from review.adapters.dataset import export_dataset
from review.adapters.errors import ImportRefused
from review.models import Decision, Plan, Project
from tests.builders.cases_answers import make_case
from tests.builders.plan_views import entries_of, make_plan
from tests.builders.reviews import double_review
from tests.builders.users import make_project, member, user_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def editor() -> User:
    return user_in(User, "edith", "Editors")


def adjudicated(editor, *, project=None) -> Plan:
    """A plan of four entries: the first accepted, the second merged into it, the third
    rejected, the fourth accepted; then adjudicated."""
    plan = make_plan(3, project=project)  # a preamble and three sections
    first, second, third, fourth = entries_of(plan)
    accept_entry(first, actor=editor, expected_version=first.version)
    merge_entry(second, actor=editor, expected_version=second.version, note="one section")
    reject_entry(third, actor=editor, expected_version=third.version, note="not a section")
    accept_entry(fourth, actor=editor, expected_version=fourth.version)
    plan.refresh_from_db()
    return adjudicate_plan(plan, actor=editor, expected_version=plan.version)


def rows(folder, table: str) -> list[dict]:
    return pq.read_table(folder / table / f"{table}.parquet").to_pylist()


def test_the_folder_holds_the_log_and_every_entry_of_the_adjudicated_plans(
    tmp_path, editor
) -> None:
    plan = adjudicated(editor)
    open_plan = make_plan(5, name="open.md")  # another text: a plan of its own
    first = entries_of(open_plan)[0]
    accept_entry(first, actor=editor, expected_version=first.version)
    default = Project.objects.get(slug="default")

    done = export_dataset(tmp_path / "out", default, licence="cc-by-4.0")

    decisions, entries = rows(tmp_path / "out", "decisions"), rows(tmp_path / "out", "entries")
    logged = Decision.objects.filter(project=default).order_by("pk")
    assert [row["id"] for row in decisions] == list(logged.values_list("pk", flat=True))
    assert (done.decisions, done.entries, done.plans) == (len(decisions), 4, 1)
    assert {row["plan_id"] for row in entries} == {plan.pk}  # the open plan is not in it
    outcomes = [(row["outcome"], row["decision"]) for row in entries]
    assert sorted(outcomes) == [
        ("kept", "accept"),
        ("kept", "accept"),
        ("merged", "merge"),
        ("rejected", "reject"),
    ]
    text = plan.document.text
    for row in entries:
        if row["outcome"] == "kept":
            assert row["text"] == text[row["start"] : row["end"]]
            assert row["quote"] and row["quote"] in row["text"]
        assert row["decided_by"] == "edith" and row["rules"]
    rejected = next(row for row in entries if row["outcome"] == "rejected")
    assert rejected["note"] == "not a section" and rejected["text"] is None
    accepted = next(row for row in decisions if row["action"] == "entry.accept")
    assert accepted["actor"] == "edith" and json.loads(accepted["after"])["state"] == "accepted"


def test_the_datasets_library_reads_each_table_and_the_cards_configs(
    tmp_path, editor, monkeypatch
) -> None:
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    adjudicated(editor)
    folder = tmp_path / "out"
    export_dataset(folder, Project.objects.get(slug="default"), licence="cc-by-4.0")
    from datasets import load_dataset

    decisions = load_dataset("parquet", data_dir=str(folder / "decisions"), split="train")
    entries = load_dataset(str(folder), "entries", split="train")

    assert decisions.num_rows == Decision.objects.count()
    assert entries.num_rows == 4 and "withheld" in decisions.column_names
    assert set(entries["outcome"]) == {"kept", "merged", "rejected"}
    card = (folder / "README.md").read_text()
    assert card.startswith("---\nlicense: cc-by-4.0\n")
    assert f"**decisions**: {decisions.num_rows:,} rows" in card
    assert "| `source_sha256` | string |" in card


def test_a_double_review_under_way_is_withheld_as_from_the_other_exports(tmp_path) -> None:
    double_review("cases")
    moderator = user_in(User, "mo", "Moderators")
    case = make_case("c-1")
    decide_case(case, "uphold", actor=moderator, expected_version=case.version, note="mine")

    export_dataset(tmp_path / "out", Project.objects.get(slug="default"))

    opinion = next(
        row for row in rows(tmp_path / "out", "decisions") if row["object_type"] == "case"
    )
    assert opinion["withheld"] is True
    assert (opinion["actor"], opinion["action"], opinion["note"]) == ("", "withheld", "")


def test_another_projects_decisions_and_plans_stay_out(tmp_path, editor) -> None:
    shop = make_project("shop")
    shop_editor = User.objects.create_user("sam")
    member(shop_editor, shop, "editor")
    adjudicated(shop_editor, project=shop)

    done = export_dataset(tmp_path / "out", Project.objects.get(slug="default"))

    assert (done.decisions, done.entries, done.plans) == (0, 0, 0)
    assert rows(tmp_path / "out", "entries") == []


def test_a_folder_in_use_or_a_licence_that_is_no_identifier_is_refused(tmp_path) -> None:
    default = Project.objects.get(slug="default")
    used = tmp_path / "used"
    used.mkdir()
    (used / "notes.txt").write_text("mine")

    with pytest.raises(ImportRefused, match="already there and not an empty folder"):
        export_dataset(used, default)
    with pytest.raises(ImportRefused, match="licence"):
        export_dataset(tmp_path / "out", default, licence="mit\nconfigs: []")
    assert [path.name for path in used.iterdir()] == ["notes.txt"]
    assert not (tmp_path / "out").exists()


def test_an_export_that_fails_half_way_leaves_nothing(tmp_path, editor, monkeypatch) -> None:
    adjudicated(editor)

    def broken(plan):
        raise OSError("disk full")

    monkeypatch.setattr(dataset, "export_plan", broken)
    with pytest.raises(OSError, match="disk full"):
        export_dataset(tmp_path / "out", Project.objects.get(slug="default"))

    assert list(tmp_path.iterdir()) == []


def test_the_command_writes_the_folder_and_refuses_one_in_use(tmp_path, editor) -> None:
    adjudicated(editor)

    call_command("export_dataset", str(tmp_path / "out"), "--licence", "cc0-1.0")

    assert len(rows(tmp_path / "out", "entries")) == 4
    with pytest.raises(CommandError, match="refused: .*already there"):
        call_command("export_dataset", str(tmp_path / "out"))
