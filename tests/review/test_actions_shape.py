"""The actions depend on each other one way only, say which of them only ask and which
write, and are the only writers of what a person changes: the views call them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from review.actions import reviewers
from review.actions.reviews import is_one_of_two_opinions
from review.decisions import StaleVersion
from review.models import Case, ConflictMet, ReviewerSettings
from tests.builders.cases_answers import make_case
from tests.builders.reviews import double_review

ACTIONS = Path(reviewers.__file__).parent
VIEWS = ACTIONS.parent / "views"


def imports_of(path: Path) -> tuple[set[str], list[str]]:
    """The review.actions modules `path` imports, and those it imports inside a function."""
    tree = ast.parse(path.read_text())
    top, hidden = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            hidden += [
                inner.module
                for inner in ast.walk(node)
                if isinstance(inner, ast.ImportFrom) and inner.module
            ]
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("review.actions"):
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            top |= {name.removeprefix("review.actions.") for name in names}
    return top, hidden


def test_no_action_module_hides_an_import_in_a_function():
    hidden = {path.stem: imports_of(path)[1] for path in ACTIONS.glob("*.py")}
    assert {name: found for name, found in hidden.items() if found} == {}


def test_the_action_modules_import_each_other_without_a_cycle():
    modules = {path.stem for path in ACTIONS.glob("*.py")} - {"__init__"}
    graph = {name: imports_of(ACTIONS / f"{name}.py")[0] & modules for name in modules}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for step in graph[start] - seen:
            if step == goal or reaches(step, goal, seen | {step}):
                return True
        return False

    assert [name for name in sorted(modules) if reaches(name, name, set())] == []


@pytest.mark.parametrize("view", ["queues.py", "deciding.py"])
def test_a_view_writes_nothing_itself(view):
    source = (VIEWS / view).read_text()
    for write in (".create(", ".update_or_create(", ".update(", ".delete(", ".save("):
        assert write not in source


@pytest.mark.django_db
def test_whether_a_verdict_is_one_of_two_opinions_is_asked_without_writing(moderator):
    case = make_case("c-1")
    assert not is_one_of_two_opinions(case, Case.Verdict.UPHELD)
    double_review("cases")
    assert is_one_of_two_opinions(case, Case.Verdict.UPHELD)
    assert Case.objects.get(pk=case.pk).version == case.version


@pytest.mark.django_db
def test_the_reviewer_actions_keep_the_stay_choice_and_the_conflicts_met(moderator):
    case = make_case("c-1")
    reviewers.do_set_stay_after_deciding(moderator, True)
    assert ReviewerSettings.objects.get(user=moderator).stay_after_deciding
    reviewers.do_set_stay_after_deciding(moderator, False)
    assert not ReviewerSettings.objects.get(user=moderator).stay_after_deciding
    reviewers.do_note_conflict(moderator, StaleVersion(case, None))
    met = ConflictMet.objects.get()
    assert (met.user, met.object_type, met.object_id) == (moderator, "case", str(case.pk))
