"""Plans out: adjudication freezes a fully decided plan; the export is that, and it replays."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from grounding.segmentation import parse_segmentation_plan, slice_segments
from review.actions.plan_reviews import adjudicate_plan
from review.adapters.documents import store_document
from review.adapters.errors import PlanNotAdjudicable
from review.adapters.plans import (
    export_plan,
    import_plan,
    plan_entries_as_decisions,
)
from review.decisions import StaleVersion, decide
from review.models import Decision, Entry, Plan
from tests.builders.plans import (
    CODE_TEXT,
    payload_text,
    proposed_payload,
    row_counts,
    update_entries,
)

pytestmark = pytest.mark.django_db

ACTIONS = {
    "accepted": "entry.accept",
    "edited": "entry.edit",
    "merged": "entry.merge",
    "rejected": "entry.reject",
}


@pytest.fixture
def plan() -> Plan:
    document = store_document("n500.md", CODE_TEXT.encode())
    return import_plan(document, payload_text(proposed_payload()))


def settle(entry: Entry, user: User, state: str, note: str = "", **changes) -> Entry:
    """Decide an entry the way the plan page does: through review.decisions."""
    decide(
        entry,
        expected_version=entry.version,
        actor=user,
        action=ACTIONS[state],
        changes={
            "state": state,
            "decided_by": user,
            "decided_at": timezone.now(),
            "note": note,
            **changes,
        },
        note=note,
    )
    return entry


def entries(plan: Plan) -> list[Entry]:
    return list(plan.entries.order_by("position"))


def snapshot_of(plan: Plan) -> tuple:
    plan.refresh_from_db()
    return (plan.status, plan.version, plan.adjudicated_payload, row_counts())


# --- refusals ---------------------------------------------------------------------------


def test_exporting_a_plan_with_undecided_entries_names_every_one(plan: Plan, editor) -> None:
    first, second, third = entries(plan)
    settle(second, editor, "accepted")

    with pytest.raises(PlanNotAdjudicable) as refused:
        export_plan(plan)

    problems = refused.value.problems
    assert f"plan {plan.pk} is not adjudicated" in problems[0]
    assert problems[1:] == [
        f"entry #1 ({first.path!r}) is still undecided",
        f"entry #3 ({third.path!r}) is still undecided",
    ]
    assert refused.value.undecided == [first, third]


def test_exporting_a_decided_plan_nobody_adjudicated_says_to_adjudicate_it(plan, editor) -> None:
    for entry in entries(plan):
        settle(entry, editor, "accepted")

    with pytest.raises(PlanNotAdjudicable, match="nobody has adjudicated the plan yet"):
        export_plan(plan)


def test_adjudicating_while_an_entry_is_undecided_is_refused_and_changes_nothing(
    plan: Plan, editor
) -> None:
    first, second, _ = entries(plan)
    settle(first, editor, "accepted")
    settle(second, editor, "accepted")
    before = snapshot_of(plan)

    with pytest.raises(PlanNotAdjudicable, match=r"entry #3 .* is still undecided"):
        adjudicate_plan(plan, actor=editor, expected_version=plan.version)

    assert snapshot_of(plan) == before
    assert not Decision.objects.filter(action="plan.adjudicate").exists()


@pytest.mark.parametrize("status", ["fuzzy", "ambiguous", "orphaned"])
def test_a_doubtful_anchor_blocks_adjudication_until_someone_confirms_it(
    plan: Plan, editor, status: str
) -> None:
    doubtful = entries(plan)[1]
    update_entries(Entry.objects.filter(pk=doubtful.pk), anchor_status=status, anchor_score=0.7)
    for entry in entries(plan):
        settle(entry, editor, "accepted")
    before = snapshot_of(plan)

    with pytest.raises(PlanNotAdjudicable) as refused:
        adjudicate_plan(plan, actor=editor, expected_version=plan.version)
    assert refused.value.problems == [
        f"entry #2 ({doubtful.path!r}): its anchor is {status} in the stored text; "
        "confirm it or edit the entry"
    ]
    assert snapshot_of(plan) == before

    doubtful.refresh_from_db()
    decide(
        doubtful,
        expected_version=doubtful.version,
        actor=editor,
        action="entry.confirm_anchor",
        changes={"anchor_confirmed": True},
    )
    assert (
        adjudicate_plan(plan, actor=editor, expected_version=plan.version).status == "adjudicated"
    )


def test_adjudicating_a_version_someone_else_moved_is_refused(plan: Plan, editor) -> None:
    for entry in entries(plan):
        settle(entry, editor, "accepted")
    seen = plan.version
    Plan.objects.filter(pk=plan.pk).update(version=seen + 1)
    before = snapshot_of(plan)

    with pytest.raises(StaleVersion):
        adjudicate_plan(plan, actor=editor, expected_version=seen)

    assert snapshot_of(plan) == before


def test_a_merge_with_nothing_before_it_is_refused_with_groundings_reason(plan, editor) -> None:
    first, second, third = entries(plan)
    settle(first, editor, "merged")
    settle(second, editor, "accepted")
    settle(third, editor, "accepted")
    before = snapshot_of(plan)

    with pytest.raises(PlanNotAdjudicable, match="cannot merge: there is no entry before it"):
        adjudicate_plan(plan, actor=editor, expected_version=plan.version)

    assert snapshot_of(plan) == before


def test_a_plan_is_adjudicated_once(plan: Plan, editor) -> None:
    for entry in entries(plan):
        settle(entry, editor, "accepted")
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)
    before = snapshot_of(plan)

    with pytest.raises(PlanNotAdjudicable, match=r"already adjudicated \(by editor at "):
        adjudicate_plan(plan, actor=editor, expected_version=plan.version)

    assert snapshot_of(plan) == before


# --- the adjudicated payload ----------------------------------------------------------------


def test_adjudication_freezes_the_payload_logs_it_and_export_serves_it_unchanged(
    plan: Plan, editor
) -> None:
    for entry in entries(plan):
        settle(entry, editor, "accepted", note="fine")
    version = plan.version

    adjudicate_plan(plan, actor=editor, expected_version=version)

    plan.refresh_from_db()
    assert (plan.status, plan.version, plan.adjudicated_by) == ("adjudicated", version + 1, editor)
    assert export_plan(plan) == plan.adjudicated_payload
    logged = Decision.objects.get(action="plan.adjudicate")
    assert (logged.object_type, logged.object_id, logged.actor) == ("plan", str(plan.pk), editor)
    assert (logged.before["status"], logged.after["status"]) == ("open", "adjudicated")
    payload = json.loads(plan.adjudicated_payload)
    assert payload["adjudicated"] is True
    assert payload["rejected"] == []
    assert [entry["adjudication"]["decision"] for entry in payload["entries"]] == ["accept"] * 3
    assert {entry["adjudication"]["by"] for entry in payload["entries"]} == {"editor"}
    assert {entry["adjudication"]["note"] for entry in payload["entries"]} == {"fine"}


def test_the_export_replays_to_exactly_the_adjudicated_bodies(plan: Plan, editor) -> None:
    first, second, third = entries(plan)
    settle(
        first,
        editor,
        "edited",
        note="clearer",
        title="3.1 Brannkonsept og seksjonering",
        path="n500/brannkonsept",
    )
    settle(second, editor, "merged", note="one section")
    settle(third, editor, "rejected", note="out of scope")
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)

    exported = json.loads(export_plan(plan))
    replayed = slice_segments(plan.document.text, parse_segmentation_plan(exported))

    # Computed from the text, not from the payload: 3.1 and 3.2 together, 3.3 gone.
    kept = CODE_TEXT[first.span_start : second.span_end]
    assert [(entry.path, entry.title, body) for entry, body in replayed] == [
        ("n500/brannkonsept", "3.1 Brannkonsept og seksjonering", kept)
    ]
    adjudication = exported["entries"][0]["adjudication"]
    assert adjudication["decision"] == "edit"
    assert adjudication["was"] == {"title": "3.1 Brannkonsept", "path": "n500/3-1-brannkonsept"}
    assert [record["path"] for record in adjudication["merged"]] == [second.path]
    assert [(r["path"], r["adjudication"]["note"]) for r in exported["rejected"]] == [
        (third.path, "out of scope")
    ]


def test_an_edited_span_replays_to_the_new_body(plan: Plan, editor) -> None:
    first, second, third = entries(plan)
    heading_end = CODE_TEXT.index("\n", first.span_start) + 1
    settle(first, editor, "edited", span_start=heading_end, span_end=first.span_end)
    settle(second, editor, "accepted")
    settle(third, editor, "accepted")
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)

    replayed = slice_segments(
        CODE_TEXT, parse_segmentation_plan(json.loads(export_plan(plan)), CODE_TEXT)
    )

    assert [body for _, body in replayed] == [
        CODE_TEXT[heading_end : first.span_end],
        CODE_TEXT[second.span_start : second.span_end],
        CODE_TEXT[third.span_start : third.span_end],
    ]


def test_a_moved_plan_is_exported_against_the_stored_text(editor) -> None:
    document = store_document("n500.md", CODE_TEXT.encode())
    older = "Preamble from an older extractor.\n\n" + CODE_TEXT
    plan = import_plan(
        document,
        payload_text(proposed_payload(older, data=CODE_TEXT.encode(), extractor_version="0-old")),
    )
    for entry in entries(plan):
        settle(entry, editor, "accepted")
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)

    exported = json.loads(export_plan(plan))

    assert exported["extractor_version"] == document.extractor_version
    replayed = slice_segments(CODE_TEXT, parse_segmentation_plan(exported, CODE_TEXT))
    assert [body for _, body in replayed] == [entry.quote for entry in entries(plan)]


def test_decisions_carry_who_when_and_the_note_and_leave_undecided_entries_empty(
    plan: Plan, editor
) -> None:
    first, second, _ = entries(plan)
    settle(first, editor, "accepted", note="ok")
    settle(second, editor, "rejected", note="noise")
    first.refresh_from_db()

    decisions = plan_entries_as_decisions(plan)

    assert [None if d is None else d.kind for d in decisions] == ["accept", "reject", None]
    assert (decisions[0].by, decisions[0].note) == ("editor", "ok")
    assert decisions[0].at == first.decided_at.isoformat()


def test_an_orphan_beyond_the_stored_text_must_be_edited_before_adjudication(editor) -> None:
    document = store_document("n500.md", CODE_TEXT.encode())
    # Made by an older extraction that had one more section; its anchor is found nowhere.
    payload = proposed_payload(extractor_version="0-old")
    end = len(CODE_TEXT)
    payload["entries"].append(
        {
            "path": "n500/3-4-tillegg",
            "title": "3.4 Tillegg",
            "span": [end, end + 40],
            "anchor": {"quote": "zq" * 20, "prefix": "", "suffix": ""},
            "derived": ["PROPOSED", "rule:heading"],
        }
    )
    plan = import_plan(document, payload_text(payload))
    *placed, orphan = entries(plan)
    assert orphan.anchor_status == "orphaned" and orphan.span_end > len(CODE_TEXT)
    for entry in placed:
        settle(entry, editor, "accepted")
    settle(orphan, editor, "accepted", anchor_confirmed=True)

    refusal = rf"not in the stored text \({end} characters\) and its anchor is orphaned; edit"
    with pytest.raises(PlanNotAdjudicable, match=refusal):
        adjudicate_plan(plan, actor=editor, expected_version=plan.version)

    last_body_start = CODE_TEXT.index("Hovedbaeresystemet")
    shortened = placed[-1]
    shortened.refresh_from_db()
    settle(shortened, editor, "edited", span_end=last_body_start)
    orphan.refresh_from_db()
    settle(
        orphan,
        editor,
        "edited",
        span_start=last_body_start,
        span_end=end,
        anchor_status="exact",
    )
    adjudicate_plan(plan, actor=editor, expected_version=plan.version)

    replayed = slice_segments(CODE_TEXT, parse_segmentation_plan(json.loads(export_plan(plan))))
    assert replayed[-1][1] == CODE_TEXT[last_body_start:]
    # The proposal itself no longer fits the text, so the edited spans are where the
    # decisions start from: the export records who kept them, not the stale spans.
    exported = json.loads(export_plan(plan))
    assert [entry["adjudication"]["by"] for entry in exported["entries"]] == ["editor"] * 4
    assert "was" not in exported["entries"][-1]["adjudication"]
