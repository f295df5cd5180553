"""Guidelines cut into sections, the item's kind first."""

from __future__ import annotations

import pytest

from grounding.guidelines import kinds_named, sections_for, split_sections

TEXT = """Read this first.

## Segmentation

Split at headings.

## Moderation of cases

Uphold only with evidence.

```
## not a heading
```

## Answers

Cite sources.
"""


def test_each_level_two_heading_opens_a_section_and_the_lead_is_untitled():
    sections = split_sections(TEXT)
    assert [section.title for section in sections] == [
        "",
        "Segmentation",
        "Moderation of cases",
        "Answers",
    ]
    assert sections[0].markdown == "Read this first."


def test_a_heading_inside_a_fenced_code_block_stays_in_its_section():
    moderation = split_sections(TEXT)[2]
    assert "## not a heading" in moderation.markdown
    assert moderation.markdown.startswith("## Moderation of cases")


def test_a_heading_names_a_kind_by_a_whole_word_in_any_case():
    assert kinds_named("SEGMENTATION rules") == {"plans"}
    assert kinds_named("Cases and answers") == {"cases", "answers"}
    assert kinds_named("Showcase") == frozenset()


def test_the_sections_of_the_item_kind_come_first_and_the_rest_keep_their_order():
    ordered = sections_for("cases", split_sections(TEXT))
    assert [section.title for section in ordered] == [
        "Moderation of cases",
        "",
        "Segmentation",
        "Answers",
    ]


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(ValueError, match="'documents'"):
        sections_for("documents", split_sections(TEXT))


def test_empty_guidelines_have_no_sections():
    assert split_sections("") == ()
    assert split_sections("\n\n") == ()
