"""Finalization over real LLM answers with numbered citations (a sample of ExpertQA's
GPT-4 and Bing Chat answers and their expert revisions; see data/expertqa/MANIFEST.md).

Whatever the answer, finalization must lose, duplicate or misnumber nothing, be
idempotent, and mark every citation it adds; and no added citation may stand after a
question, a pleasantry, a display formula or a bare link.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from grounding.citations import added_citation_spans, finalize, marked_text
from grounding.sources import parse_source_list

SAMPLE = Path(__file__).parent / "data" / "expertqa" / "answers.jsonl"
CITATION = re.compile(r"\[(\d+)\]")
BARE_LINK = re.compile(r"<?https?://\S+>?")


def load() -> list[dict]:
    with SAMPLE.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


ANSWERS = load()


def name(answer: dict) -> str:
    origin = answer["origin"]
    file = origin["path"].rsplit("/", 1)[-1]
    return f"{file}:{origin['line']}:{origin['answer']}:{origin['field']}"


def listed(answer: dict):
    """The answer as an importer receives it, its source list closing the text."""
    return parse_source_list("\n\n".join([answer["text"], "\n".join(answer["attribution"])]))


def unique(numbers) -> list[int]:
    return list(dict.fromkeys(numbers))


def finalized(answer: dict):
    body, sources = listed(answer)
    return body, sources, finalize(body, [source.as_source() for source in sources])


each_answer = pytest.mark.parametrize("answer", ANSWERS, ids=name)


@each_answer
def test_the_source_list_is_read_whole_and_taken_off_the_body(answer) -> None:
    body, sources = listed(answer)
    assert body == answer["text"].rstrip()
    assert [f"[{s.number}] {s.url}" for s in sources] == [a.strip() for a in answer["attribution"]]


@each_answer
def test_every_real_citation_keeps_its_source_and_the_numbers_run_in_order(answer) -> None:
    body, sources, result = finalized(answer)
    raw = [int(n) for n in CITATION.findall(body)]
    in_range = [n for n in raw if 1 <= n <= len(sources)]
    # Nothing lost: every source the model cited is still cited...
    assert sorted(result.number_map) == sorted(set(in_range))
    # ...and still points at the page the model cited.
    for original, shown in result.number_map.items():
        assert result.canonical_sources[shown - 1]["url"] == sources[original - 1].url
    added = {(a.start, a.end) for a in added_citation_spans(result)}
    model_shown = [
        int(m[1]) for m in CITATION.finditer(result.body) if (m.start(), m.end()) not in added
    ]
    assert unique(model_shown) == [result.number_map[n] for n in unique(in_range)]
    assert unique(model_shown) == list(range(1, len(result.number_map) + 1))
    assert [r.number for r in result.references] == list(range(1, len(result.number_map) + 1))


@each_answer
def test_finalizing_again_changes_nothing(answer) -> None:
    _, _, once = finalized(answer)
    twice = finalize(once.text, once.canonical_sources)
    assert (twice.text, twice.backfills, twice.dropped) == (once.text, (), ())


@each_answer
def test_every_added_citation_is_marked_where_it_stands(answer) -> None:
    _, _, result = finalized(answer)
    spans = added_citation_spans(result)
    assert len(spans) == len(result.backfills)
    for added in spans:
        assert result.text[added.start : added.end] == f"[{added.number}]"
        # Right after the paragraph's last visible character, and closing the paragraph.
        assert result.text[added.start - 1] == " " and not result.text[added.start - 2].isspace()
        assert result.text[added.end : added.end + 2] in ("", "\n", "\r\n", "\n\n")
    shown = marked_text(result, lambda added: f"[{added.number}+]")
    assert shown.count("+]") == len(spans)
    assert shown.replace("+]", "]") == result.text


@each_answer
def test_no_added_citation_follows_something_that_is_not_a_claim(answer) -> None:
    _, _, result = finalized(answer)
    for added in added_citation_spans(result):
        paragraph = result.text[result.text.rfind("\n\n", 0, added.start) + 2 : added.start]
        paragraph = paragraph.strip()
        assert not paragraph.rstrip("*").endswith(("?", "$$"))
        assert not paragraph.startswith(("I'm glad", "I hope", "Let me know"))
        assert not BARE_LINK.fullmatch(paragraph)


@each_answer
def test_a_replacement_stands_for_phantoms_that_were_dropped(answer) -> None:
    _, sources, result = finalized(answer)
    dropped = {d.number for d in result.dropped}
    for backfill in result.replacements:
        assert backfill.phantoms
        assert all(not 1 <= n <= len(sources) for n in backfill.phantoms)
        assert set(backfill.phantoms) <= dropped


def test_the_sample_holds_each_kind_of_paragraph_backfill_must_leave_alone() -> None:
    paragraphs = [p.strip() for a in ANSWERS for p in a["text"].split("\n\n")]
    assert any(p.startswith("I'm glad you are") for p in paragraphs)
    assert any(p.startswith("$$") and p.endswith("$$") for p in paragraphs)
    assert any(p.endswith("?") for p in paragraphs)
    assert any(finalized(a)[2].replacements for a in ANSWERS)
