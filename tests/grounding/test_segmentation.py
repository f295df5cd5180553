"""The plan gate: what parse_segmentation_plan lets through, and everything it refuses."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from grounding.anchors import make_anchor
from grounding.segmentation import (
    PROPOSED_MARKER,
    DriftError,
    PlanError,
    SegmentationPlan,
    parse_segmentation_plan,
    plan_to_payload,
    slice_segments,
)

TEXT = (
    "# Tunnelhåndbok\n\nOm tunneler generelt.\n\n"
    "## 1 Ventilasjon\n\nLuftmengder og vifter i lange tunneler dimensjoneres etter trafikk, "
    "stigning og lengde, og kontrolleres hvert år.\n\n"
    "## 2 Belysning\n\nLysnivå ved innkjøring og i sonene videre inn.\n\n"
    "## 3 Drenering\n\nVann skal ledes bort fra kjørebanen gjennom sluk og grøfter som "
    "tømmes jevnlig.\n"
)
SECTIONS = [
    ("tunnelhaandbok", "Tunnelhåndbok", "# Tunnelhåndbok", "## 1 Ventilasjon"),
    ("tunnelhaandbok/1-ventilasjon", "1 Ventilasjon", "## 1 Ventilasjon", "## 2 Belysning"),
    ("tunnelhaandbok/2-belysning", "2 Belysning", "## 2 Belysning", "## 3 Drenering"),
    ("tunnelhaandbok/3-drenering", "3 Drenering", "## 3 Drenering", None),
]
WHEN = "2026-03-02T09:30:00+01:00"


def span_of(opening: str, closing: str | None) -> tuple[int, int]:
    return TEXT.index(opening), TEXT.index(closing) if closing else len(TEXT)


def proposed_payload() -> dict:
    entries = []
    for path, title, opening, closing in SECTIONS:
        start, end = span_of(opening, closing)
        entries.append(
            {
                "path": path,
                "title": title,
                "span": [start, end],
                "anchor": make_anchor(TEXT, start, end).to_dict(),
                "derived": [PROPOSED_MARKER, "rule:heading"],
            }
        )
    return {
        "source_sha256": "ab" * 32,
        "extractor_id": "grounding.extract",
        "extractor_version": "1",
        "proposed_by": "propose-segments 0.1.0",
        "adjudicated": False,
        "entries": entries,
    }


def decided(decision: str, **extra: object) -> dict:
    return {"decision": decision, "by": "kari", "at": WHEN, "note": "", **extra}


def adjudicated_payload() -> dict:
    """Entry 0 accepted, 1 retitled, 2 merged into 1, 3 rejected: every shape at once."""
    payload = proposed_payload()
    first, second, third, fourth = payload["entries"]
    for entry in payload["entries"]:
        entry["derived"] = ["rule:heading"]
    first["adjudication"] = decided("accept")
    merged_span = [second["span"][0], third["span"][1]]
    second["span"] = merged_span
    second["anchor"] = make_anchor(TEXT, *merged_span).to_dict()
    second["title"] = "Ventilasjon og belysning"
    merged = {key: third[key] for key in ("path", "title", "span", "derived")}
    merged["adjudication"] = decided("merge")
    second["adjudication"] = decided("edit", was={"title": "1 Ventilasjon"}, merged=[merged])
    rejected = {key: fourth[key] for key in ("path", "title", "span", "derived")}
    rejected["adjudication"] = decided("reject", note="hører hjemme i et annet dokument")
    payload["entries"] = [first, second]
    payload["adjudicated"] = True
    payload["rejected"] = [rejected]
    return payload


def refusal(payload: dict, text: str | None = TEXT) -> str:
    with pytest.raises(PlanError) as caught:
        parse_segmentation_plan(payload, text)
    return str(caught.value)


# --- what passes ---------------------------------------------------------------------


def test_a_proposed_payload_parses_into_frozen_entries_that_say_they_are_proposed() -> None:
    plan = parse_segmentation_plan(proposed_payload(), TEXT)
    assert [entry.path for entry in plan.entries] == [path for path, *_ in SECTIONS]
    assert all(entry.is_proposed and entry.adjudication is None for entry in plan.entries)
    assert plan.entries[1].rules == ("rule:heading",)
    assert plan.adjudicated is False and plan.rejected == ()
    with pytest.raises(AttributeError):
        plan.entries[0].title = "Annet"  # type: ignore[misc]


def test_an_adjudicated_payload_parses_with_its_records() -> None:
    plan = parse_segmentation_plan(adjudicated_payload(), TEXT)
    accepted, edited = plan.entries
    assert not accepted.is_proposed and accepted.adjudication["decision"] == "accept"
    assert edited.adjudication.was.title == "1 Ventilasjon"
    assert [record.path for record in edited.adjudication.merged] == [SECTIONS[2][0]]
    assert plan.rejected[0].adjudication.note == "hører hjemme i et annet dokument"


@pytest.mark.parametrize("build", [proposed_payload, adjudicated_payload], ids=["proposed", "adj"])
def test_a_plan_round_trips_through_json_byte_for_byte(build: Callable[[], dict]) -> None:
    payload = build()
    dumped = json.dumps(payload, ensure_ascii=False, indent=2)
    again = plan_to_payload(parse_segmentation_plan(json.loads(dumped), TEXT))
    assert json.dumps(again, ensure_ascii=False, indent=2) == dumped


def test_without_the_text_only_the_payload_itself_is_checked() -> None:
    payload = proposed_payload()
    assert isinstance(parse_segmentation_plan(payload), SegmentationPlan)
    # The same plan against a text it does not fit is refused.
    assert "anchor.quote" in refusal(payload, TEXT.replace("vifter", "VIFTER"))


# --- the rule the product exists for ------------------------------------------------


def test_a_plan_claiming_adjudication_while_an_entry_is_still_proposed_is_refused() -> None:
    payload = adjudicated_payload()
    payload["entries"][0]["derived"] = [PROPOSED_MARKER, "rule:heading"]
    message = refusal(payload)
    assert "entry #1 ('tunnelhaandbok')" in message and "'derived'" in message


def test_a_proposed_marker_anywhere_in_derived_counts() -> None:
    payload = adjudicated_payload()
    payload["entries"][1]["derived"] = ["rule:heading", PROPOSED_MARKER]
    assert "entry #2" in refusal(payload)


def test_a_proposed_plan_whose_entry_claims_an_adjudication_is_refused() -> None:
    payload = proposed_payload()
    payload["entries"][2]["adjudication"] = decided("accept")
    message = refusal(payload)
    assert "entry #3 ('tunnelhaandbok/2-belysning')" in message and "'adjudication'" in message


def test_an_adjudicated_entry_without_a_record_of_the_decision_is_refused() -> None:
    payload = adjudicated_payload()
    del payload["entries"][0]["adjudication"]
    assert "'adjudication'" in refusal(payload)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("by", ""),
        ("by", "   "),
        ("by", None),
        ("at", "yesterday"),
        ("at", "2026-03-02"),
        ("at", 1767225600),
        ("note", None),
    ],
)
def test_a_decision_without_who_or_when_is_refused(field: str, value: object) -> None:
    payload = adjudicated_payload()
    payload["entries"][0]["adjudication"][field] = value
    assert f"'adjudication.{field}'" in refusal(payload)


@pytest.mark.parametrize("missing", ["decision", "by", "at", "note"])
def test_a_decision_missing_any_part_of_its_record_is_refused(missing: str) -> None:
    payload = adjudicated_payload()
    del payload["rejected"][0]["adjudication"][missing]
    message = refusal(payload)
    assert "rejected record #1 ('tunnelhaandbok/3-drenering')" in message
    assert f"adjudication.{missing}" in message


@pytest.mark.parametrize("decision", ["approve", "ACCEPT", "", None, "reject", "merge"])
def test_a_kept_entry_with_a_decision_it_cannot_have_is_refused(decision: object) -> None:
    payload = adjudicated_payload()
    payload["entries"][0]["adjudication"]["decision"] = decision
    assert "'adjudication.decision'" in refusal(payload)


@pytest.mark.parametrize("decision", ["accept", "edit", "merge", "undecided"])
def test_a_rejected_record_must_say_reject(decision: str) -> None:
    payload = adjudicated_payload()
    payload["rejected"][0]["adjudication"]["decision"] = decision
    assert "'adjudication.decision'" in refusal(payload)


def test_a_merged_record_must_say_merge() -> None:
    payload = adjudicated_payload()
    payload["entries"][1]["adjudication"]["merged"][0]["adjudication"]["decision"] = "accept"
    assert "merged record #1" in refusal(payload)


@pytest.mark.parametrize("records", [[], None])
def test_rejected_records_on_a_proposed_plan_are_refused(records: object) -> None:
    payload = proposed_payload()
    payload["rejected"] = records
    assert "'rejected'" in refusal(payload)


def test_an_adjudicated_plan_must_list_its_rejections_even_when_none() -> None:
    payload = adjudicated_payload()
    del payload["rejected"]
    assert "'rejected'" in refusal(payload)
    payload["rejected"] = []
    assert parse_segmentation_plan(payload, TEXT).rejected == ()


def test_a_rejected_record_still_proposed_is_refused() -> None:
    payload = adjudicated_payload()
    payload["rejected"][0]["derived"] = [PROPOSED_MARKER, "rule:heading"]
    assert "rejected record #1" in refusal(payload)


def test_an_edit_must_record_what_it_changed_and_an_accept_must_not() -> None:
    payload = adjudicated_payload()
    del payload["entries"][1]["adjudication"]["was"]
    assert "'adjudication.was'" in refusal(payload)

    payload = adjudicated_payload()
    payload["entries"][0]["adjudication"]["was"] = {"title": "Noe annet"}
    assert "adjudication.was" in refusal(payload)


def test_an_edit_whose_old_value_equals_the_new_one_is_no_edit() -> None:
    payload = adjudicated_payload()
    payload["entries"][1]["adjudication"]["was"] = {"title": "Ventilasjon og belysning"}
    assert "'adjudication.was.title'" in refusal(payload)


def test_a_merged_record_outside_the_entry_that_absorbed_it_is_refused() -> None:
    # The absorbing entry no longer covers the merged text: text would be lost on replay.
    payload = adjudicated_payload()
    record = payload["entries"][1]["adjudication"]["merged"][0]
    record["span"] = [record["span"][0], len(TEXT)]
    assert "merged record #1" in refusal(payload)


def test_an_empty_merged_list_is_refused_rather_than_carried() -> None:
    payload = adjudicated_payload()
    payload["entries"][0]["adjudication"]["merged"] = []
    assert "'adjudication.merged'" in refusal(payload)


def test_an_adjudicated_flag_that_is_not_a_boolean_is_refused() -> None:
    for flag in ("false", 0, None):
        payload = proposed_payload()
        payload["adjudicated"] = flag
        assert "'adjudicated'" in refusal(payload)


# --- provenance, shape and types ----------------------------------------------------


@pytest.mark.parametrize("digest", ["AB" * 32, "ab" * 31, "zz" * 32, "", None, 7])
def test_a_bad_source_hash_is_refused(digest: object) -> None:
    payload = proposed_payload()
    payload["source_sha256"] = digest
    assert "'source_sha256'" in refusal(payload)


@pytest.mark.parametrize("field", ["extractor_id", "extractor_version", "proposed_by"])
@pytest.mark.parametrize("value", [None, "", " ", 1])
def test_missing_provenance_is_refused(field: str, value: object) -> None:
    payload = proposed_payload()
    payload[field] = value
    assert f"'{field}'" in refusal(payload)
    del payload[field]
    assert f"'{field}'" in refusal(payload)


def test_an_empty_plan_is_refused() -> None:
    payload = proposed_payload()
    payload["entries"] = []
    assert "empty" in refusal(payload)


def test_a_payload_that_is_not_an_object_is_refused() -> None:
    assert "JSON object" in refusal([proposed_payload()])  # type: ignore[arg-type]


def test_a_duplicate_path_is_refused_naming_both_entries() -> None:
    payload = proposed_payload()
    payload["entries"][3]["path"] = payload["entries"][1]["path"]
    message = refusal(payload)
    assert "entry #4 ('tunnelhaandbok/1-ventilasjon')" in message and "entry #2" in message


@pytest.mark.parametrize(
    "path",
    ["Tunnel", "a//b", "/a", "a/", "a--b", "-a", "a-", "a b", "tunnelhåndbok", "a_b", "", 5],
)
def test_an_ill_formed_path_is_refused(path: object) -> None:
    payload = proposed_payload()
    payload["entries"][1]["path"] = path
    message = refusal(payload)
    assert "entry #2" in message and "'path'" in message


def test_spans_out_of_order_are_refused() -> None:
    payload = proposed_payload()
    entries = payload["entries"]
    entries[1], entries[2] = entries[2], entries[1]
    message = refusal(payload)
    assert "entry #3 ('tunnelhaandbok/1-ventilasjon')" in message and "'span'" in message


def test_overlapping_spans_are_refused() -> None:
    payload = proposed_payload()
    first = payload["entries"][0]
    first["span"][1] += 5
    first["anchor"] = make_anchor(TEXT, *first["span"]).to_dict()
    message = refusal(payload)
    assert "entry #2" in message and "overlap" in message


@pytest.mark.parametrize(
    "span", [[10, 10], [12, 4], [-1, 4], [0], [0, 4, 8], [0.0, 4], [True, 4], "0-4", None]
)
def test_an_ill_formed_span_is_refused(span: object) -> None:
    payload = proposed_payload()
    payload["entries"][0]["span"] = span
    message = refusal(payload)
    assert "entry #1" in message and "'span'" in message


def test_a_span_past_the_end_of_the_text_is_refused() -> None:
    payload = proposed_payload()
    last = payload["entries"][-1]
    assert "'span'" in refusal(payload, TEXT[: last["span"][1] - 1])


@pytest.mark.parametrize("part", ["quote", "prefix", "suffix"])
def test_an_anchor_that_does_not_fit_its_span_in_the_text_is_refused(part: str) -> None:
    payload = proposed_payload()
    anchor = payload["entries"][2]["anchor"]
    # Same length, different characters: only a comparison with the text can tell.
    anchor[part] = anchor[part][:-1] + ("#" if anchor[part][-1:] != "#" else "!")
    message = refusal(payload)
    assert "entry #3" in message and f"'anchor.{part}'" in message


def test_an_anchor_of_the_wrong_length_is_refused_even_without_the_text() -> None:
    payload = proposed_payload()
    payload["entries"][1]["anchor"]["quote"] += "x"
    assert "'anchor.quote'" in refusal(payload, None)


@pytest.mark.parametrize(
    "where",
    ["plan", "entry", "anchor", "adjudication", "was", "rejected record", "merged record"],
)
def test_unknown_keys_are_refused_wherever_they_appear(where: str) -> None:
    payload = adjudicated_payload()
    target = {
        "plan": payload,
        "entry": payload["entries"][0],
        "anchor": payload["entries"][0]["anchor"],
        "adjudication": payload["entries"][0]["adjudication"],
        "was": payload["entries"][1]["adjudication"]["was"],
        "rejected record": payload["rejected"][0],
        "merged record": payload["entries"][1]["adjudication"]["merged"][0],
    }[where]
    target["reviewed"] = True
    assert "reviewed'" in refusal(payload)


@pytest.mark.parametrize(
    "derived",
    [
        ["rule:heading"],
        ["rule:heading", PROPOSED_MARKER],
        [PROPOSED_MARKER, PROPOSED_MARKER, "rule:heading"],
        [PROPOSED_MARKER],
        [PROPOSED_MARKER, "heading"],
        [PROPOSED_MARKER, "rule:Heading"],
        [PROPOSED_MARKER, "rule:heading", "rule:heading"],
        [PROPOSED_MARKER, 3],
        "PROPOSED rule:heading",
    ],
)
def test_a_proposed_entry_must_start_proposed_and_name_its_rules(derived: object) -> None:
    payload = proposed_payload()
    payload["entries"][3]["derived"] = derived
    message = refusal(payload)
    assert "entry #4 ('tunnelhaandbok/3-drenering')" in message and "'derived'" in message


@pytest.mark.parametrize("title", ["", "  ", "To\nlinjer", None, 3])
def test_an_entry_needs_a_one_line_title(title: object) -> None:
    payload = proposed_payload()
    payload["entries"][0]["title"] = title
    assert "'title'" in refusal(payload)


def test_the_error_names_the_entry_and_field_for_a_caller_to_show() -> None:
    payload = proposed_payload()
    payload["entries"][1]["span"] = "nowhere"
    with pytest.raises(PlanError) as caught:
        parse_segmentation_plan(payload)
    assert caught.value.where == "entry #2 ('tunnelhaandbok/1-ventilasjon')"
    assert caught.value.field == "span"


# --- slicing ------------------------------------------------------------------------


def test_slicing_gives_each_entry_the_text_of_its_span() -> None:
    plan = parse_segmentation_plan(proposed_payload(), TEXT)
    bodies = [body for _, body in slice_segments(TEXT, plan)]
    assert bodies == [TEXT[slice(*span_of(o, c))] for _, _, o, c in SECTIONS]


def test_slicing_follows_the_anchors_when_the_text_shifts() -> None:
    plan = parse_segmentation_plan(proposed_payload(), TEXT)
    shifted = "Forord som kom til senere.\n\n" + TEXT
    expected = [TEXT[slice(*entry.span)] for entry in plan.entries]
    assert [body for _, body in slice_segments(shifted, plan)] == expected


def test_slicing_names_every_entry_it_cannot_place() -> None:
    plan = parse_segmentation_plan(proposed_payload(), TEXT)
    # Each edit lies well inside one entry, beyond the context its neighbours' anchors keep.
    rewritten = TEXT.replace("etter trafikk", "etter ÅDT").replace("og grøfter", "og rør")
    with pytest.raises(DriftError) as caught:
        slice_segments(rewritten, plan)
    message = str(caught.value)
    assert "1-ventilasjon" in message and "3-drenering" in message
    assert "2-belysning" not in message
    assert [index for index, _, _ in caught.value.drifted] == [1, 3]
