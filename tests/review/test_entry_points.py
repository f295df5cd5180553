"""Storing documents, proposing and importing have one entry point each, in
review/actions/documents.py and review/actions/imports.py: every door (the API, the upload
forms, the jobs' task, the commands) calls those, and they ask the actor's role."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.core.exceptions import PermissionDenied

from review.actions.documents import COMMAND_LINE, Accepted, propose_document, store_document
from review.actions.imports import import_answers, import_cases, import_plan
from review.models import Answer, Case, Document, Plan
from review.models.projects import default_project_id
from tests.builders.cases_answers import answer_line, case_line
from tests.builders.plans import CODE_TEXT, payload_text, proposed_payload

pytestmark = pytest.mark.django_db

REVIEW = Path(__file__).resolve().parents[2] / "review"
# The adapters' functions that write what a person brings in; only the actions call them.
ENTRY_POINTS = {
    "store_document",
    "propose_document",
    "import_plan",
    "import_cases",
    "import_answers",
}


def adapter_calls(source: str) -> set[str]:
    """The entry points `source` takes from review.adapters, by name or through a module."""
    found, modules = set(), set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("review.adapters"):
            for alias in node.names:
                if alias.name in ENTRY_POINTS:
                    found.add(alias.name)
                elif node.module == "review.adapters":
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            modules.update(
                alias.asname or alias.name
                for alias in node.names
                if alias.name.startswith("review.adapters")
            )
    for node in ast.walk(ast.parse(source)):
        attribute = isinstance(node, ast.Attribute) and node.attr in ENTRY_POINTS
        if attribute and ast.unparse(node.value) in modules:
            found.add(node.attr)
    return found


DOORS = sorted(
    path
    for path in REVIEW.rglob("*.py")
    if path.relative_to(REVIEW).parts[0] not in {"actions", "adapters", "migrations"}
)


@pytest.mark.parametrize("module", DOORS, ids=lambda path: str(path.relative_to(REVIEW)))
def test_no_door_stores_proposes_or_imports_past_the_actions(module: Path) -> None:
    assert not adapter_calls(module.read_text(encoding="utf-8"))


def test_the_check_sees_an_entry_point_taken_by_name_or_through_its_module() -> None:
    # The positive control: without it the check above could pass by seeing nothing.
    assert adapter_calls("from review.adapters.plans import import_plan\n") == {"import_plan"}
    through_module = "from review.adapters import cases\ncases.import_cases(b'')\n"
    assert adapter_calls(through_module) == {"import_cases"}
    dotted = "import review.adapters.documents\nreview.adapters.documents.store_document()\n"
    assert adapter_calls(dotted) == {"store_document"}
    assert adapter_calls("from review.actions.imports import import_plan\n") == set()


# --- who may ---------------------------------------------------------------------------------

DOCUMENT = CODE_TEXT.encode()


def document() -> Document:
    return store_document("n500.md", DOCUMENT, actor=COMMAND_LINE, project=default_project_id())


def refusal(call) -> str:
    with pytest.raises(PermissionDenied) as refused:
        call()
    return str(refused.value)


def test_a_reader_stores_no_document_and_proposes_no_plan(reader) -> None:
    assert refusal(
        lambda: store_document("n500.md", DOCUMENT, actor=reader, project=default_project_id())
    ) == ("only Editors push documents")
    assert refusal(
        lambda: propose_document("n500.md", DOCUMENT, actor=reader, project=default_project_id())
    ) == ("only Editors propose plans")
    assert not Document.objects.exists()


def test_a_moderator_imports_no_plan_and_no_answers(moderator) -> None:
    stored = document()
    text = payload_text(proposed_payload())
    assert refusal(lambda: import_plan(stored, text, actor=moderator)) == (
        "only Editors import plans"
    )
    assert refusal(
        lambda: import_answers(
            answer_line("a-1") + "\n", actor=moderator, project=default_project_id()
        )
    ) == ("only Editors import answers")
    assert not Plan.objects.exists() and not Answer.objects.exists()


def test_an_editor_imports_no_cases(editor) -> None:
    assert refusal(
        lambda: import_cases(case_line("c-1") + "\n", actor=editor, project=default_project_id())
    ) == ("only Moderators import cases")
    assert not Case.objects.exists()


def test_no_one_named_is_refused_like_a_role_that_may_not() -> None:
    assert refusal(
        lambda: import_cases(case_line("c-1") + "\n", actor=None, project=default_project_id())
    ) == ("only Moderators import cases")


def test_an_editor_stores_proposes_and_imports_and_is_named_on_the_plan(editor) -> None:
    plan = propose_document("n500.md", DOCUMENT, actor=editor, project=default_project_id())
    assert plan.created and plan.options["submitted_by"] == "editor"
    assert (
        store_document("n500.md", DOCUMENT, actor=editor, project=default_project_id())
        == plan.document
    )
    imported = import_plan(plan.document, payload_text(proposed_payload()), actor=editor)
    assert imported.created and imported.options == {"submitted_by": "editor"}
    assert (
        import_answers(
            answer_line("a-1") + "\n", actor=editor, project=default_project_id()
        ).created
        == 1
    )


def test_a_moderator_imports_cases(moderator) -> None:
    assert (
        import_cases(case_line("c-1") + "\n", actor=moderator, project=default_project_id()).created
        == 1
    )


def test_an_accepted_actor_is_not_asked_again_and_is_still_named(editor) -> None:
    # A job runs what the door that started it accepted, as the person who started it.
    assert (
        import_cases(
            case_line("c-1") + "\n", actor=Accepted(editor), project=default_project_id()
        ).created
        == 1
    )
    plan = propose_document(
        "n500.md", DOCUMENT, actor=Accepted(editor), project=default_project_id()
    )
    assert plan.options["submitted_by"] == "editor"


def test_the_command_line_may_and_names_no_one() -> None:
    plan = propose_document("n500.md", DOCUMENT, actor=COMMAND_LINE, project=default_project_id())
    assert plan.created and "submitted_by" not in plan.options
