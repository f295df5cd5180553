"""Second opinions: the review policy of each queue, and how a verdict on a case or a
publication decision on an answer is recorded when its policy asks for two people.

Under double review the first opinion does not decide the item; a second reviewer (never the
same person) gives theirs blind. Agreeing opinions decide; disagreeing ones wait for a curator,
whose decision is final and names both it settles. Each step is its own versioned decision in
the log, so `review.decisions.undo_latest` takes back any of them.
"""

from __future__ import annotations

from django.db.models import Model, Q, QuerySet

from grounding.evidence import REASON_DESCRIPTIONS
from grounding.propose import RULE_DESCRIPTIONS
from grounding.review_policy import MAX_SEED_CHARS, PolicyError, drawn_for_second_opinion
from review.decisions import (
    ActionRefused,
    decide,
    decided_by,
    last_undoable,
    object_type_of,
    record_decision,
    undo_latest,
)
from review.models import Answer, Case, Decision, Entry, ReviewPolicy, SecondOpinions
from review.permissions import can_curate, project_id_of

Queue = ReviewPolicy.Queue
# The first opinion that goes against the machine, per queue: the policy may always check it.
OVERTURNS = {Queue.CASES: Case.Verdict.OVERTURNED, Queue.ANSWERS: Answer.State.WITHDRAWN}
MAX_CONDITIONS = 50


# --- the policy ----------------------------------------------------------------------------


def policy_for(queue: str, project) -> ReviewPolicy:
    """The queue's policy in `project`; single review until staff set one there."""
    project = project_id_of(project)
    found = ReviewPolicy.objects.filter(queue=queue, project_id=project).first()
    return found or ReviewPolicy(queue=queue, project_id=project)


def queue_of(item: Model) -> str:
    return Queue.CASES if isinstance(item, Case) else Queue.ANSWERS


def policy_reasons() -> dict[str, str]:
    """The validator reasons a cases policy may list, each with what it means: every reason
    `grounding.evidence` reports, and "" for a rationale that passed."""
    return {**REASON_DESCRIPTIONS, "": "passed: the validator found nothing wrong"}


def policy_rules() -> dict[str, str]:
    """The proposer rules a plans policy may list, each with what it proposes: the
    proposer's own, and any other rule a stored entry names (a plan imported from elsewhere
    names rules of its own proposer)."""
    stored = Entry.objects.order_by().values_list("rules", flat=True).distinct()
    imported = {rule for rules in stored for rule in rules or ()} - set(RULE_DESCRIPTIONS)
    return {**RULE_DESCRIPTIONS, **dict.fromkeys(sorted(imported), "named by an imported plan")}


def set_policy(
    queue: str,
    *,
    project,
    actor,
    expected_version: int,
    mode: str,
    share_percent: int,
    seed: str = "",
    reasons=(),
    rules=(),
    on_overturn: bool = False,
    note: str = "",
) -> Decision:
    """Change a queue's review policy in `project`, logged as "policy.set". Only staff."""
    if not actor.is_staff:
        raise ActionRefused("Only staff set review policies.")
    check_policy(queue, mode, share_percent, seed, reasons, rules)
    policy, _ = ReviewPolicy.objects.get_or_create(queue=queue, project_id=project_id_of(project))
    return decide(
        policy,
        expected_version=expected_version,
        actor=actor,
        action="policy.set",
        changes={
            "mode": mode,
            "share_percent": share_percent,
            "seed": seed[:MAX_SEED_CHARS],
            "reasons": sorted(set(reasons)),
            "rules": sorted(set(rules)),
            "on_overturn": on_overturn,
            **decided_by(actor, note.strip()),
        },
        note=note.strip(),
    )


def check_policy(queue: str, mode: str, share_percent: int, seed: str, reasons, rules) -> None:
    """Refuse (ActionRefused) a policy that could not work as set: an unknown queue or mode,
    a share or seed the draw refuses, or a condition nobody can meet. Writes nothing."""
    if queue not in Queue.values:
        raise ActionRefused(
            f"There is no queue {queue!r}; the queues are {', '.join(Queue.values)}."
        )
    if mode not in ReviewPolicy.Mode.values:
        raise ActionRefused(f"A review mode is single or double, not {mode!r}.")
    try:
        drawn_for_second_opinion("check", seed=seed, percent=share_percent)
    except PolicyError as refused:
        raise ActionRefused(str(refused)) from refused
    for name, values in (("validator reasons", reasons), ("proposer rules", rules)):
        if len(values) > MAX_CONDITIONS or any(len(v) > 200 for v in values):
            raise ActionRefused(f"At most {MAX_CONDITIONS} {name} of up to 200 characters each.")
    # A condition nobody can meet would be saved and never fire: a typo is refused here.
    for name, values, known in (
        ("validator reason", reasons, policy_reasons()),
        ("proposer rule", rules, policy_rules() if rules else {}),
    ):
        if unknown := [value for value in values if value not in known]:
            raise ActionRefused(
                f"No {name} is called {', '.join(map(repr, unknown))}; "
                f"the {name}s are {', '.join(repr(code) for code in known if code)}"
                # "" is a rationale the validator passed: named in words, not as an empty code.
                + (", and '' for a rationale that passed." if "" in known else ".")
            )


def asks_for_two(policy: ReviewPolicy, item: Model, opinion: str) -> bool:
    """Whether `policy` wants a second opinion on `item`, whose first opinion is `opinion`."""
    if not policy.is_double:
        return False
    if isinstance(item, Case) and item.validator_reason in policy.reasons:
        return True
    if policy.on_overturn and OVERTURNS.get(policy.queue) == opinion:
        return True
    return drawn_for_second_opinion(
        item.external_id, seed=policy.seed, percent=policy.share_percent
    )


def second_opinion_ahead(item: SecondOpinions) -> tuple[bool, str]:
    """Before anyone decides `item`: whether its policy will ask a second reviewer whatever
    the first opinion is, and the one first opinion that would be checked anyway (the
    overturn, when the policy checks overturns; "" if none). What `do_give_opinion` will do,
    said before the verdict rather than after it."""
    policy = policy_for(queue_of(item), item.project_id)
    if not policy.is_double or item.outcome != item.UNDECIDED:
        return False, ""
    return asks_for_two(policy, item, ""), OVERTURNS[policy.queue] if policy.on_overturn else ""


# --- opinions ------------------------------------------------------------------------------


def decide_outcome(
    item: SecondOpinions, value: str, name: str, *, actor, expected_version: int, note: str
) -> Decision:
    """Decide `item`'s outcome (a case's verdict, an answer's state) as `value`: under double
    review as one opinion of two, or the curator's (`do_give_opinion`, its log's actions named
    for the item: "case.first_opinion"); otherwise as one person's decision, logged as the
    action `name` on the item ("case.uphold")."""
    if is_one_of_two_opinions(item, value):
        return do_give_opinion(
            item,
            value,
            prefix=object_type_of(item),
            actor=actor,
            expected_version=expected_version,
            note=note,
        )
    return record_decision(
        item,
        item.OUTCOME_FIELD,
        value,
        action=f"{object_type_of(item)}.{name}",
        actor=actor,
        expected_version=expected_version,
        note=note,
    )


def is_one_of_two_opinions(item: SecondOpinions, opinion: str) -> bool:
    """Whether deciding `opinion` on `item` now is an opinion of a double review (first,
    second, or the curator's: `do_give_opinion`) rather than one person's decision, as it
    always was. Writes nothing."""
    if item.review_stage != item.SINGLE:
        return True
    # Changing a decision made before the policy asked for two stays one person's change.
    return item.outcome == item.UNDECIDED and asks_for_two(
        policy_for(queue_of(item), item.project_id), item, opinion
    )


def do_give_opinion(
    item: SecondOpinions,
    opinion: str,
    *,
    prefix: str,
    actor,
    expected_version: int,
    note: str,
) -> Decision:
    """Record `opinion` as the first or second opinion, or as the curator's decision, of an
    item under double review (`is_one_of_two_opinions` said so). `prefix` names the log's
    actions ("case" gives "case.first_opinion")."""
    stage = item.review_stage
    changes: dict
    if stage == item.SINGLE:
        action = "first_opinion"
        changes = {"first_opinion": opinion, "first_by_id": actor.pk, "first_note": note}
    elif stage == item.AWAITING_SECOND:
        if item.first_by_id == actor.pk:
            raise ActionRefused(
                "You gave the first opinion on this item; a second reviewer decides it."
            )
        action = "second_opinion"
        changes = {"second_opinion": opinion, "second_by_id": actor.pk, "second_note": note}
        if opinion == item.first_opinion:
            changes.update({item.OUTCOME_FIELD: opinion, **decided_by(actor, note)})
    elif stage == item.IN_CURATION:
        if not can_curate(actor, item.project_id):
            raise ActionRefused("The two opinions differ: a curator decides this item.")
        if actor.pk in (item.first_by_id, item.second_by_id):
            raise ActionRefused("A curator settles other people's opinions, not their own.")
        action = "curate"
        changes = {item.OUTCOME_FIELD: opinion, **decided_by(actor, note)}
        note = (
            f"settles {item.first_opinion} by {item.first_by} and {item.second_opinion} by "
            f"{item.second_by}" + (f": {note}" if note else "")
        )
    else:
        raise ActionRefused("Two reviewers decided this item; undo their decision to reopen it.")
    return decide(
        item,
        expected_version=expected_version,
        actor=actor,
        action=f"{prefix}.{action}",
        changes=changes,
        note=note,
    )


def undo_opinion(item: SecondOpinions, *, actor, expected_version: int, action: str) -> Decision:
    """Undo the latest decision on `item`. Under double review only its author or a curator
    may: anyone else would take back an opinion they are not meant to have seen."""
    if item.review_stage != item.SINGLE:
        latest = last_undoable(item, action)
        if (
            latest is not None
            and latest.actor_id != actor.pk
            and not can_curate(actor, item.project_id)
        ):
            raise ActionRefused("Only its author or a curator takes back a reviewer's opinion.")
    return undo_latest(item, actor=actor, expected_version=expected_version, action=action)


# --- what needs whom -----------------------------------------------------------------------


def review_stages(user, model: type[SecondOpinions], may_decide: bool, project) -> list[Q]:
    """What the queue may hand `user`, stage by stage in the order it hands them: second
    opinions others began (it finishes what someone began), when `user` may decide; then
    disagreements, when they curate; then items nobody has decided yet. Never an item they
    gave an opinion on. Each stage is taken on its own, in the queue's order, so that "Next"
    walks an index (models: `case_awaiting_second` and the like) instead of sorting every
    waiting item by its stage."""
    stages = []
    if may_decide:
        stages.append(model.awaiting_second_q() & ~Q(first_by=user))
    if can_curate(user, project):
        stages.append(_curated_by_q(user, model))
    if may_decide:
        stages.append(Q(first_opinion="", **{model.OUTCOME_FIELD: model.UNDECIDED}))
    return stages


def _curated_by_q(user, model: type[SecondOpinions]) -> Q:
    return model.in_curation_q() & ~Q(first_by=user) & ~Q(second_by=user)


def in_curation_for(user, model: type[SecondOpinions], project) -> QuerySet:
    """The items of `project` in curation that `user` may settle (none they gave an opinion
    on); none unless they curate there."""
    if not can_curate(user, project):
        return model.objects.none()
    return model.objects.filter(_curated_by_q(user, model), project=project)


def needing_review_by(user, model: type[SecondOpinions], may_decide: bool, project) -> QuerySet:
    """Every item of `project` the queue may hand `user`: `review_stages` together (what is
    waiting for them, and whether an item is one of those; "Next" takes stage by stage)."""
    wanted = Q(pk__in=[])
    for stage in review_stages(user, model, may_decide, project):
        wanted |= stage
    return model.objects.filter(wanted, project=project)
