"""One section, one entry: a section whose heading stands and whose body was rewritten comes
back as one doubtful entry over heading and new body, and the proposer is offered only text no
carried entry claims; on the demo document, a 30-section probe of real prose, and every pair of
the revision corpus (benchmarks/corpus/revisions, real revisions of public files)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from grounding.anchors import PLACED
from grounding.extract import extract_text
from grounding.propose import NothingToPropose, propose_plan
from grounding.revisions import DOUBTFUL, KEPT, NEW, RevisionError, carry_plan
from grounding.segmentation import parse_segmentation_plan
from tests.builders.sections import CORPUS, NEW_BODY, probe, rewrite_body

DEMO = Path(__file__).resolve().parents[2] / "review" / "demo_data" / "byggteknisk-brann.md"
DISTANCES = (1, 10, 50)
# The app's plans: by headings alone, and with a cap as the demo's text documents have.
CAPS = (0, 2500)


def plan_of(name: str, text: str, cap: int = 0):
    return parse_segmentation_plan(
        propose_plan(name, text.encode(), max_segment_chars=cap), text
    ).entries


def carry(name: str, old: str, new: str, cap: int = 0):
    """The old text's proposed plan carried onto the new text as the app carries it: with the
    proposer's entries for the new text and the old entries' paths."""
    entries = plan_of(name, old, cap)
    try:
        proposals = plan_of(name, new, cap)
    except NothingToPropose:
        proposals = ()
    carrying = carry_plan(
        old,
        new,
        [entry.anchor for entry in entries],
        [entry.span for entry in entries],
        proposals,
        [entry.path for entry in entries],
    )
    return entries, carrying


def title_of(entries, carried) -> str:
    return (entries[carried.source] if carried.source is not None else carried.entry).title


def parent_and_title(entries, carried) -> tuple[str, str]:
    entry = entries[carried.source] if carried.source is not None else carried.entry
    return entry.path.rpartition("/")[0], entry.title


def assert_a_plan_that_keeps_only_what_stands(entries, carrying, new: str) -> None:
    """The guarantees every carrying keeps: each old entry carried or gone, once; spans in
    order without overlaps; a decision kept only on the anchor's own text, placed beyond
    doubt."""
    sources = [e.source for e in carrying.entries if e.source is not None]
    assert sorted(sources + list(carrying.gone)) == list(range(len(entries)))
    spans = [e.span for e in carrying.entries]
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
    for carried in carrying.entries:
        if carried.fate == KEPT:
            assert carried.status in PLACED
            assert new[slice(*carried.span)] == entries[carried.source].anchor.quote


def test_a_section_whose_body_was_rewritten_comes_back_as_one_doubtful_entry() -> None:
    old = DEMO.read_text(encoding="utf-8")
    new = rewrite_body(old, "### 3.2 Bæreevne og stabilitet", NEW_BODY)

    entries, carrying = carry("byggteknisk-brann.md", old, new)
    section = [e for e in carrying.entries if title_of(entries, e) == "3.2 Bæreevne og stabilitet"]

    assert len(section) == 1
    (carried,) = section
    assert carried.fate == DOUBTFUL and carried.status not in PLACED
    assert entries[carried.source].title == "3.2 Bæreevne og stabilitet"
    text = new[slice(*carried.span)]
    assert text.startswith("### 3.2 Bæreevne og stabilitet") and NEW_BODY in text
    assert NEW not in {e.fate for e in carrying.entries}
    assert carrying.uncovered == ()
    assert_a_plan_that_keeps_only_what_stands(entries, carrying, new)


def test_a_paragraph_added_to_a_section_makes_it_doubtful_rather_than_a_second_entry() -> None:
    old = DEMO.read_text(encoding="utf-8")
    added = "Brannceller skal ha dør som lukker seg selv ved brann."
    new = old.replace("### 3.3 Brannseksjoner", f"{added}\n\n### 3.3 Brannseksjoner")

    entries, carrying = carry("byggteknisk-brann.md", old, new)
    section = [e for e in carrying.entries if added in new[slice(*e.span)]]

    assert len(section) == 1 and section[0].source is not None
    assert entries[section[0].source].title == "3.2 Bæreevne og stabilitet"
    assert section[0].fate == DOUBTFUL and section[0].status not in PLACED
    assert NEW not in {e.fate for e in carrying.entries}


def test_a_new_section_after_a_rewritten_one_is_still_offered_on_its_own() -> None:
    old = DEMO.read_text(encoding="utf-8")
    new = rewrite_body(old, "### 3.2 Bæreevne og stabilitet", NEW_BODY).replace(
        "### 3.3 Brannseksjoner",
        "### 3.2a Brannvegger\n\nEn brannvegg skal stå når konstruksjoner på én side faller "
        "sammen.\n\n### 3.3 Brannseksjoner",
    )

    entries, carrying = carry("byggteknisk-brann.md", old, new)
    offered = [e for e in carrying.entries if e.fate == NEW]

    assert [e.entry.title for e in offered] == ["3.2a Brannvegger"]
    assert new[slice(*offered[0].span)].startswith("### 3.2a Brannvegger")
    rewritten = next(e for e in carrying.entries if title_of(entries, e).startswith("3.2 "))
    assert "Brannvegger" not in new[slice(*rewritten.span)]


def test_the_demo_revision_comes_back_with_one_entry_per_section() -> None:
    old = DEMO.read_text(encoding="utf-8")
    new = DEMO.with_name("byggteknisk-brann-revisjon-2.md").read_text(encoding="utf-8")

    entries, carrying = carry("byggteknisk-brann.md", old, new)
    titles = Counter(title_of(entries, e) for e in carrying.entries)

    assert max(titles.values()) == 1, titles
    assert_a_plan_that_keeps_only_what_stands(entries, carrying, new)


def test_each_rewritten_section_of_a_thirty_section_probe_comes_back_as_one_entry() -> None:
    old, new, rewritten = probe()

    entries, carrying = carry("probe.md", old, new)
    by_title = {}
    for carried in carrying.entries:
        by_title.setdefault(title_of(entries, carried), []).append(carried)

    assert len(entries) == 30
    assert sorted(by_title) == sorted(entry.title for entry in entries)
    assert all(len(found) == 1 for found in by_title.values())
    for heading in rewritten:
        (carried,) = by_title[heading.removeprefix("## ")]
        assert carried.fate == DOUBTFUL and carried.source is not None
        assert new[slice(*carried.span)].startswith(heading)
    assert sum(e.fate == KEPT for e in carrying.entries) == 30 - len(rewritten)
    assert_a_plan_that_keeps_only_what_stands(entries, carrying, new)


def corpus_pairs():
    """(folder, kind, old text, new text) for each corpus file at 1, 10 and 50 revisions."""
    for folder in sorted(path for path in CORPUS.iterdir() if path.is_dir()):
        suffix = next(path.suffix for path in folder.iterdir() if path.stem == "r0")
        # The app reads reStructuredText and AsciiDoc as plain text.
        name = "revision.md" if suffix == ".md" else "revision.txt"
        old = extract_text(name, (folder / f"r0{suffix}").read_bytes())
        for distance in DISTANCES:
            new = extract_text(name, (folder / f"r{distance}{suffix}").read_bytes())
            yield f"{folder.name} r{distance}", name, old, new


def test_no_carried_plan_of_the_corpus_holds_a_section_twice_where_the_old_plan_had_it_once():
    carried, doubled = Counter(), []
    for label, name, old, new in corpus_pairs():
        for cap in CAPS:
            try:
                entries, carrying = carry(name, old, new, cap)
            except NothingToPropose:
                continue  # a text without headings has a plan only with a cap
            before = Counter((e.path.rpartition("/")[0], e.title) for e in entries)
            after = Counter(parent_and_title(entries, e) for e in carrying.entries)
            doubled += [
                (label, cap, key) for key, count in after.items() if count > 1 and before[key] == 1
            ]
            assert_a_plan_that_keeps_only_what_stands(entries, carrying, new)
            carried[cap] += 1

    assert carried[2500] == 20 * len(DISTANCES) and carried[0] >= 10 * len(DISTANCES)
    assert doubled == []


def test_one_path_is_needed_per_span_when_paths_are_given() -> None:
    text = DEMO.read_text(encoding="utf-8")
    entries = plan_of("byggteknisk-brann.md", text)

    with pytest.raises(RevisionError, match="1 paths but"):
        carry_plan(text, text, [e.anchor for e in entries], [e.span for e in entries], (), ["one"])
