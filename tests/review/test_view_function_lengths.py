"""The views' helpers that grew past a screen are cut into parts a reader takes in at once."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.conf import settings

MOST_LINES = 50


@pytest.mark.parametrize("module", ["insights.py", "charts.py", "presenters.py", "streaming.py"])
def test_no_function_of_the_module_is_longer_than_a_screen(module) -> None:
    path = Path(settings.BASE_DIR) / "review" / "views" / module
    tree = ast.parse(path.read_text())
    long = [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MOST_LINES
    ]
    assert long == []
