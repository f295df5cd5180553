"""The proposer's rules, gates, paths and size cap, called as the pure function the app uses."""

from __future__ import annotations

import hashlib

import pytest

import grounding
from grounding import extract
from grounding.anchors import make_anchor
from grounding.propose import (
    PROPOSED_MARKER,
    RULE_HEADING,
    RULE_NAMES,
    RULE_NUMBERED_HEADING,
    RULE_SIZE_SPLIT,
    NothingToPropose,
    ProposalError,
    is_stop_heading,
    propose_plan,
    slugify,
)
from grounding.segmentation import parse_segmentation_plan

PARAGRAPH = "Bjelkene dimensjoneres for snølast og egenvekt med tillegg for nyttelast."


def entries(text: str, name: str = "dokument.md", **options: object) -> list[dict]:
    return propose_plan(name, text.encode("utf-8"), **options)["entries"]


def paths(text: str, name: str = "dokument.md", **options: object) -> list[str]:
    return [entry["path"] for entry in entries(text, name, **options)]


def body(text: str, entry: dict) -> str:
    start, end = entry["span"]
    return text[start:end]


# --- Markdown headings ---------------------------------------------------------------


def test_atx_headings_nest_by_level_into_paths() -> None:
    text = f"# Tak\n\n{PARAGRAPH}\n\n## Sperrer\n\n{PARAGRAPH}\n\n### Lekter\n\n{PARAGRAPH}\n\n"
    text += f"## Taktekking\n\n{PARAGRAPH}\n"
    assert paths(text) == ["tak", "tak/sperrer", "tak/sperrer/lekter", "tak/taktekking"]


def test_an_atx_heading_loses_its_closing_hashes_but_keeps_its_words() -> None:
    (entry,) = entries(f"## Fasader og vinduer ##\n\n{PARAGRAPH}\n")
    assert entry["title"] == "Fasader og vinduer"
    assert entry["path"] == "fasader-og-vinduer"


def test_a_hash_without_a_space_is_not_a_heading() -> None:
    with pytest.raises(NothingToPropose):
        propose_plan("d.md", f"#emneknagg\n\n{PARAGRAPH}\n".encode())


def test_setext_headings_are_headings_too() -> None:
    text = f"Bygget\n======\n\n{PARAGRAPH}\n\nKjeller\n-------\n\n{PARAGRAPH}\n"
    found = entries(text)
    assert [entry["path"] for entry in found] == ["bygget", "bygget/kjeller"]
    assert all(entry["derived"] == [PROPOSED_MARKER, RULE_HEADING] for entry in found)
    assert body(text, found[1]).startswith("Kjeller\n-------")


def test_a_rule_under_a_paragraph_of_several_lines_or_a_list_is_not_a_heading() -> None:
    text = (
        f"# Del\n\n{PARAGRAPH}\nfortsetter her.\n---\n\n- punkt i en liste\n---\n\n"
        f"Etter en tom linje\n\n---\n\n{PARAGRAPH}\n"
    )
    assert paths(text) == ["del"]


def test_headings_inside_fenced_code_are_code() -> None:
    text = (
        f"# Oppsett\n\n{PARAGRAPH}\n\n```bash\n# installer\npip install noe\n```\n\n"
        f"~~~~\n## ikke en overskrift\n~~~\n## fortsatt kode\n~~~~\n\n"
        f"## Bruk\n\n{PARAGRAPH}\n"
    )
    assert paths(text) == ["oppsett", "oppsett/bruk"]


def test_front_matter_is_not_a_setext_heading() -> None:
    text = f"---\ntitle: Notat\nlang: nb\n---\n\n# Notat\n\n{PARAGRAPH}\n"
    assert paths(text) == ["notat"]


def test_a_numbered_line_in_markdown_is_left_to_markdown_headings() -> None:
    text = f"# Innhold\n\n{PARAGRAPH}\n\n3.1 Brannkonsept\n\n{PARAGRAPH}\n"
    assert paths(text) == ["innhold"]


# --- numbered headings in plain text --------------------------------------------------


def test_numbered_section_lines_are_headings_in_plain_text_nested_by_their_number() -> None:
    text = (
        f"3 Brannsikkerhet\n{PARAGRAPH}\n3.1 Brannkonsept\n{PARAGRAPH}\n"
        f"3.1.2 Seksjonering\n{PARAGRAPH}\n4. Rømning\n{PARAGRAPH}\n"
    )
    found = entries(text, "notat.txt")
    assert [entry["path"] for entry in found] == [
        "3-brannsikkerhet",
        "3-brannsikkerhet/3-1-brannkonsept",
        "3-brannsikkerhet/3-1-brannkonsept/3-1-2-seksjonering",
        "4-roemning",
    ]
    assert [entry["title"] for entry in found][1] == "3.1 Brannkonsept"
    assert all(entry["derived"] == [PROPOSED_MARKER, RULE_NUMBERED_HEADING] for entry in found)


@pytest.mark.parametrize(
    "line",
    [
        "1. Dette er et punkt i en liste.",
        "2 stk bjelker leveres på byggeplass",
        "3.1 Brannkonsept ............ 12",
        "3.1 Brannkonsept\t12",
        "3.1 Brannkonsept . . . . . . . 12",
        "0. Med denne instruksjonen legges enda et element til i sekvensen og navnet blir",
        "2026 Rapport fra befaringen",
        "4 Konklusjon:",
        "5 " + "Veldig lang linje " * 8,
    ],
)
def test_lines_that_only_look_numbered_are_not_headings(line: str) -> None:
    text = f"1 Innledning\n{PARAGRAPH}\n{line}\n{PARAGRAPH}\n"
    assert paths(text, "notat.txt") == ["1-innledning"]


def test_a_number_that_repeats_down_the_page_is_a_table_column_not_a_section() -> None:
    rows = "".join(f"4 CARD32 Felt {name}\n{PARAGRAPH}\n" for name in ("A", "B", "C"))
    text = f"1 Format\n{PARAGRAPH}\n{rows}2 Bruk\n{PARAGRAPH}\n1 Vedlegg\n{PARAGRAPH}\n"
    # "1" twice (a second numbering, as in an appended licence) is still an outline.
    assert paths(text, "spec.txt") == ["1-format", "2-bruk", "1-vedlegg"]


# --- gates ---------------------------------------------------------------------------


@pytest.mark.parametrize("title", ["Og", "The", "og så", "Of the", "Ogsaa", "Også", "2.1", "***"])
def test_a_heading_of_only_stop_words_or_no_words_opens_no_segment(title: str) -> None:
    assert is_stop_heading(title)
    text = f"# Vegger\n\n{PARAGRAPH}\n\n## {title}\n\n{PARAGRAPH}\n"
    (entry,) = entries(text)
    # Its text stays in the segment before it instead of vanishing.
    assert body(text, entry) == text


@pytest.mark.parametrize("title", ["Og vann", "The roof", "Om taket", "3.1 Brannkonsept"])
def test_one_word_that_is_not_a_stop_word_is_enough(title: str) -> None:
    assert not is_stop_heading(title)


def test_a_heading_with_no_body_proposes_nothing_but_still_names_its_level() -> None:
    text = f"# Del A\n\n## Fundament\n\n{PARAGRAPH}\n\n## Tom\n\n## Vegger\n\n{PARAGRAPH}\n"
    assert paths(text) == ["del-a/fundament", "del-a/vegger"]


def test_a_heading_whose_only_body_is_a_gated_heading_is_an_orphan() -> None:
    text = f"# Tak\n\n{PARAGRAPH}\n\n## Takrenner\n\n## Og\n\n## Pipe\n\n{PARAGRAPH}\n"
    assert paths(text) == ["tak", "tak/pipe"]


def test_only_headings_and_no_bodies_is_nothing_to_propose() -> None:
    with pytest.raises(NothingToPropose, match="body"):
        propose_plan("d.md", b"# En\n\n## To\n\n### Tre\n")


def test_a_document_with_no_headings_is_nothing_to_propose() -> None:
    with pytest.raises(NothingToPropose, match="no headings"):
        propose_plan("d.md", f"{PARAGRAPH}\n\n{PARAGRAPH}\n".encode())


# --- spans and anchors ----------------------------------------------------------------


def test_entries_run_from_their_heading_to_the_next_entry_and_tile_to_the_end() -> None:
    text = f"# A-blokk\n\n{PARAGRAPH}\n\n## B-blokk\n\n{PARAGRAPH}\n"
    found = entries(text)
    assert found[0]["span"][0] == 0
    assert found[0]["span"][1] == found[1]["span"][0] == text.index("## B-blokk")
    assert found[-1]["span"][1] == len(text)


def test_a_bodiless_chapter_heading_opens_its_first_section_instead_of_ending_the_last() -> None:
    text = (
        f"# Del 1\n\n## Fundament\n\n{PARAGRAPH}\n\n"
        f"# Del 2\n\n## Kapittel 2\n\n### 2.1 Vegger\n\n{PARAGRAPH}\n"
    )
    fundament, vegger = entries(text)
    assert body(text, fundament).rstrip().endswith(PARAGRAPH)
    assert vegger["span"][0] == text.index("# Del 2")
    assert fundament["span"][1] == vegger["span"][0]


def test_a_bodiless_sibling_is_no_ancestor_and_stays_with_the_entry_before() -> None:
    text = f"## Fundament\n\n{PARAGRAPH}\n\n## Tom\n\n## Vegger\n\n{PARAGRAPH}\n"
    fundament, vegger = entries(text)
    assert "## Tom" in body(text, fundament)
    assert vegger["span"][0] == text.index("## Vegger")


def test_every_anchor_is_made_from_the_text_at_proposal_time() -> None:
    text = f"# Vinduer\n\n{PARAGRAPH}\n\n## Karmer\n\n{PARAGRAPH}\n"
    for entry in entries(text):
        assert entry["anchor"] == make_anchor(text, *entry["span"]).to_dict()


def test_offsets_count_characters_of_the_extracted_text_not_bytes() -> None:
    text = "\ufeff# Ærfugl og øyer\n\nÅ være på øya er ålreit.\n\n## Å\n\n## Bøker\n\nLære.\n"
    found = entries(text)
    extracted = extract.extract_text("d.md", text.encode("utf-8"))
    assert [body(extracted, entry) for entry in found] == [
        "# Ærfugl og øyer\n\nÅ være på øya er ålreit.\n\n## Å\n\n",
        "## Bøker\n\nLære.\n",
    ]


# --- paths ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("3.1 Brannkonsept", "3-1-brannkonsept"),
        ("Rømning på Bæreevne", "roemning-paa-baereevne"),
        ("ÆØÅ æøå", "aeoeaa-aeoeaa"),
        ("Café über straße", "cafe-ueber-strasse"),
        ("  --Tak & vegg!--  ", "tak-vegg"),
        ("[Lenke](https://example.org/x) tekst", "lenke-tekst"),
        ("[Verktøy](https://x.org) [![PyPI](https://b.org/v.svg)](https://p.org)", "verktoey"),
        ('Kom i gang <a id="kom-i-gang"></a>', "kom-i-gang"),
        ("日本語", ""),
    ],
)
def test_titles_become_lower_case_ascii_slugs(title: str, slug: str) -> None:
    assert slugify(title) == slug


def test_a_long_title_is_cut_at_a_word_into_a_short_slug() -> None:
    slug = slugify("Krav til brannmotstand " * 10)
    assert len(slug) <= 60 and not slug.endswith("-")
    assert slug.startswith("krav-til-brannmotstand-krav")


def test_headings_with_the_same_title_get_distinct_paths() -> None:
    text = "".join(f"## Merknader\n\n{PARAGRAPH}\n\n" for _ in range(3))
    assert paths(text) == ["merknader", "merknader-2", "merknader-3"]


def test_a_title_with_no_latin_letters_still_gets_a_path() -> None:
    text = f"# 日本語\n\n{PARAGRAPH}\n\n# Ελληνικά\n\n{PARAGRAPH}\n"
    assert paths(text) == ["section", "section-2"]


def test_a_path_prefix_is_slugged_and_may_have_several_levels() -> None:
    text = f"# Tak\n\n{PARAGRAPH}\n"
    assert paths(text, path_prefix="Del II/Bilag 3.1") == ["del-ii/bilag-3-1/tak"]


@pytest.mark.parametrize("prefix", ["###", "a//b", "/a", "—"])
def test_a_path_prefix_with_an_empty_component_is_refused(prefix: str) -> None:
    with pytest.raises(ProposalError, match="empty path component"):
        propose_plan("d.md", f"# Tak\n\n{PARAGRAPH}\n".encode(), path_prefix=prefix)


# --- the size cap ---------------------------------------------------------------------

LONG_SECTION = "\n\n".join(f"{PARAGRAPH} Ledd {number}." for number in range(30))


def test_parts_of_a_long_span_tile_it_stay_under_the_cap_and_end_at_paragraphs() -> None:
    text = f"# Kort\n\n{PARAGRAPH}\n\n# Lang\n\n{LONG_SECTION}\n"
    found = entries(text, max_segment_chars=500)
    long_start = text.index("# Lang")
    parts = [entry for entry in found if entry["span"][0] >= long_start]
    assert len(parts) > 1
    assert parts[0]["span"][0] == long_start and parts[-1]["span"][1] == len(text)
    for before, after in zip(parts, parts[1:], strict=False):
        assert before["span"][1] == after["span"][0]
        assert text[: after["span"][0]].endswith("\n\n")
    assert all(entry["span"][1] - entry["span"][0] <= 500 for entry in found)


def test_each_cut_is_the_last_paragraph_boundary_the_cap_allows() -> None:
    text = f"# Lang\n\n{LONG_SECTION}\n"
    found = entries(text, max_segment_chars=700)
    for entry, following in zip(found, found[1:], strict=False):
        start, end = entry["span"]
        # No later boundary would still have fitted under the cap.
        assert text.find("\n\n", end - 1, start + 700) == -1
        assert following["span"][0] == end


def test_a_part_keeps_its_origin_rule_and_adds_the_size_rule() -> None:
    text = f"1 Grunnlag\n{LONG_SECTION}\n"
    found = entries(text, "notat.txt", max_segment_chars=800)
    assert all(
        entry["derived"] == [PROPOSED_MARKER, RULE_NUMBERED_HEADING, RULE_SIZE_SPLIT]
        for entry in found
    )
    assert [entry["path"] for entry in found][:2] == ["1-grunnlag/part-1", "1-grunnlag/part-2"]
    assert found[0]["title"] == f"1 Grunnlag (part 1 of {len(found)})"


def test_a_span_under_the_cap_is_left_as_it_was() -> None:
    text = f"# Kort\n\n{PARAGRAPH}\n\n# Lang\n\n{LONG_SECTION}\n"
    uncapped = entries(text)
    capped = entries(text, max_segment_chars=1000)
    assert capped[0] == uncapped[0]


def test_without_a_boundary_under_the_cap_the_cut_is_hard() -> None:
    text = "1 Tabell\n" + "0123456789" * 250 + "\n"
    found = entries(text, "tabell.txt", max_segment_chars=1000)
    lengths = [entry["span"][1] - entry["span"][0] for entry in found]
    assert lengths == [1000, 1000, len(text) - 2000]
    assert "".join(body(text, entry) for entry in found) == text


def test_an_unstructured_text_over_the_cap_is_cut_into_parts_of_the_whole_text() -> None:
    text = LONG_SECTION + "\n"
    found = entries(text, "flat.md", max_segment_chars=900, path_prefix="rapport")
    assert "".join(body(text, entry) for entry in found) == text
    assert all(entry["derived"] == [PROPOSED_MARKER, RULE_SIZE_SPLIT] for entry in found)
    assert [entry["path"] for entry in found][:2] == ["rapport/part-1", "rapport/part-2"]
    assert found[0]["title"].startswith("flat.md (part 1 of")


def test_an_unstructured_text_under_the_cap_is_still_nothing_to_propose() -> None:
    with pytest.raises(NothingToPropose, match="within the cap"):
        propose_plan("kort.md", f"{PARAGRAPH}\n".encode(), max_segment_chars=5000)


def test_part_paths_do_not_collide_with_a_heading_that_has_the_same_path() -> None:
    text = f"# Lang\n\n{LONG_SECTION}\n\n## Part 1\n\n{PARAGRAPH}\n"
    found = paths(text, max_segment_chars=600)
    assert len(found) == len(set(found))
    assert "lang/part-1" in found and "lang/part-1-2" in found


@pytest.mark.parametrize("cap", [-1, True, 2.5, "100"])
def test_a_cap_that_is_not_a_whole_number_of_characters_is_refused(cap: object) -> None:
    with pytest.raises(ProposalError, match="max-segment-chars"):
        propose_plan("d.md", f"# Tak\n\n{PARAGRAPH}\n".encode(), max_segment_chars=cap)


# --- provenance ------------------------------------------------------------------------


def test_the_plan_names_the_bytes_the_extractor_and_the_proposer() -> None:
    data = f"# Tak\n\n{PARAGRAPH}\n".encode()
    payload = propose_plan("tak.md", data)
    assert payload["source_sha256"] == hashlib.sha256(data).hexdigest()
    assert payload["extractor_id"] == extract.EXTRACTOR_ID
    assert payload["extractor_version"] == extract.extractor_version("tak.md")
    assert "pypdf" not in payload["extractor_version"]
    assert payload["proposed_by"] == f"propose-segments {grounding.__version__}"
    assert payload["adjudicated"] is False and "rejected" not in payload


def test_the_same_bytes_always_give_the_same_plan() -> None:
    data = f"# Tak\n\n{LONG_SECTION}\n\n## Og\n\n# Vegg\n\n{PARAGRAPH}\n".encode()
    assert propose_plan("d.md", data, max_segment_chars=700) == propose_plan(
        "d.md", data, max_segment_chars=700
    )


def test_every_rule_the_proposer_writes_is_one_it_declares() -> None:
    text = f"# Tak\n\n{LONG_SECTION}\n"
    for entry in entries(text, max_segment_chars=700) + entries(text):
        assert entry["derived"][0] == PROPOSED_MARKER
        assert set(entry["derived"][1:]) <= RULE_NAMES


def test_a_pdf_with_numbered_sections_is_proposed_from_its_text() -> None:
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF()
    pdf.set_font("helvetica", size=11)
    for heading in ("1 Innledning", "2 Grunnlag", "2.1 Laster"):
        pdf.add_page()
        for line in (heading, "Dette avsnittet beskriver grunnlaget for beregningene."):
            pdf.multi_cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    data = bytes(pdf.output())
    payload = propose_plan("rapport.pdf", data)
    text = extract.extract_text("rapport.pdf", data)
    assert [entry["path"] for entry in payload["entries"]] == [
        "1-innledning",
        "2-grunnlag",
        "2-grunnlag/2-1-laster",
    ]
    assert parse_segmentation_plan(payload, text).entries[2].rules == (RULE_NUMBERED_HEADING,)


def test_windows_line_endings_give_the_same_headings_and_keep_every_character() -> None:
    text = f"# Tak\r\n\r\n{PARAGRAPH}\r\n\r\nVegger\r\n------\r\n\r\n{PARAGRAPH}\r\n"
    found = entries(text)
    assert [entry["path"] for entry in found] == ["tak", "tak/vegger"]
    assert "".join(body(text, entry) for entry in found) == text
