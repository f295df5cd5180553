"""grounding/ must stay liftable into its own package: it never imports Django or review."""

import ast
from pathlib import Path

import pytest

GROUNDING = Path(__file__).resolve().parents[1] / "grounding"
FORBIDDEN = {"django", "review"}


def imported_top_level_names(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("module", sorted(GROUNDING.rglob("*.py")), ids=lambda p: p.name)
def test_a_grounding_module_imports_neither_django_nor_review(module: Path) -> None:
    assert not imported_top_level_names(module.read_text(encoding="utf-8")) & FORBIDDEN


def test_the_import_check_recognises_a_django_import() -> None:
    # The positive control: without it the check above could pass by seeing nothing.
    assert "django" in imported_top_level_names("from django.db import models\n")
    assert "review" in imported_top_level_names("import review.models\n")
