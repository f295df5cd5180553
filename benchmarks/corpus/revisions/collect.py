"""Rebuild this corpus from the repositories' history: the texts of each file at four revisions.

    python benchmarks/corpus/revisions/collect.py MIRRORS

MIRRORS is a folder holding a bare clone of each repository as `owner+name` (or `owner+name/repo`).
A file's revisions are the successive different texts it had on the first-parent line of its
default branch. For each file one base revision is picked (seeded, away from both ends of its
history), and the texts at the base and 1, 10 and 50 revisions later are written as
`<file>/r0<ext>`, `r1`, `r10`, `r50`. MANIFEST.md records where each text came from.
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path, PurePosixPath

HERE = Path(__file__).resolve().parent
DISTANCES = (1, 10, 50)
SEED = 20261201

# (repository, path, format): often-edited documentation in three markup languages.
FILES = (
    ("jlevy/the-art-of-command-line", "README.md", "markdown"),
    ("opencontainers/runtime-spec", "config.md", "markdown"),
    ("opencontainers/runtime-spec", "config-linux.md", "markdown"),
    ("opencontainers/runtime-spec", "runtime.md", "markdown"),
    ("rust-lang/book", "src/ch02-00-guessing-game-tutorial.md", "markdown"),
    ("rust-lang/book", "src/ch03-02-data-types.md", "markdown"),
    ("opencontainers/runtime-spec", "README.md", "markdown"),
    ("pallets/flask", "CHANGES.rst", "restructuredtext"),
    ("pallets/flask", "docs/quickstart.rst", "restructuredtext"),
    ("pallets/flask", "docs/api.rst", "restructuredtext"),
    ("pallets/flask", "docs/config.rst", "restructuredtext"),
    ("psf/requests", "HISTORY.rst", "restructuredtext"),
    ("psf/requests", "docs/user/advanced.rst", "restructuredtext"),
    ("psf/requests", "docs/user/quickstart.rst", "restructuredtext"),
    ("asciidoctor/asciidoctor", "README.adoc", "asciidoc"),
    ("asciidoctor/asciidoctor", "README-fr.adoc", "asciidoc"),
    ("asciidoctor/asciidoctor", "man/asciidoctor.adoc", "asciidoc"),
    ("asciidoctor/asciidoctor", "CHANGELOG.adoc", "asciidoc"),
    ("asciidoctor/asciidoctor-pdf", "README.adoc", "asciidoc"),
    ("asciidoctor/asciidoctor-pdf", "CHANGELOG.adoc", "asciidoc"),
)


def git(git_dir: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], check=check, capture_output=True, text=True
    ).stdout


def revisions(git_dir: Path, path: str) -> list[tuple[str, str]]:
    """(commit, blob) for each different text of `path`, oldest first."""
    commits = git(git_dir, "log", "--first-parent", "--reverse", "--format=%H", "HEAD", "--", path)
    found: list[tuple[str, str]] = []
    for commit in commits.split():
        blob = git(git_dir, "rev-parse", "--verify", "--quiet", f"{commit}:{path}", check=False)
        blob = blob.strip()
        if blob and (not found or found[-1][1] != blob):
            found.append((commit, blob))
    return found


def folder_name(repository: str, path: str) -> str:
    return f"{repository.split('/')[1]}--{path.replace('/', '_')}"


def main(mirrors: Path) -> None:
    rng = random.Random(SEED)
    rows = []
    for repository, path, markup in FILES:
        git_dir = mirrors / repository.replace("/", "+")
        if (git_dir / "repo").is_dir():
            git_dir = git_dir / "repo"
        history = revisions(git_dir, path)
        last_base = len(history) - 1 - max(DISTANCES)
        if last_base < 0:
            raise SystemExit(f"{repository} {path}: only {len(history)} revisions")
        base = rng.randint(min(last_base, len(history) // 4), last_base)
        folder = HERE / folder_name(repository, path)
        folder.mkdir(exist_ok=True)
        suffix = PurePosixPath(path).suffix
        picked = [(0, *history[base])] + [(d, *history[base + d]) for d in DISTANCES]
        for distance, _commit, blob in picked:
            text = git(git_dir, "cat-file", "blob", blob)
            (folder / f"r{distance}{suffix}").write_text(text, encoding="utf-8", newline="")
        commits = ", ".join(f"r{distance} `{commit}`" for distance, commit, _ in picked)
        rows.append(f"| `{folder.name}` | {repository} | `{path}` | {markup} | {commits} |")
    manifest = HERE / "MANIFEST.md"
    head, _, _ = manifest.read_text(encoding="utf-8").partition("| folder |")
    table = "| folder | repository | path | format | revisions (commit) |\n"
    table += "| --- | --- | --- | --- | --- |\n"
    manifest.write_text(head + table + "\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
