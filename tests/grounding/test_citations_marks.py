"""What finalization added: where each added citation stands, and which ones replaced
citations of sources that do not exist, so a page can mark them apart from the model's."""

from __future__ import annotations

import json
import re

import pytest

from grounding.citations import (
    ADDED_LABEL,
    REPLACED_LABEL,
    AddedCitation,
    Finalization,
    InvalidFinalizationRecordError,
    added_citation_spans,
    finalize,
    marked_text,
)
from tests.helpers import make_source

CITATION = re.compile(r"\[(\d+)\]")

SOURCES = [make_source(title, 2015 + n) for n, title in enumerate(("Rand", "Reserve", "Ratings"))]

# A Bing-style answer: a cited opening, a paragraph citing two sources the search
# never returned, an uncited paragraph, and a cited close.
ANSWER = (
    "The rand weakened sharply in early 2017 after a cabinet reshuffle [1].\n\n"
    "Investors lost confidence in South Africa[49]. Two agencies cut the sovereign "
    "rating to junk on 7 April 2017[50].\n\n"
    "Bond yields rose in the following weeks as foreign holders sold.\n\n"
    "The Reserve Bank kept its repo rate unchanged at 7% [2]."
)


def spans_by_paragraph(result: Finalization) -> dict[str, AddedCitation]:
    """Each added citation keyed by the words of the paragraph it closes."""
    found = {}
    for added in added_citation_spans(result):
        paragraph_start = result.text.rfind("\n\n", 0, added.start) + 2
        found[result.text[paragraph_start : added.start].strip()] = added
    return found


def test_each_added_citation_is_found_at_its_offsets_in_the_finalized_text() -> None:
    result = finalize(ANSWER, SOURCES)
    added = added_citation_spans(result)
    assert len(added) == 2
    for citation in added:
        assert result.text[citation.start : citation.end] == f"[{citation.number}]"
        assert result.body[citation.start : citation.end] == f"[{citation.number}]"


def test_the_models_own_citations_are_never_reported_as_added() -> None:
    result = finalize(ANSWER, SOURCES)
    added_starts = {citation.start for citation in added_citation_spans(result)}
    cited = [m.start() for m in CITATION.finditer(result.body)]
    model_cited = [start for start in cited if start not in added_starts]
    # The opening's [1] and the close's [2] are the model's, and stay unmarked.
    assert len(model_cited) == 2
    assert result.body[model_cited[0] - 10 : model_cited[0]] == "reshuffle "


def test_a_paragraph_that_cited_only_phantoms_is_marked_as_replaced() -> None:
    added = spans_by_paragraph(finalize(ANSWER, SOURCES))
    (replaced,) = [citation for text, citation in added.items() if "junk" in text]
    assert replaced.replaced is True
    assert replaced.label == REPLACED_LABEL


def test_a_paragraph_that_cited_nothing_is_marked_as_added_but_not_replaced() -> None:
    added = spans_by_paragraph(finalize(ANSWER, SOURCES))
    (plain,) = [citation for text, citation in added.items() if "Bond yields" in text]
    assert plain.replaced is False
    assert plain.label == ADDED_LABEL


def test_a_replacing_backfill_names_the_phantoms_it_stands_in_for() -> None:
    result = finalize(ANSWER, SOURCES)
    (replacement,) = result.replacements
    assert replacement.phantoms == (49, 50)
    assert [d.number for d in result.dropped] == [49, 50]


def test_a_phantom_cited_twice_in_one_paragraph_is_named_once() -> None:
    answer = "Gold rallied [1].\n\nMiners gained [8] and kept gaining [8] all week long."
    (backfill,) = finalize(answer, SOURCES).backfills
    assert backfill.phantoms == (8,)


def test_a_paragraph_keeping_a_real_citation_beside_a_phantom_is_not_backfilled() -> None:
    answer = "Gold rallied [1].\n\nMiners gained [2][8] in the weeks that followed."
    result = finalize(answer, SOURCES)
    assert result.backfills == ()
    assert added_citation_spans(result) == []


def test_phantoms_dropped_from_another_paragraph_do_not_make_a_backfill_a_replacement() -> None:
    answer = (
        "Gold rallied in the spring [1][7].\n\n"
        "Silver followed it within a month.\n\n"
        "Platinum lagged both metals [2][9]."
    )
    (backfill,) = finalize(answer, SOURCES).backfills
    assert backfill.phantoms == ()


def test_offsets_count_characters_after_non_ascii_text() -> None:
    answer = "Le franc CFA est arrimé à l’euro [1].\n\nCette parité date de 1999, après l’union."
    result = finalize(answer, SOURCES)
    (added,) = added_citation_spans(result)
    assert result.text[added.start : added.end] == "[1]"
    assert result.text[: added.start].endswith("après l’union. ")


def test_added_citations_come_in_text_order() -> None:
    answer = (
        "Copper rose in March.\n\n"
        "Smelters in Chile cut output [2].\n\n"
        "Zinc rose in April.\n\n"
        "Nickel rose in May.\n\n"
        "Traders expect tighter supply [1]."
    )
    starts = [added.start for added in added_citation_spans(finalize(answer, SOURCES))]
    assert len(starts) == 3
    assert starts == sorted(starts)


def test_marked_text_rewrites_only_the_added_citations() -> None:
    result = finalize(ANSWER, SOURCES)
    shown = marked_text(result, lambda added: f"[{added.number}†]")
    assert shown.count("†]") == 2
    # Taking the marks out again gives back exactly the finalized text.
    assert shown.replace("†]", "]") == result.text


def test_marked_text_passes_each_mark_what_it_needs_to_label_it() -> None:
    result = finalize(ANSWER, SOURCES)
    shown = marked_text(result, lambda added: f"<{added.label} {added.number}>")
    assert f"7 April 2017. <{REPLACED_LABEL} 1>" in shown
    assert f"foreign holders sold. <{ADDED_LABEL} 2>" in shown


def test_an_answer_without_backfills_is_marked_unchanged() -> None:
    result = finalize("Gold rallied [1]. Silver followed [2].", SOURCES)
    assert marked_text(result, lambda added: "!") == result.text


# --- Storage -----------------------------------------------------------------------


def test_offsets_and_phantoms_survive_a_json_round_trip() -> None:
    result = finalize(ANSWER, SOURCES)
    stored = json.loads(json.dumps(result.to_dict()))
    again = Finalization.from_dict(stored)
    assert added_citation_spans(again) == added_citation_spans(result)
    assert again.replacements == result.replacements


def test_a_record_stored_before_offsets_were_kept_still_finds_each_added_citation() -> None:
    result = finalize(ANSWER, SOURCES)
    stored = result.to_dict()
    for backfill in stored["backfills"]:
        del backfill["start"], backfill["end"], backfill["phantoms"]
    old = Finalization.from_dict(stored)
    assert [(a.start, a.end, a.number) for a in added_citation_spans(old)] == [
        (a.start, a.end, a.number) for a in added_citation_spans(result)
    ]
    # An old record never said which backfills replaced phantoms; none is claimed.
    assert old.replacements == ()


def test_an_old_record_whose_backfilled_paragraph_is_gone_is_refused() -> None:
    stored = finalize(ANSWER, SOURCES).to_dict()
    del stored["backfills"][0]["start"], stored["backfills"][0]["end"]
    stored["backfills"][0]["paragraph"] = 40
    with pytest.raises(InvalidFinalizationRecordError, match="paragraph 40"):
        Finalization.from_dict(stored)


def test_a_stored_backfill_whose_offsets_miss_its_citation_is_refused() -> None:
    stored = finalize(ANSWER, SOURCES).to_dict()
    stored["backfills"][0]["start"] -= 2
    with pytest.raises(InvalidFinalizationRecordError, match=r"no \[1\] at"):
        Finalization.from_dict(stored)


def test_the_kinds_of_change_name_each_thing_finalization_did_and_nothing_else():
    from grounding.citations import CHANGE_KINDS, finalize

    sources = [{"title": "Sprinklers"}, {"title": "Doors"}]
    clean = finalize("Sprinklers help [1]. Doors close [2].", sources)
    messy = finalize(
        "Doors close [2]. Sprinklers help \\[1\\].\n\n"
        "Older rules said otherwise in every storey[9].\n\n"
        "Escape routes need two separate exits in every storey of the building.",
        sources,
    )

    assert clean.change_kinds == frozenset()
    assert messy.change_kinds == {"renumbered", "dropped", "rewritten", "backfilled", "replaced"}
    assert set(CHANGE_KINDS) >= messy.change_kinds
