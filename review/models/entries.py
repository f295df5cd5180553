"""A plan's entries, and the counts over them that a plan keeps (`PlanCounts`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.apps import apps
from django.db import models
from django.db.models import Count, Max, Q, Subquery, Value
from django.db.models.functions import Coalesce

from grounding.anchors import Anchor
from grounding.placement import proposed_span_now
from grounding.segmentation import shown_number
from review.models.decided import Decided
from review.refusals import FROZEN, ActionRefused


class EntryQuerySet(models.QuerySet):
    def counts(self) -> PlanCounts:
        """These entries' counts, in one aggregate query."""
        return PlanCounts.from_values(self.aggregate(**count_aggregates()))

    def tallies(self) -> EntryQuerySet:
        """These entries' counts per plan, as rows of `plan_id` and each counter key: what
        `PlanQuerySet.recount` stores."""
        grouped = self.order_by().values("plan_id").annotate(**count_aggregates())
        return grouped.values("plan_id", *COUNTER_KEYS)

    def merged_end(self, entry: Entry) -> int | None:
        """Where `entry`'s text ends with the entries merged into it (the run of merged
        entries right after it), None when none is or it is merged itself: one query.
        `merged_ends` is its twin over rows in hand, and a test holds the two to the same
        answer."""
        if entry.state == Entry.State.MERGED:
            return None
        after = self.filter(plan_id=entry.plan_id, position__gt=entry.position)
        next_unmerged = (
            after.exclude(state=Entry.State.MERGED).order_by("position").values("position")[:1]
        )
        # No unmerged entry after it: the run goes to the plan's end (past any position).
        run = after.filter(
            state=Entry.State.MERGED,
            position__lt=Coalesce(Subquery(next_unmerged), Value(2**31 - 1)),
        )
        return run.aggregate(end=Max("span_end"))["end"]

    def joined_by(self, entry: Entry) -> Entry | None:
        """The entry a merged `entry` is part of: the nearest one before it not merged."""
        before = self.filter(plan_id=entry.plan_id, position__lt=entry.position)
        return before.exclude(state=Entry.State.MERGED).order_by("-position").first()


def merged_ends(entries: Iterable[Entry]) -> dict[int, int]:
    """Entry id -> where its text ends with the entries merged into it, for the entries of
    one plan in position order that some are merged into (`EntryQuerySet.merged_end`)."""
    ends: dict[int, int] = {}
    joined = None
    for entry in entries:
        if entry.state != Entry.State.MERGED:
            joined = entry
        elif joined is not None:
            ends[joined.pk] = entry.span_end
    return ends


class Entry(Decided):
    class State(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        ACCEPTED = "accepted", "Accepted"
        EDITED = "edited", "Edited"
        MERGED = "merged", "Merged"
        REJECTED = "rejected", "Rejected"

    class AnchorStatus(models.TextChoices):
        EXACT = "exact", "Exact"
        MOVED = "moved", "Moved"
        FUZZY = "fuzzy", "Fuzzy"
        AMBIGUOUS = "ambiguous", "Ambiguous"
        ORPHANED = "orphaned", "Orphaned"

    plan = models.ForeignKey("Plan", on_delete=models.CASCADE, related_name="entries")
    position = models.PositiveIntegerField()
    path = models.CharField(max_length=500)
    title = models.CharField(max_length=500)
    span_start = models.PositiveIntegerField()
    span_end = models.PositiveIntegerField()
    quote = models.TextField()
    prefix = models.TextField(blank=True)
    suffix = models.TextField(blank=True)
    rules = models.JSONField(default=list)
    # The entry as the proposer wrote it, for showing edits beside the original.
    proposed = models.JSONField(default=dict)
    anchor_status = models.CharField(max_length=16, choices=AnchorStatus.choices)
    anchor_score = models.FloatField(default=1.0)
    # A person re-confirmed a fuzzy, ambiguous or orphaned anchor.
    anchor_confirmed = models.BooleanField(default=False)
    state = models.CharField(
        max_length=16, choices=State.choices, default=State.PROPOSED, db_index=True
    )
    # On a plan carried to a new revision: where the entry came from and the decision it had
    # there ({"fate": "kept" | "doubtful" | "new", ...}); empty on any other plan.
    carried = models.JSONField(default=dict, blank=True)

    objects = EntryQuerySet.as_manager()

    # Anchors a person must look at before the plan can be signed off.
    DOUBTFUL_ANCHORS = frozenset(
        {AnchorStatus.FUZZY, AnchorStatus.AMBIGUOUS, AnchorStatus.ORPHANED}
    )
    # States that settle a doubtful anchor: an edit re-makes it, a rejection leaves the plan.
    ANCHOR_SETTLING_STATES = frozenset({State.EDITED, State.REJECTED})
    # States that keep the entry in the plan as decided.
    KEPT_STATES = frozenset({State.ACCEPTED, State.EDITED})

    class Meta:
        ordering = ["plan", "position"]
        constraints = [
            models.UniqueConstraint(fields=["plan", "position"], name="entry_position_unique"),
        ]
        # Path collisions are re-checked path by path when entries change.
        indexes = [models.Index(fields=["path"], name="entry_path")]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return self.path

    @property
    def number(self) -> int:
        """The entry's number as the screen shows it: #1 is the first."""
        return shown_number(self.position)

    @property
    def anchor_in_doubt(self) -> bool:
        """The anchor was placed fuzzily, ambiguously or not at all, and nobody confirmed it."""
        return self.anchor_status in self.DOUBTFUL_ANCHORS and not self.anchor_confirmed

    @property
    def anchor_unsettled(self) -> bool:
        """This anchor still needs a person before the plan can be adjudicated: it is in doubt,
        and the entry was neither edited (which re-makes the anchor) nor rejected."""
        return (
            self.anchor_status in self.DOUBTFUL_ANCHORS
            and not self.anchor_confirmed
            and self.state not in self.ANCHOR_SETTLING_STATES
        )

    @property
    def needs_a_person(self) -> bool:
        """Still stands in adjudication's way: undecided, or its anchor is unsettled."""
        return self.state == self.State.PROPOSED or self.anchor_unsettled

    @property
    def suggestion(self) -> dict | None:
        """The earlier revision's decision, offered beside an entry that came back proposed."""
        if self.carried.get("fate") == "doubtful" and self.state == self.State.PROPOSED:
            return self.carried
        return None

    def on_decision(self, will_be: Entry) -> None:
        """Takes the plan's row before the entry's UPDATE, which then moves the plan's counters
        (a trigger, `review.counter_triggers`): the plan first, as adjudication takes it, so
        the two wait in one order. The lock reads the plan's status as committed, so it is
        also the re-check that the plan is still open."""
        plans = Entry.plan.field.related_model.objects
        held = plans.hold_open(self.plan_id)
        if held is None:
            # The plan is no longer open, as committed: say why as its page would.
            plans.select_related("document").get(pk=self.plan_id).refuse_unless_open()
            raise ActionRefused(FROZEN)
        if Entry.plan.is_cached(self):
            # What the row's reply draws, without reading the plan again: nobody else moves
            # its counters while its row is held (if the UPDATE is stale, all is undone).
            self.plan.set_counts(held.moved_by(self, will_be))

    @property
    def decision_project_id(self) -> int:
        if Entry.plan.is_cached(self):
            return self.plan.project_id
        plans = Entry.plan.field.related_model.objects
        return plans.filter(pk=self.plan_id).values_list("project_id", flat=True).get()

    def after_decision(self, was: Entry) -> None:
        """The paths it left or joined (rejected, un-rejected, or given another path) are
        checked again for collisions."""
        if (was.path, was.is_live) != (self.path, self.is_live):
            collisions = apps.get_model("review", "PathCollision").objects
            collisions.refresh({was.path, self.path})

    @property
    def is_live(self) -> bool:
        """Counts towards path collisions (`PathCollision`): a rejected entry leaves its plan."""
        return self.state != self.State.REJECTED

    def proposed_span(self, text: str | None = None) -> tuple[int, int] | None:
        """Where the proposed entry lies in the stored text (`grounding.placement`'s rule); None
        for an entry with no proposal. An accept keeps this span."""
        proposed = self.proposed or {}
        if "span" not in proposed:
            return None
        span = tuple(proposed["span"])
        if not proposed.get("anchor"):
            return span
        text = self.plan.document_text if text is None else text
        return proposed_span_now(text, span, Anchor.from_dict(proposed["anchor"]))

    def differs_from_proposal(
        self, *, title: str | None = None, path: str | None = None, span=None, text=None
    ) -> bool:
        """Whether the entry (or the given new values) differs from what was proposed: such an
        entry is kept as an edit, never as an accept, or the export would drop the change."""
        proposed = self.proposed or {}
        title = self.title if title is None else title
        path = self.path if path is None else path
        span = (self.span_start, self.span_end) if span is None else tuple(span)
        if proposed.get("title", title) != title or proposed.get("path", path) != path:
            return True
        # The common case needs no text: the entry still has the span it was proposed with.
        if "span" not in proposed or tuple(proposed["span"]) == span:
            return False
        return self.proposed_span(text) != span

    def refusal_for(
        self, state: str, previous: Entry | None, following: Entry | None
    ) -> str | None:
        """Why this entry cannot be rejected or merged beside its neighbours as they are (None
        when it can): nothing may stay merged into a rejected entry, and a merge needs a kept
        entry before it."""
        rejected_under_a_merge = following is not None and following.state == self.State.MERGED
        if state == self.State.REJECTED and rejected_under_a_merge:
            return (
                f"“{following.title}” is merged into this entry; "
                "undo that merge before rejecting it."
            )
        if state == self.State.MERGED:
            if previous is None:
                return "The first entry has no entry before it to merge into."
            if previous.state == self.State.REJECTED:
                return (
                    f"The entry before this one (“{previous.title}”) is rejected; "
                    "a merge needs a kept entry to join."
                )
        return None

    @classmethod
    def unsettled_anchor_q(cls, prefix: str = "") -> Q:
        """`anchor_unsettled` as a filter, for counting in the database (a test holds the
        two to the same answer)."""
        return Q(
            **{
                f"{prefix}anchor_status__in": cls.DOUBTFUL_ANCHORS,
                f"{prefix}anchor_confirmed": False,
            }
        ) & ~Q(**{f"{prefix}state__in": list(cls.ANCHOR_SETTLING_STATES)})


# The stored counters of a plan: `Plan.count_<key>` for each key of `PlanCounts.from_values`.
COUNTER_KEYS = (
    "total",
    "proposed",
    "accepted",
    "edited",
    "merged",
    "rejected",
    "unsettled_anchors",
    "need_you",
)


def counter_column(key: str) -> str:
    return f"count_{key}"


def count_aggregates(prefix: str = "") -> dict:
    """Conditional counts over entries; `prefix` is the lookup path to Entry ("entries__")."""
    aggregates = {"total": Count(f"{prefix}pk")}
    for state in Entry.State:
        aggregates[state.value] = Count(f"{prefix}pk", filter=Q(**{f"{prefix}state": state}))
    unsettled = Entry.unsettled_anchor_q(prefix)
    aggregates["unsettled_anchors"] = Count(f"{prefix}pk", filter=unsettled)
    proposed = Q(**{f"{prefix}state": Entry.State.PROPOSED})
    aggregates["need_you"] = Count(f"{prefix}pk", filter=proposed | unsettled)
    return aggregates


@dataclass(frozen=True)
class PlanCounts:
    """How far a plan's review has come, and what still stands in adjudication's way."""

    total: int = 0
    proposed: int = 0
    accepted: int = 0
    edited: int = 0
    merged: int = 0
    rejected: int = 0
    # Entries whose anchor still needs a person (see Entry.anchor_unsettled).
    unsettled_anchors: int = 0
    # Entries still in adjudication's way, either way (see Entry.needs_a_person).
    need_you: int = 0
    by_state: tuple[tuple[str, str, int], ...] = field(default=())

    @classmethod
    def from_values(cls, values: dict) -> PlanCounts:
        """From a row of `count_aggregates` (or the stored counters, with the same keys)."""
        return cls(
            total=values["total"],
            unsettled_anchors=values["unsettled_anchors"],
            need_you=values["need_you"],
            by_state=tuple(
                (state.value, state.label, values[state.value]) for state in Entry.State
            ),
            **{state.value: values[state.value] for state in Entry.State},
        )

    @classmethod
    def of_entries(cls, entries) -> PlanCounts:
        """The same counts from entries already loaded (no query)."""
        values = {"total": 0, "unsettled_anchors": 0, "need_you": 0}
        values |= {state.value: 0 for state in Entry.State}
        for entry in entries:
            values["total"] += 1
            values[entry.state] += 1
            values["unsettled_anchors"] += entry.anchor_unsettled
            values["need_you"] += entry.needs_a_person
        return cls.from_values(values)

    def moved_by(self, was: Entry, now: Entry) -> PlanCounts:
        """These counts once one entry has changed from `was` to `now`, by the rows' own rule
        (which a test holds to the counter triggers')."""
        before, after = PlanCounts.of_entries([was]), PlanCounts.of_entries([now])
        return PlanCounts.from_values(
            {
                key: getattr(self, key) + getattr(after, key) - getattr(before, key)
                for key in COUNTER_KEYS
            }
        )

    # Derived once, when made: the counters partial reads each of them.
    decided: int = field(init=False)
    percent: int = field(init=False)
    blockers: list[str] = field(init=False)
    ready: bool = field(init=False)

    def __post_init__(self) -> None:
        decided = self.total - self.proposed
        reasons = []
        if self.proposed:
            entries = "entry" if self.proposed == 1 else "entries"
            reasons.append(f"{self.proposed} {entries} still proposed")
        if self.unsettled_anchors:
            anchors = "anchor" if self.unsettled_anchors == 1 else "anchors"
            reasons.append(f"{self.unsettled_anchors} {anchors} to confirm or edit")
        derived = {
            "decided": decided,
            "percent": round(100 * decided / self.total) if self.total else 0,
            "blockers": reasons,
            "ready": self.total > 0 and not reasons,
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)
