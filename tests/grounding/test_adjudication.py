"""Adjudication: a proposed plan plus one decision per entry becomes a plan a run may replay."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from grounding.adjudication import AdjudicationError, Decision, UndecidedEntries, adjudicate
from grounding.anchors import make_anchor
from grounding.segmentation import (
    PROPOSED_MARKER,
    PlanError,
    SegmentationPlan,
    parse_segmentation_plan,
    plan_to_payload,
    slice_segments,
)

TEXT = (
    "Innholdsfortegnelse som ingen regel dekker.\n\n"
    "## 1 Grunnforhold\n\nLeire over fjell, varierende dybde.\n\n"
    "## 2 Fundamentering\n\nPeler til fjell under hele bygget.\n\n"
    "Mellomtekst som ingen foreslått bit dekker.\n\n"
    "## 3 Masseutskifting\n\nBløt leire erstattes med sprengstein.\n\n"
    "## 4 Setninger\n\nForventede setninger er under 25 mm.\n"
)
HEADINGS = ["## 1 Grunnforhold", "## 2 Fundamentering", "## 3 Masseutskifting", "## 4 Setninger"]
PATHS = ["grunn/1-grunnforhold", "grunn/2-fundamentering", "grunn/3-masseutskifting",
         "grunn/4-setninger"]  # fmt: skip
WHEN = datetime(2026, 3, 2, 14, 5, tzinfo=UTC)


def proposed_plan(rules: tuple[tuple[str, ...], ...] = ()) -> SegmentationPlan:
    """Four heading entries; entry 1 stops short of the in-between paragraph, leaving a gap."""
    starts = [TEXT.index(heading) for heading in HEADINGS]
    ends = [starts[1], TEXT.index("Mellomtekst"), starts[3], len(TEXT)]
    entries = []
    for index, (path, start, end) in enumerate(zip(PATHS, starts, ends, strict=True)):
        entries.append(
            {
                "path": path,
                "title": HEADINGS[index].removeprefix("## "),
                "span": [start, end],
                "anchor": make_anchor(TEXT, start, end).to_dict(),
                "derived": [PROPOSED_MARKER, *(rules[index] if rules else ("rule:heading",))],
            }
        )
    payload = {
        "source_sha256": "0f" * 32,
        "extractor_id": "grounding.extract",
        "extractor_version": "1",
        "proposed_by": "propose-segments 0.1.0",
        "adjudicated": False,
        "entries": entries,
    }
    return parse_segmentation_plan(payload, TEXT)


def accept(by: str = "ola") -> Decision:
    return Decision.accept(by, WHEN)


def replayed_bodies(payload: dict, text: str = TEXT) -> list[str]:
    """What a run does with an exported plan: read it back, then place it on the text."""
    plan = parse_segmentation_plan(json.loads(json.dumps(payload)))
    return [body for _, body in slice_segments(text, plan)]


# --- the adjudicated payload ---------------------------------------------------------


def test_accepting_every_entry_gives_a_plan_with_no_proposed_marker_anywhere() -> None:
    plan = proposed_plan()
    payload = adjudicate(plan, [accept()] * 4, TEXT)
    assert payload["adjudicated"] is True
    assert PROPOSED_MARKER not in json.dumps(payload)
    assert payload["rejected"] == []
    assert [entry["path"] for entry in payload["entries"]] == PATHS
    assert [entry["span"] for entry in payload["entries"]] == [list(e.span) for e in plan.entries]


def test_every_entry_keeps_its_rules_and_records_who_decided_when_and_what() -> None:
    rules = (("rule:heading",), ("rule:numbered-heading",), ("rule:heading", "rule:size-split"),
             ("rule:heading",))  # fmt: skip
    decisions = [
        Decision.accept("ola", WHEN),
        Decision.edit("kari", "2026-03-03T08:00:00+00:00", "tydeligere", title="Fundamenter"),
        Decision.accept("per", WHEN, "ser riktig ut"),
        Decision.accept("ola", WHEN),
    ]
    entries = adjudicate(proposed_plan(rules), decisions, TEXT)["entries"]
    assert [entry["derived"] for entry in entries] == [list(group) for group in rules]
    record = entries[1]["adjudication"]
    assert record["decision"] == "edit" and record["by"] == "kari"
    assert record["at"] == "2026-03-03T08:00:00+00:00" and record["note"] == "tydeligere"
    assert record["was"] == {"title": "2 Fundamentering"}
    assert entries[2]["adjudication"] == {
        "decision": "accept", "by": "per", "at": WHEN.isoformat(), "note": "ser riktig ut",
    }  # fmt: skip


def test_the_export_replays_to_exactly_the_adjudicated_bodies() -> None:
    plan = proposed_plan()
    body_start = TEXT.index("Leire over fjell")
    decisions = [
        Decision.edit("kari", WHEN, span=(body_start, plan.entries[0].span[1])),
        Decision.merge("kari", WHEN),
        Decision.reject("kari", WHEN, "dekkes av geoteknisk rapport"),
        accept("kari"),
    ]
    payload = adjudicate(plan, decisions, TEXT)
    assert replayed_bodies(payload) == [
        TEXT[body_start : plan.entries[1].span[1]],
        TEXT[plan.entries[3].span[0] :],
    ]


def test_the_export_still_replays_after_the_text_shifts() -> None:
    payload = adjudicate(proposed_plan(), [accept(), Decision.merge("ola", WHEN), accept(),
                                           accept()], TEXT)  # fmt: skip
    adjudicated_bodies = [TEXT[slice(*entry["span"])] for entry in payload["entries"]]
    shifted = "Et tillegg øverst.\n\n" + TEXT
    assert replayed_bodies(payload, shifted) == adjudicated_bodies


# --- undecided -----------------------------------------------------------------------


def test_undecided_entries_are_refused_and_every_one_is_named() -> None:
    with pytest.raises(UndecidedEntries) as caught:
        adjudicate(proposed_plan(), [accept(), None, accept(), None], TEXT)
    message = str(caught.value)
    assert f"#2 ('{PATHS[1]}')" in message and f"#4 ('{PATHS[3]}')" in message
    assert PATHS[0] not in message
    assert caught.value.undecided == ((1, PATHS[1]), (3, PATHS[3]))


def test_a_plan_with_no_decision_at_all_names_all_its_entries() -> None:
    with pytest.raises(UndecidedEntries) as caught:
        adjudicate(proposed_plan(), [None] * 4, TEXT)
    assert [index for index, _ in caught.value.undecided] == [0, 1, 2, 3]


def test_decisions_that_do_not_line_up_with_the_entries_are_refused() -> None:
    with pytest.raises(AdjudicationError, match="3 decisions for 4 entries"):
        adjudicate(proposed_plan(), [accept()] * 3, TEXT)


def test_something_that_is_not_a_decision_is_refused() -> None:
    loose = [accept(), {"kind": "accept"}, accept(), accept()]
    with pytest.raises(AdjudicationError, match="entry #2"):
        adjudicate(proposed_plan(), loose, TEXT)  # type: ignore[arg-type]


def test_an_already_adjudicated_plan_is_not_adjudicated_again() -> None:
    payload = adjudicate(proposed_plan(), [accept()] * 4, TEXT)
    with pytest.raises(AdjudicationError, match="already adjudicated"):
        adjudicate(parse_segmentation_plan(payload, TEXT), [accept()] * 4, TEXT)


def test_decisions_against_a_text_the_plan_does_not_fit_are_refused() -> None:
    changed = TEXT.replace("Leire over fjell", "Sand over fjell")
    with pytest.raises(AdjudicationError, match="does not fit"):
        adjudicate(proposed_plan(), [accept()] * 4, changed)


# --- edit ----------------------------------------------------------------------------


def test_an_edited_span_gets_a_fresh_anchor_quoting_it() -> None:
    plan = proposed_plan()
    start, end = plan.entries[2].span
    decisions = [accept(), accept(), Decision.edit("ola", WHEN, span=(start, end - 1)), accept()]
    entry = adjudicate(plan, decisions, TEXT)["entries"][2]
    assert entry["span"] == [start, end - 1]
    assert entry["anchor"] == make_anchor(TEXT, start, end - 1).to_dict()
    assert entry["adjudication"]["was"] == {"span": [start, end]}


def test_an_edited_path_is_recorded_with_the_old_one() -> None:
    decisions = [accept(), Decision.edit("ola", WHEN, path="grunn/peler"), accept(), accept()]
    entry = adjudicate(proposed_plan(), decisions, TEXT)["entries"][1]
    assert entry["path"] == "grunn/peler"
    assert entry["adjudication"]["was"] == {"path": PATHS[1]}


@pytest.mark.parametrize("path", ["Grunn/Peler", "grunn//peler", "grunn/påler", "/grunn", ""])
def test_an_edited_path_must_still_be_a_valid_path(path: str) -> None:
    decisions = [accept(), Decision.edit("ola", WHEN, path=path), accept(), accept()]
    with pytest.raises(AdjudicationError, match=r"entry #2 .*path"):
        adjudicate(proposed_plan(), decisions, TEXT)


def test_an_edited_path_may_not_take_another_entrys_path() -> None:
    decisions = [accept(), Decision.edit("ola", WHEN, path=PATHS[3]), accept(), accept()]
    with pytest.raises(AdjudicationError, match="duplicates"):
        adjudicate(proposed_plan(), decisions, TEXT)


@pytest.mark.parametrize("title", ["", "   ", "to\nlinjer"])
def test_an_edited_title_must_still_be_one_line_of_text(title: str) -> None:
    decisions = [Decision.edit("ola", WHEN, title=title), accept(), accept(), accept()]
    with pytest.raises(AdjudicationError, match="entry #1"):
        adjudicate(proposed_plan(), decisions, TEXT)


def test_an_edited_span_must_lie_in_the_text_and_hold_some() -> None:
    blank = TEXT.index("\n\n## 2")
    for span in [(5, 5), (-1, 10), (10, len(TEXT) + 1), (blank, blank + 2)]:
        decisions = [accept(), accept(), accept(), Decision.edit("ola", WHEN, span=span)]
        with pytest.raises(AdjudicationError, match="entry #4"):
            adjudicate(proposed_plan(), decisions, TEXT)


def test_an_edited_span_that_overlaps_its_neighbour_is_refused() -> None:
    plan = proposed_plan()
    grown = (plan.entries[0].span[0], plan.entries[1].span[0] + 10)
    decisions = [Decision.edit("ola", WHEN, span=grown), accept(), accept(), accept()]
    with pytest.raises(AdjudicationError, match="overlap"):
        adjudicate(plan, decisions, TEXT)


def test_an_edit_that_changes_nothing_is_refused() -> None:
    decisions = [Decision.edit("ola", WHEN, title="1 Grunnforhold"), accept(), accept(), accept()]
    with pytest.raises(AdjudicationError, match="changes nothing"):
        adjudicate(proposed_plan(), decisions, TEXT)


# --- merge ---------------------------------------------------------------------------


def test_a_merge_covers_both_spans_and_the_text_between_them() -> None:
    plan = proposed_plan()
    decisions = [accept(), accept(), Decision.merge("ola", WHEN, "samme tema"), accept()]
    payload = adjudicate(plan, decisions, TEXT)
    merged = payload["entries"][1]
    assert merged["span"] == [plan.entries[1].span[0], plan.entries[2].span[1]]
    # The paragraph between the two proposed spans belonged to neither; it is not lost.
    assert "Mellomtekst" in TEXT[slice(*merged["span"])]
    assert merged["anchor"]["quote"] == TEXT[slice(*merged["span"])]
    record = merged["adjudication"]["merged"][0]
    assert record["path"] == PATHS[2] and record["span"] == list(plan.entries[2].span)
    assert record["adjudication"]["decision"] == "merge"
    assert record["adjudication"]["note"] == "samme tema"
    assert len(payload["entries"]) == 3


def test_a_chain_of_merges_lands_in_the_first_kept_entry_and_unites_the_rules() -> None:
    rules = (("rule:heading",), ("rule:heading",), ("rule:heading", "rule:size-split"),
             ("rule:numbered-heading",))  # fmt: skip
    decisions = [accept()] + [Decision.merge("ola", WHEN)] * 3
    (entry,) = adjudicate(proposed_plan(rules), decisions, TEXT)["entries"]
    assert entry["span"] == [TEXT.index(HEADINGS[0]), len(TEXT)]
    assert entry["derived"] == ["rule:heading", "rule:size-split", "rule:numbered-heading"]
    assert [record["path"] for record in entry["adjudication"]["merged"]] == PATHS[1:]


def test_the_first_entry_has_nothing_to_merge_into() -> None:
    decisions = [Decision.merge("ola", WHEN), accept(), accept(), accept()]
    with pytest.raises(AdjudicationError, match=r"entry #1 .*no entry before"):
        adjudicate(proposed_plan(), decisions, TEXT)


def test_merging_into_a_rejected_entry_is_refused() -> None:
    decisions = [accept(), Decision.reject("ola", WHEN), Decision.merge("ola", WHEN), accept()]
    with pytest.raises(AdjudicationError, match=r"entry #3 .*rejected"):
        adjudicate(proposed_plan(), decisions, TEXT)


# --- reject --------------------------------------------------------------------------


def test_a_rejected_entry_leaves_the_plan_and_stays_on_record() -> None:
    plan = proposed_plan()
    decisions = [accept(), Decision.reject("kari", WHEN, "duplikat"), accept(), accept()]
    payload = adjudicate(plan, decisions, TEXT)
    assert [entry["path"] for entry in payload["entries"]] == [PATHS[0], *PATHS[2:]]
    (record,) = payload["rejected"]
    assert record["path"] == PATHS[1] and record["span"] == list(plan.entries[1].span)
    assert record["derived"] == ["rule:heading"]
    assert record["adjudication"] == {
        "decision": "reject", "by": "kari", "at": WHEN.isoformat(), "note": "duplikat",
    }  # fmt: skip
    assert all(body != TEXT[slice(*plan.entries[1].span)] for body in replayed_bodies(payload))


def test_rejecting_every_entry_leaves_nothing_to_replay_and_is_refused() -> None:
    with pytest.raises(AdjudicationError, match="every entry was rejected"):
        adjudicate(proposed_plan(), [Decision.reject("ola", WHEN)] * 4, TEXT)


# --- the decisions themselves --------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        {"kind": "approve", "by": "ola", "at": WHEN},
        {"kind": "accept", "by": "", "at": WHEN},
        {"kind": "accept", "by": "ola", "at": "i går"},
        {"kind": "accept", "by": "ola", "at": None},
        {"kind": "edit", "by": "ola", "at": WHEN},
        {"kind": "accept", "by": "ola", "at": WHEN, "title": "Ny"},
        {"kind": "reject", "by": "ola", "at": WHEN, "span": (0, 4)},
    ],
)
def test_a_decision_that_cannot_be_recorded_is_refused_when_made(arguments: dict) -> None:
    with pytest.raises(AdjudicationError):
        Decision(**arguments)


def test_a_decision_time_is_kept_as_iso_8601() -> None:
    assert Decision.accept("ola", WHEN).at == "2026-03-02T14:05:00+00:00"
    assert Decision.accept("ola", "2026-03-02T14:05:00Z").at == "2026-03-02T14:05:00+00:00"


def test_a_proposal_relabelled_by_hand_as_adjudicated_does_not_parse() -> None:
    forged = plan_to_payload(proposed_plan())
    forged["adjudicated"] = True
    forged["rejected"] = []
    with pytest.raises(PlanError, match="PROPOSED"):
        parse_segmentation_plan(forged, TEXT)
    for entry in forged["entries"]:
        entry["derived"].remove(PROPOSED_MARKER)
    with pytest.raises(PlanError, match="who decided"):
        parse_segmentation_plan(forged, TEXT)
