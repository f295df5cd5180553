"""client/ is installed where the app is not (a pipeline's machine): it imports only the
standard library, httpx (its one dependency) and itself."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.test_grounding_is_pure import imported_top_level_names

CLIENT = Path(__file__).resolve().parents[2] / "client" / "src" / "grounding_review_client"
ALLOWED = {"httpx", "grounding_review_client", "__future__"}


@pytest.mark.parametrize("module", sorted(CLIENT.rglob("*.py")), ids=lambda p: p.name)
def test_a_client_module_imports_only_the_standard_library_httpx_and_the_client(module: Path):
    imported = imported_top_level_names(module.read_text(encoding="utf-8"))

    assert imported - ALLOWED - sys.stdlib_module_names == set()


def test_the_check_sees_an_import_of_the_app():
    # The positive control: the check above must not pass by seeing nothing.
    assert imported_top_level_names("from review.models import Plan\n") - sys.stdlib_module_names
