"""The demo's history: weeks of a team's decisions, made once, so that the insights have
something to count across documents, rules and validator reasons.

Demo people (editor2, moderator2, and for double review moderator3 and editor3) decide
through the same actions the pages use
(every decision is logged as usual), by a fixed pattern rather than by reading: this is demo
data, and the insights page says what it shows, not that the pattern is right. The documents
are real: the READMEs of eight packages (demo_data/history/MANIFEST.md).
"""

from __future__ import annotations

from pathlib import Path

from review.actions.answers import decide_answer
from review.actions.cases import decide_case
from review.actions.documents import COMMAND_LINE, propose_document
from review.actions.entries import EditRequest, accept_entry, edit_entry, merge_entry, reject_entry
from review.actions.plan_reviews import adjudicate_plan, differing_entries, open_review_copy
from review.actions.reviews import policy_for, set_policy
from review.decisions import ActionRefused
from review.models import Answer, Case, Decision, Entry, Plan, Project, ReviewPolicy

HISTORY = Path(__file__).resolve().parents[2] / "demo_data" / "history"
# Two documents are also proposed with a size cap, so that the cap's rule has a record too;
# the cap's splits are the ones the pattern rejects most.
CAPPED = {"pypdf-readme.md": 1200, "django-ninja-readme.md": 1200}
# Left for the demo's own people: the last cases and answers of the files stay undecided.
UNDECIDED_CASES = 6
UNDECIDED_ANSWERS = 8


def already_made(editor) -> bool:
    return Decision.objects.filter(actor=editor).exists()


def make_history(
    editor,
    moderator,
    say,
    *,
    plans_in: Project,
    cases_in: Project,
    second=None,
    curator=None,
    staff=None,
    second_editor=None,
) -> None:
    """The plans are `plans_in`'s, the cases and answers `cases_in`'s (one project may be
    both). With `second`, `curator` and `staff`, the cases are double-reviewed: `moderator` gives
    the first opinions, `second` the second ones, `curator` settles most disagreements. With
    `second_editor` and `staff` too, one plan is double-reviewed by `editor` and
    `second_editor`, who differ on one entry: the demo's curator settles it."""
    if second_editor is not None and staff is not None:
        plan, differing = _double_review_plan(plans_in, staff, editor, second_editor)
        say(
            f"history: {editor.username} and {second_editor.username} each reviewed a copy of "
            f"plan {plan.pk} ({DOUBLE_REVIEWED}); {differing} entry differs, for a curator"
        )
    for path in sorted(HISTORY.glob("*-readme.md")):
        plan = propose_document(
            path.name,
            path.read_bytes(),
            actor=COMMAND_LINE,
            project=plans_in,
            max_segment_chars=CAPPED.get(path.name, 0),
            path_prefix=path.stem.removesuffix("-readme"),
        )
        decided = _decide_plan(plan, editor)
        say(f"history: {editor.username} decided {decided} entries of plan {plan.pk} ({path.name})")
    if staff is not None:
        _set_cases_policy(cases_in, staff, share_percent=100, note="Double review for the history.")
    cases = _decide_cases(cases_in, moderator)
    if second is not None and curator is not None and staff is not None:
        seconds, curated = _second_opinions(cases_in, second), _curate(cases_in, curator)
        say(
            f"history: {second.username} gave {seconds} second opinions, {curator.username} "
            f"settled {curated} disagreement{'' if curated == 1 else 's'}"
        )
        # From now on: half the cases drawn, and always an overturn or non-success evidence.
        _set_cases_policy(
            cases_in, staff, share_percent=50, note="Half the cases, and every overturn."
        )
    answers = _decide_answers(cases_in, editor)
    say(f"history: {moderator.username} gave {cases} verdicts, {editor.username} {answers} answers")


def _decide_plan(plan: Plan, editor, *, retitle: int | None = None, reject=()) -> int:
    """Accept most entries; reject every 10th, merge every 16th, and half of the size splits
    (and those at `reject`); give the entry at `retitle` a title of the editor's own."""
    decided = 0
    for index, entry in enumerate(Entry.objects.filter(plan=plan).order_by("position")):
        entry.plan = plan
        if index == retitle:
            _retitle(entry, editor)
            decided += 1
            continue
        split = "rule:size-split" in (entry.rules or [])
        if split and index % 2 or index % 10 == 9 or index in reject:
            act = reject_entry
        elif index % 16 == 15:
            act = merge_entry
        else:
            act = accept_entry
        try:
            act(entry, actor=editor, expected_version=entry.version, note="")
        except ActionRefused:
            # A merge into a rejected entry is refused; the pattern accepts it instead.
            accept_entry(entry, actor=editor, expected_version=entry.version, note="")
        decided += 1
    plan.refresh_from_db()
    if not plan.blockers(list(plan.entries.order_by("position"))):
        adjudicate_plan(plan, actor=editor, expected_version=plan.version)
    return decided


# The history's double-reviewed plan: a second plan on one of the READMEs (its own paths, so
# none collides with the first plan's), which two editors review, each in their own copy.
DOUBLE_REVIEWED = "diff-match-patch-readme.md"
DOUBLE_REVIEWED_PREFIX = "dmp-double-review"
# The entry on which the second editor's title differs from the first's; and one both reject,
# so that the figures have more than one kind of decision to agree on.
RETITLED = 1
BOTH_REJECT = (3,)


def _double_review_plan(project: Project, staff, first, second) -> tuple[Plan, int]:
    path = HISTORY / DOUBLE_REVIEWED
    plan = propose_document(
        path.name,
        path.read_bytes(),
        actor=COMMAND_LINE,
        project=project,
        path_prefix=DOUBLE_REVIEWED_PREFIX,
    )
    # Staff ask for two editors on every plan while the copies are made; a plan with copies
    # stays double-reviewed, so the queue goes back to one editor a plan afterwards.
    plans = ReviewPolicy.Queue.PLANS
    _set_policy(project, plans, staff, share_percent=100, note="Two editors, once.")
    _decide_plan(open_review_copy(plan, actor=first), first, reject=BOTH_REJECT)
    _decide_plan(open_review_copy(plan, actor=second), second, retitle=RETITLED, reject=BOTH_REJECT)
    _set_policy(
        project,
        plans,
        staff,
        mode=ReviewPolicy.Mode.SINGLE,
        share_percent=0,
        note="Back to one editor a plan; the plan under double review keeps its two.",
    )
    return plan, len(differing_entries(plan))


def _retitle(entry: Entry, editor) -> None:
    request = EditRequest(
        title=f"{entry.title}: overview",
        path=entry.path,
        start=entry.span_start,
        end=entry.span_end,
        note="The section reads as an overview.",
        keep_boundaries=True,
    )
    edit_entry(entry, request, actor=editor, expected_version=entry.version)


def _decide_cases(project: Project, moderator) -> int:
    """Overturn most flagged rationales, uphold one in four of them and most that passed."""
    proposed = Case.objects.filter(project=project, verdict=Case.Verdict.PROPOSED)
    cases = list(proposed.order_by("case_id"))
    for number, case in enumerate(cases[:-UNDECIDED_CASES] if UNDECIDED_CASES else cases):
        if case.flagged and number % 4 != 3:
            action, note = "overturn", "The rationale does not hold up against its evidence."
        elif not case.flagged and number % 5 == 4:
            action, note = "needs_rewrite", "Passed the validator, but claims more than it cites."
        else:
            action, note = "uphold", ""
        decide_case(case, action, actor=moderator, expected_version=case.version, note=note)
    return max(0, len(cases) - UNDECIDED_CASES)


def _decide_answers(project: Project, editor) -> int:
    """Publish what finalization left whole; withdraw an answer whose phantoms were replaced."""
    proposed = Answer.objects.filter(project=project, state=Answer.State.PROPOSED)
    answers = list(proposed.order_by("answer_id"))
    decided = answers[:-UNDECIDED_ANSWERS] if UNDECIDED_ANSWERS else answers
    for answer in decided:
        action = "withdraw" if answer.change_replaced or answer.change_dropped else "publish"
        decide_answer(answer, action, actor=editor, expected_version=answer.version)
    return len(decided)


# Double review of the history's cases: the second moderator differs on every fifth case;
# the curator leaves the last disagreements for the demo's curator to settle.
LEFT_IN_CURATION = 2


def _set_cases_policy(project: Project, staff, *, share_percent: int, note: str) -> None:
    _set_policy(
        project,
        ReviewPolicy.Queue.CASES,
        staff,
        share_percent=share_percent,
        reasons=["cited_non_success_evidence"],
        on_overturn=True,
        note=note,
    )


def _set_policy(project: Project, queue, staff, *, mode=ReviewPolicy.Mode.DOUBLE, **policy) -> None:
    set_policy(
        queue,
        project=project,
        actor=staff,
        expected_version=policy_for(queue, project).version,
        mode=mode,
        seed="demo",
        **policy,
    )


OTHER_VERDICT = {"upheld": "overturn", "overturned": "uphold", "needs_rewrite": "uphold"}
SAME_VERDICT = {"upheld": "uphold", "overturned": "overturn", "needs_rewrite": "needs_rewrite"}


def _second_opinions(project: Project, moderator) -> int:
    awaiting = Case.objects.filter(Case.awaiting_second_q(), project=project).order_by("case_id")
    for number, case in enumerate(awaiting):
        differs = number % 5 == 2
        action = (OTHER_VERDICT if differs else SAME_VERDICT)[case.first_opinion]
        note = "I read the evidence differently." if differs or action != "uphold" else ""
        decide_case(case, action, actor=moderator, expected_version=case.version, note=note)
    return len(awaiting)


def _curate(project: Project, curator) -> int:
    in_curation = Case.objects.filter(Case.in_curation_q(), project=project)
    disagreements = list(in_curation.order_by("case_id"))
    settled = disagreements[:-LEFT_IN_CURATION]
    for number, case in enumerate(settled):
        # Mostly the first opinion stands; the last settled sides with the second.
        opinion = case.second_opinion if number == len(settled) - 1 else case.first_opinion
        decide_case(
            case,
            SAME_VERDICT[opinion],
            actor=curator,
            expected_version=case.version,
            note="Settled against the evidence table.",
        )
    return len(settled)
