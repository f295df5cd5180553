"""The documentation holds to the code: every API operation the served schema has is described
in docs/api.md and nothing more, every setting read from the environment is in
docs/operations.md, and the links between the documents lead somewhere."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# How docs/api.md names an operation: a heading "### GET /api/projects/{project}/plans/{plan_id}".
OPERATION_HEADING = re.compile(r"^### (GET|POST|PUT|PATCH|DELETE) (/\S+)$", re.MULTILINE)
# The settings module's own readers of the environment, besides os.environ.get.
ENV_READERS = {"_env_flag", "_env_seconds", "_env_count", "_env_required"}
SETTING_PREFIXES = ("REVIEW_", "INSIGHTS_")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _served_operations() -> set[tuple[str, str]]:
    from review.api import api

    schema = api.get_openapi_schema()
    return {
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method in operations
    }


def _documented_operations() -> set[tuple[str, str]]:
    return set(OPERATION_HEADING.findall((DOCS / "api.md").read_text(encoding="utf-8")))


def test_every_operation_of_the_served_schema_is_documented_in_api_md():
    missing = _served_operations() - _documented_operations()
    assert not missing, f"docs/api.md does not describe {sorted(missing)}"


def test_every_operation_api_md_documents_is_served():
    extra = _documented_operations() - _served_operations()
    assert not extra, f"docs/api.md describes operations the API does not have: {sorted(extra)}"


def _environment_name(call: ast.Call) -> str | None:
    """The variable a call reads, when it is `os.environ.get("X", ...)` or `_env_*("X", ...)`."""
    func = call.func
    reads = (isinstance(func, ast.Name) and func.id in ENV_READERS) or (
        isinstance(func, ast.Attribute)
        and func.attr == "get"
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "environ"
    )
    if reads and call.args and isinstance(call.args[0], ast.Constant):
        return call.args[0].value
    return None


def _settings_to_document(module: Path) -> set[str]:
    """Every environment variable the module reads, every setting it fills from one, and
    every REVIEW_* or INSIGHTS_* setting it defines."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and (variable := _environment_name(node)):
            names.add(variable)
        if isinstance(node, ast.Assign):
            targets = [target.id for target in node.targets if isinstance(target, ast.Name)]
            from_environment = any(
                isinstance(inner, ast.Call) and _environment_name(inner)
                for inner in ast.walk(node.value)
            )
            names.update(
                name
                for name in targets
                if name.isupper() and (from_environment or name.startswith(SETTING_PREFIXES))
            )
    return names


def _names_in_tables(document: Path) -> set[str]:
    rows = [line for line in document.read_text(encoding="utf-8").splitlines() if line[:1] == "|"]
    return set(re.findall(r"`([A-Z][A-Z0-9_]+)`", "\n".join(rows)))


def test_every_setting_read_from_the_environment_is_in_the_table_of_operations_md():
    wanted = _settings_to_document(ROOT / "review" / "settings.py")
    wanted |= _settings_to_document(ROOT / "gunicorn.conf.py")
    assert "DJANGO_ENV" in wanted, "the scan of the settings found nothing it should have"
    missing = wanted - _names_in_tables(DOCS / "operations.md")
    assert not missing, f"docs/operations.md's tables do not name {sorted(missing)}"


def _markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def _heading_slugs(document: Path) -> set[str]:
    """The anchors GitHub gives a document's headings (lower case, punctuation dropped)."""
    slugs = set()
    for line in document.read_text(encoding="utf-8").splitlines():
        if match := re.match(r"#{1,6} (.+)", line):
            text = re.sub(r"[^\w\- ]", "", match.group(1).lower())
            slugs.add(text.replace(" ", "-"))
    return slugs


def test_every_link_between_the_documents_is_relative_and_leads_somewhere():
    broken = []
    for document in _markdown_files():
        for target in LINK.findall(document.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            if path.startswith("/"):
                broken.append(f"{document.name}: {target} is not relative")
                continue
            linked = (document.parent / path).resolve() if path else document
            if not linked.exists():
                broken.append(f"{document.name}: {target} leads nowhere")
            elif anchor and linked.suffix == ".md" and anchor not in _heading_slugs(linked):
                broken.append(f"{document.name}: {target} names no heading of {linked.name}")
    assert not broken, "\n".join(broken)
