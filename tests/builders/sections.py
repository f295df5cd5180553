"""A section's body rewritten in a text, and a probe document of thirty sections of real prose
with a revision of it in which the body of every third section is rewritten: the paragraphs are
the Rust book's guessing-game chapter and, for the rewritten bodies, Flask's quickstart, both
from the revision corpus (its MANIFEST.md names their origins and licences)."""

from __future__ import annotations

import re
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "corpus" / "revisions"
SECTIONS = 30
REWRITTEN = tuple(range(1, SECTIONS, 3))


def rewrite_body(text: str, heading: str, body: str) -> str:
    """`text` with the body under `heading` (up to the next heading) replaced by `body`."""
    start = text.index(heading)
    body_start = text.index("\n\n", start) + 2
    following = text.find("\n#", body_start)
    end = following + 1 if following >= 0 else len(text)
    return text[:body_start] + body + "\n\n" + text[end:]


NEW_BODY = (
    "Alle bærende konstruksjoner dimensjoneres for den brannlasten som er beregnet for "
    "byggverket, og beregningen legges ved søknaden.\n\nEtter ferdigstillelse kontrollerer "
    "et uavhengig foretak at konstruksjonene er utført som prosjektert."
)


def prose(folder: str) -> list[str]:
    """The plain paragraphs of a corpus file's base revision: at least 25 words, and no line
    that opens with markup (a heading, a list item, code, a directive)."""
    path = next((CORPUS / folder).glob("r0.*"))
    found = []
    for paragraph in re.split(r"\n[ \t]*\n", path.read_text(encoding="utf-8")):
        lines = paragraph.strip("\n").split("\n")
        if len(paragraph.split()) >= 25 and not any(
            re.match(r"[\s#*\-`|<.:=+>\[!0-9]", line) for line in lines
        ):
            found.append(paragraph.strip())
    return found


def heading(number: int, body: str) -> str:
    words = re.findall(r"[A-Za-z]+", body)[:4]
    return f"## {number + 1} {' '.join(words)}"


def document(bodies: list[str], headings: list[str]) -> str:
    return "".join(f"{title}\n\n{body}\n\n" for title, body in zip(headings, bodies, strict=True))


def probe() -> tuple[str, str, list[str]]:
    """The probe's text, its revision, and the headings (each "## " and its title) of the
    sections whose body the revision rewrote."""
    bodies = prose("book--src_ch02-00-guessing-game-tutorial.md")[:SECTIONS]
    others = prose("flask--docs_quickstart.rst")
    assert len(bodies) == SECTIONS and len(others) >= len(REWRITTEN), "the corpus has the prose"
    headings = [heading(number, body) for number, body in enumerate(bodies)]
    revised = list(bodies)
    for other, number in zip(others, REWRITTEN, strict=False):
        revised[number] = other
    return (
        document(bodies, headings),
        document(revised, headings),
        [headings[number] for number in REWRITTEN],
    )
