"""What the app keeps. Models stay thin: every computation goes through `grounding`
by way of `review.adapters`.

Everything a person changes carries an optimistic `version`; `review.decisions`
is the one place that bumps it and appends to the decision log.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Count, F, Max, Q, Subquery, Value
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone
from django.utils.functional import cached_property

from grounding.segmentation import shown_number


class Document(models.Model):
    class MediaType(models.TextChoices):
        MARKDOWN = "markdown", "Markdown"
        TEXT = "text", "Plain text"
        PDF = "pdf", "PDF"

    name = models.CharField(max_length=255)
    media_type = models.CharField(max_length=16, choices=MediaType.choices)
    # The original bytes, so an export can always be replayed against what was proposed on.
    data = models.BinaryField()
    sha256 = models.CharField(max_length=64, unique=True)
    text = models.TextField()
    extractor_id = models.CharField(max_length=100)
    extractor_version = models.CharField(max_length=50)
    # A revision is a document of its own (its own bytes, hash and text), so every plan keeps
    # pointing at the exact bytes it was proposed on; it names the revision it follows.
    revision_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="revisions"
    )
    revision = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            # One line of revisions: a revision is followed by at most one next revision.
            models.UniqueConstraint(fields=["revision_of"], name="document_one_next_revision"),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        """The document as every page and message names it: two revisions of one document
        never read the same (the first reads as its name alone)."""
        return f"{self.name} (revision {self.revision})" if self.revision > 1 else self.name

    def latest_revision(self) -> Document:
        """The newest revision in this document's line (the document itself if none follows
        it)."""
        document = self
        while True:
            # Not its bytes nor its text: a caller names it, and reads more only if it must.
            following = Document.objects.defer("data", "text").filter(revision_of=document).first()
            if following is None:
                return document
            document = following


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
        """From a row of `count_aggregates` (or a tally with the same keys)."""
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


@dataclass(frozen=True)
class Blockers:
    """Why a plan cannot be adjudicated yet, said two ways: in counts for its page, entry by
    entry for the doors (commands, API), which have no page to point at."""

    counts: PlanCounts
    undecided: tuple = ()
    unsettled: tuple = ()
    bad_merges: tuple = ()
    frozen: bool = False

    def __bool__(self) -> bool:
        return bool(self.undecided or self.unsettled or self.bad_merges or self.frozen)

    def summary(self) -> list[str]:
        reasons = list(self.counts.blockers)
        reasons += [
            f"“{entry.title}” is merged into an entry that is rejected (or into nothing)"
            for entry in self.bad_merges
        ]
        if self.frozen:
            reasons.append("the plan is already adjudicated")
        return reasons

    def problems(self) -> list[str]:
        """Entry by entry, numbered as the screen numbers them (#1 is the first). A bad merge
        is left out: `grounding.adjudication` refuses it in its own words, being the home of
        what a merge may join."""
        problems = [
            f"entry #{entry.number} ({entry.path!r}) is still undecided" for entry in self.undecided
        ]
        problems += [
            f"entry #{entry.number} ({entry.path!r}): its anchor is {entry.anchor_status} "
            "in the stored text; confirm it or edit the entry"
            for entry in self.unsettled
        ]
        return problems


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


class PlanQuerySet(models.QuerySet):
    def recount(self) -> int:
        """Rebuild these plans' stored counters from their entries in two set-based
        statements (zero, then one grouped aggregate joined in), whatever their number.
        `count_aggregates` stays the one home of what each counter counts."""
        from django.db import connection

        plan_ids = self.order_by().values("pk")
        zeroed = Plan.objects.filter(pk__in=plan_ids).update(
            **{counter_column(key): 0 for key in COUNTER_KEYS}
        )
        grouped = (
            Entry.objects.filter(plan__in=plan_ids)
            .order_by()
            .values("plan_id")
            .annotate(**count_aggregates())
            .values("plan_id", *COUNTER_KEYS)
        )
        sql, params = grouped.query.sql_with_params()
        quote = connection.ops.quote_name
        table = quote(Plan._meta.db_table)
        assignments = ", ".join(
            f"{quote(counter_column(key))} = tally.{quote(key)}" for key in COUNTER_KEYS
        )
        with connection.cursor() as cursor:
            cursor.execute(
                # Names are the models' own and the grouped query's values are bound.
                f"UPDATE {table} SET {assignments} FROM ({sql}) AS tally "  # noqa: S608
                f"WHERE {table}.{quote('id')} = tally.{quote('plan_id')}",
                params,
            )
        return zeroed

    def count_change(self, plan_id: int, delta: dict[str, int]) -> PlanCounts | None:
        """Add `delta` (counter key -> change) to an open plan's stored counters, in the
        decision's transaction, and answer its counters now; None, changing nothing, when
        the plan is not open. One statement: the UPDATE waits for the plan's row and reads
        its status as committed, so it is also the re-check that the plan is still open."""
        from django.db import connection

        quote = connection.ops.quote_name
        changes = [(counter_column(key), change) for key, change in delta.items() if change] or [
            (counter_column("total"), 0)
        ]
        assignments = ", ".join(f"{quote(column)} = {quote(column)} + %s" for column, _ in changes)
        returned = ", ".join(quote(counter_column(key)) for key in COUNTER_KEYS)
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {quote(Plan._meta.db_table)} SET {assignments} "  # noqa: S608
                f"WHERE {quote('id')} = %s AND {quote('status')} = %s RETURNING {returned}",
                [*(change for _, change in changes), plan_id, Plan.Status.OPEN],
            )
            row = cursor.fetchone()
        if row is None:
            return None
        return PlanCounts.from_values(dict(zip(COUNTER_KEYS, row, strict=True)))

    def waiting(self) -> PlanQuerySet:
        """The plans waiting for a person: open (until adjudicated, a plan with every entry
        decided still waits to be signed off), and not an editor's review copy (its plan is
        the item). The plans queue hands these; the dashboard and /progress/ count them."""
        return self.filter(status=Plan.Status.OPEN, review_of__isnull=True)

    def latest_of(self, document: Document) -> Plan | None:
        """The latest plan of `document`, whatever its status; never a review copy, which is
        one editor's review of a plan, not a plan of the document."""
        plans = self.filter(document=document, review_of__isnull=True)
        return plans.order_by("-created_at", "-pk").first()

    def not_superseded(self) -> PlanQuerySet:
        """The plans still standing for their document: what the plans list shows unless
        asked for superseded ones."""
        return self.exclude(status=Plan.Status.SUPERSEDED)

    def with_review_policy(self) -> PlanQuerySet:
        """Each plan annotated with what double review needs to know, in the same query: has
        it review copies, and the plans queue's policy (`actions.plan_reviews`)."""
        return self.annotate(**review_policy_facts())


def review_policy_facts(plan: str = "pk") -> dict:
    """`with_review_policy`'s annotations, for a query that names the plan by `plan` (an
    entry's query names it "plan_id", and so learns its plan's facts in its own query)."""
    policy = ReviewPolicy.objects.filter(queue=ReviewPolicy.Queue.PLANS)
    return {
        "has_review_copies": models.Exists(Plan.objects.filter(review_of=models.OuterRef(plan))),
        **{
            f"policy_{name}": models.Subquery(policy.values(name)[:1])
            for name in ("mode", "share_percent", "seed", "rules")
        },
    }


class EntryQuerySet(models.QuerySet):
    def counts(self) -> PlanCounts:
        """These entries' counts, in one aggregate query."""
        return PlanCounts.from_values(self.aggregate(**count_aggregates()))

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


class Plan(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ADJUDICATED = "adjudicated", "Adjudicated"
        # Its document got a newer revision while it was open: out of every queue, and
        # nothing of it changes any more (`actions.revisions.supersede_plans`).
        SUPERSEDED = "superseded", "Superseded"

    document = models.ForeignKey(Document, on_delete=models.PROTECT, related_name="plans")
    source_sha256 = models.CharField(max_length=64)
    extractor_id = models.CharField(max_length=100)
    extractor_version = models.CharField(max_length=50)
    proposed_by = models.CharField(max_length=200)
    options = models.JSONField(default=dict, blank=True)
    # The proposer's payload exactly as received; never edited.
    original_payload = models.TextField()
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    # Frozen at adjudication: the same bytes export_plan and the download serve.
    adjudicated_payload = models.TextField(blank=True)
    adjudicated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    adjudicated_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=1)
    # The previous revision's plan this one was carried from (see review.actions.revisions).
    carried_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="carried_into"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Double review: one editor's own copy of the plan (`review_of`), which only they decide.
    review_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="review_copies"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # The entries' counts (`PlanCounts`), kept in the transaction of every change of an entry
    # (`decisions.decide`, and `recount` after entries are stored), so that no page counts
    # a plan's entries to show its progress. `manage.py recount` rebuilds them. Signed: a
    # decision moves them before its entry's UPDATE finds out whether it was stale (and then
    # the transaction is undone), so a stale "before" may pass through below zero.
    count_total = models.IntegerField(default=0)
    count_proposed = models.IntegerField(default=0)
    count_accepted = models.IntegerField(default=0)
    count_edited = models.IntegerField(default=0)
    count_merged = models.IntegerField(default=0)
    count_rejected = models.IntegerField(default=0)
    count_unsettled_anchors = models.IntegerField(default=0)
    count_need_you = models.IntegerField(default=0)

    objects = PlanQuerySet.as_manager()

    # What the plans list and the dashboard read of a plan, besides its counters.
    COUNTER_FIELDS = tuple(counter_column(key) for key in COUNTER_KEYS)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            # The plans list's order, all plans and by status (review copies are not listed);
            # read backwards, the plans queue's ("Next": the oldest open plan first).
            models.Index(
                F("created_at").desc(),
                F("id").desc(),
                name="plan_list_order",
                condition=Q(review_of__isnull=True),
            ),
            models.Index(
                "status",
                F("created_at").desc(),
                F("id").desc(),
                name="plan_list_status_order",
                condition=Q(review_of__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"Plan {self.pk} for {self.document}"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def is_review_copy(self) -> bool:
        return self.review_of_id is not None

    @property
    def is_adjudicated(self) -> bool:
        """Frozen by a person's adjudication; for a review copy, its review handed in."""
        return self.status == self.Status.ADJUDICATED

    @property
    def is_superseded(self) -> bool:
        return self.status == self.Status.SUPERSEDED

    def current_plan(self) -> tuple[Document, Plan | None]:
        """What stands for this plan now: its document's latest revision, and the latest plan
        (not a review copy) of that revision (None when it has none)."""
        latest = self.document.latest_revision()
        return latest, Plan.objects.latest_of(latest)

    def superseded_reason(self) -> str:
        """Why nothing of this superseded plan may change, naming the plan to work on instead:
        what every door answers an adjudication or an entry's decision on it with."""
        latest, current = self.current_plan()
        if current is None:
            return (
                f"Plan {self.pk} is superseded: {self.document.label} has a newer revision, "
                f"{latest.label} (document {latest.pk}), which has no plan yet."
            )
        return (
            f"Plan {self.pk} is superseded by plan {current.pk} on {latest.label}: "
            f"decide plan {current.pk} instead."
        )

    def blockers(self, entries) -> Blockers:
        """What stands in the way of adjudicating this plan, given its entries in order."""
        previous = None
        bad_merges = []
        for entry in entries:
            if entry.state == Entry.State.MERGED and (
                previous is None or previous.state == Entry.State.REJECTED
            ):
                bad_merges.append(entry)
            previous = entry
        return Blockers(
            counts=PlanCounts.of_entries(entries),
            undecided=tuple(entry for entry in entries if entry.state == Entry.State.PROPOSED),
            unsettled=tuple(entry for entry in entries if entry.anchor_unsettled),
            bad_merges=tuple(bad_merges),
            frozen=not self.is_open,
        )

    @property
    def counts(self) -> PlanCounts:
        """The entries' counts, as stored on the plan (no query over its entries)."""
        return PlanCounts.from_values(
            {key: getattr(self, counter_column(key)) for key in COUNTER_KEYS}
        )

    def set_counts(self, counts: PlanCounts) -> None:
        """Hold `counts` (just stored) on this object, as if it had been read again."""
        for key in COUNTER_KEYS:
            setattr(self, counter_column(key), getattr(counts, key))

    def review_facts(self) -> dict:
        """What `with_review_policy` annotates, for one plan already loaded: one statement of
        fixed SQL, since building the annotations' subqueries costs an entry's decision more
        than running them (names are the models' own; the plan's id is bound)."""
        from django.db import connection

        quote = connection.ops.quote_name
        plans, policies = quote(Plan._meta.db_table), quote(ReviewPolicy._meta.db_table)
        columns = ("mode", "share_percent", "seed", "rules")
        sql = (
            f"SELECT EXISTS(SELECT 1 FROM {plans} WHERE {quote('review_of_id')} = %s), "  # noqa: S608
            + ", ".join(f"policy.{quote(name)}" for name in columns)
            + f" FROM (SELECT 1 AS one) AS one LEFT JOIN {policies} AS policy"
            f" ON policy.{quote('queue')} = %s"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [self.pk, ReviewPolicy.Queue.PLANS])
            row = cursor.fetchone()
        facts = dict(
            zip(("has_review_copies", *(f"policy_{name}" for name in columns)), row, strict=True)
        )
        facts["has_review_copies"] = bool(facts["has_review_copies"])
        return facts

    @cached_property
    def document_text(self) -> str:
        """The document's text, without loading its original bytes."""
        if Plan.document.is_cached(self):
            return self.document.text
        return Document.objects.values_list("text", flat=True).get(pk=self.document_id)

    @cached_property
    def pages_joined(self) -> bool:
        """The text is a PDF's pages joined by blank lines (`grounding.paragraphs` reads its
        paragraphs accordingly)."""
        if Plan.document.is_cached(self):
            media_type = self.document.media_type
        else:
            media_type = Document.objects.values_list("media_type", flat=True).get(
                pk=self.document_id
            )
        return media_type == Document.MediaType.PDF


class Decided(models.Model):
    """What a person decides on: who decided last, when, their note, and the optimistic
    version that `review.decisions.decide` checks and bumps."""

    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)
    version = models.PositiveIntegerField(default=1)

    class Meta:
        abstract = True


# --- Second opinions (double review): on cases and answers ---------------------------------


class SecondOpinions(models.Model):
    """The two opinions of a double review, kept on the item so that each is one versioned
    decision (and undo puts it back). The item's own verdict or state stays undecided until
    they agree, or a curator settles their disagreement."""

    first_opinion = models.CharField(max_length=16, blank=True)
    first_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    first_note = models.TextField(blank=True)
    second_opinion = models.CharField(max_length=16, blank=True)
    second_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    second_note = models.TextField(blank=True)

    class Meta:
        abstract = True

    # The stages of a double review, as `review_stage` names them.
    SINGLE = "single"
    AWAITING_SECOND = "awaiting_second"
    IN_CURATION = "in_curation"
    AGREED = "agreed"
    CURATED = "curated"

    @property
    def review_stage(self) -> str:
        if not self.first_opinion:
            return self.SINGLE
        if not self.second_opinion:
            return self.AWAITING_SECOND
        if self.first_opinion == self.second_opinion:
            return self.AGREED
        return self.IN_CURATION if self.outcome == self.UNDECIDED else self.CURATED

    def hides_first_opinion_from(self, user) -> bool:
        """Blind review: until the second opinion is in, only its author sees the first."""
        return self.review_stage == self.AWAITING_SECOND and self.first_by_id != user.pk

    @classmethod
    def awaiting_second_q(cls) -> Q:
        return ~Q(first_opinion="") & Q(second_opinion="")

    @classmethod
    def in_curation_q(cls) -> Q:
        return (
            ~Q(first_opinion="")
            & ~Q(second_opinion="")
            & ~Q(first_opinion=models.F("second_opinion"))
            & Q(**{cls.OUTCOME_FIELD: cls.UNDECIDED})
        )


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

    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="entries")
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

    @property
    def tally(self) -> dict[str, int]:
        """What this entry adds to its plan's stored counters (`COUNTER_KEYS`)."""
        tally = dict.fromkeys(COUNTER_KEYS, 0)
        tally["total"] = 1
        tally[self.state] = 1
        tally["unsettled_anchors"] = int(self.anchor_unsettled)
        tally["need_you"] = int(self.needs_a_person)
        return tally

    @property
    def is_live(self) -> bool:
        """Counts towards path collisions (`PathCollision`): a rejected entry leaves its plan."""
        return self.state != self.State.REJECTED

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


class PathCollisionQuerySet(models.QuerySet):
    def refresh(self, paths: Iterable[str] | None = None) -> None:
        """Record afresh which documents collide on `paths` (every path when None): the one
        rule of what a collision is. Called in the transaction of whatever changes it: a plan
        stored, an entry rejected or un-rejected or given another path, a document superseded
        by a revision. Entries of more than one document using a path (rejected entries
        aside) collide: exported side by side, one would overwrite the other. Only a
        document's latest revision counts: its revisions share their paths by design."""
        live = Entry.objects.exclude(state=Entry.State.REJECTED).filter(
            plan__document__revisions__isnull=True
        )
        recorded = PathCollision.objects.all()
        if paths is not None:
            paths = sorted(set(paths))
            if not paths:
                return
            live = live.filter(path__in=paths)
            recorded = recorded.filter(path__in=paths)
        shared = (
            live.order_by()
            .values("path")
            .annotate(documents=Count("plan__document", distinct=True))
            .filter(documents__gt=1)
            .values("path")
        )
        pairs = (
            live.filter(path__in=shared).order_by().values_list("path", "plan__document").distinct()
        )
        recorded.delete()
        PathCollision.objects.bulk_create(
            (PathCollision(path=path, document_id=document) for path, document in pairs.iterator()),
            batch_size=2000,
        )


class PathCollision(models.Model):
    """One document of a path that entries of several documents use, as recorded by
    `PathCollision.objects.refresh` when entries change, so the plans list never groups every
    entry to find them."""

    path = models.CharField(max_length=500)
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")

    objects = PathCollisionQuerySet.as_manager()

    class Meta:
        ordering = ["path", "document"]
        constraints = [
            models.UniqueConstraint(fields=["path", "document"], name="path_collision_once"),
        ]

    def __str__(self) -> str:
        return f"{self.path} in document {self.document_id}"


class Case(SecondOpinions, Decided):
    class Verdict(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        UPHELD = "upheld", "Upheld"
        OVERTURNED = "overturned", "Overturned"
        NEEDS_REWRITE = "needs_rewrite", "Needs rewrite"

    case_id = models.CharField(max_length=100, unique=True)
    content_text = models.TextField()
    author = models.CharField(max_length=200, blank=True)
    community = models.CharField(max_length=200, blank=True)
    report_reason = models.CharField(max_length=200, blank=True)
    rationale_text = models.TextField()
    # None when the rationale declared no list; the validator then skips that check.
    declared_ids = models.JSONField(null=True, blank=True)
    recommended_action = models.CharField(max_length=100, blank=True)
    model = models.CharField(max_length=200, blank=True)
    # grounding.evidence.RationaleReport.to_dict(), computed once at import.
    report = models.JSONField(default=dict)
    flagged = models.BooleanField(default=False)
    validator_reason = models.CharField(max_length=64, blank=True)
    # The import line as received, for idempotent re-imports.
    source_sha256 = models.CharField(max_length=64)
    verdict = models.CharField(max_length=16, choices=Verdict.choices, default=Verdict.PROPOSED)
    created_at = models.DateTimeField(auto_now_add=True)

    # The queue's order (its list's, and the one "Next" hands cases out in): flagged first,
    # then the oldest, the id breaking ties.
    QUEUE_ORDER = ("-flagged", "created_at", "pk")

    class Meta:
        ordering = ["-flagged", "created_at", "pk"]
        # The queue's order, alone and under each filter, so that a page (and "Next", which
        # takes from the proposed ones) is a walk along an index, not a sort of every case.
        indexes = [
            models.Index(fields=["-flagged", "created_at", "id"], name="case_queue"),
            models.Index(
                fields=["validator_reason", "-flagged", "created_at", "id"],
                name="case_queue_by_reason",
            ),
            models.Index(
                fields=["verdict", "-flagged", "created_at", "id"], name="case_queue_by_verdict"
            ),
            # "Next"'s two small stages of double review (`actions.reviews.review_stages`).
            models.Index(
                fields=["-flagged", "created_at", "id"],
                name="case_awaiting_second",
                condition=~Q(first_opinion="") & Q(second_opinion=""),
            ),
            models.Index(
                fields=["-flagged", "created_at", "id"],
                name="case_both_opinions",
                condition=~Q(first_opinion="") & ~Q(second_opinion="") & Q(verdict="proposed"),
            ),
        ]

    # What a double review decides, and its value before anyone has (`SecondOpinions`).
    OUTCOME_FIELD = "verdict"
    UNDECIDED = Verdict.PROPOSED

    def __str__(self) -> str:
        return self.case_id

    @property
    def outcome(self) -> str:
        return self.verdict

    @property
    def external_id(self) -> str:
        return self.case_id


class CaseFacet(models.Model):
    """The cases queue's counts: cases per validator reason ("reason"), evidence items per
    tool ("tool"). Kept by the database's triggers (`review.facet_triggers`) in the same
    transaction as whatever wrote the rows; never written by the app."""

    class Kind(models.TextChoices):
        REASON = "reason", "Validator reason"
        TOOL = "tool", "Evidence tool"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    value = models.CharField(max_length=100, blank=True)
    count = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["kind", "value"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "value"], name="case_facet_once"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.value!r}: {self.count}"


class Evidence(models.Model):
    class Status(models.TextChoices):
        SUCCESS = "success", "Success"
        FAILURE = "failure", "Failure"
        TIMEOUT = "timeout", "Timeout"
        SKIPPED = "skipped", "Skipped"

    case = models.ForeignKey(Case, on_delete=models.CASCADE, related_name="evidence")
    position = models.PositiveIntegerField()
    ev_id = models.CharField(max_length=20)
    tool = models.CharField(max_length=100, db_index=True)
    status = models.CharField(max_length=16, choices=Status.choices, db_index=True)
    summary = models.TextField(blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["case", "position"]
        constraints = [
            models.UniqueConstraint(fields=["case", "ev_id"], name="evidence_id_unique"),
        ]
        verbose_name_plural = "evidence"

    def __str__(self) -> str:
        return f"{self.case} {self.ev_id}"


SEARCH_CONFIG = "english"


class AnswerSearchVector(SearchVector):
    """What answer search matches: the question and the body, stemmed (PostgreSQL). SQLite has
    no text search vectors; its column stays empty and its search reads the text itself."""

    def __init__(self):
        super().__init__("question", "body", config=SEARCH_CONFIG)

    def as_sqlite(self, compiler, connection, **extra_context):
        return "NULL", []


class Answer(SecondOpinions, Decided):
    class State(models.TextChoices):
        PROPOSED = "proposed", "Proposed"
        PUBLISHED = "published", "Published"
        WITHDRAWN = "withdrawn", "Withdrawn"

    answer_id = models.CharField(max_length=100, unique=True)
    question = models.TextField()
    raw_text = models.TextField()
    body = models.TextField()
    model = models.CharField(max_length=200, blank=True)
    sources = models.JSONField(default=list)
    # grounding.citations.Finalization.to_dict(): every change finalization made.
    changes = models.JSONField(default=dict)
    changed = models.BooleanField(default=False)
    # Which kinds of change finalization made (grounding.citations.CHANGE_KINDS), kept as
    # columns so the insights count them in the database.
    change_renumbered = models.BooleanField(default=False)
    change_dropped = models.BooleanField(default=False)
    change_rewritten = models.BooleanField(default=False)
    change_backfilled = models.BooleanField(default=False)
    change_replaced = models.BooleanField(default=False)
    source_sha256 = models.CharField(max_length=64)
    state = models.CharField(max_length=16, choices=State.choices, default=State.PROPOSED)
    created_at = models.DateTimeField(auto_now_add=True)
    # Computed by the database from the question and the body whenever either is written, so
    # a bulk insert needs nothing else; searched through its GIN index (migration 0009).
    search = models.GeneratedField(
        expression=AnswerSearchVector(), output_field=SearchVectorField(), db_persist=True
    )

    class Meta:
        # Newest first; the id breaks ties the same way, so one index serves either direction.
        ordering = ["-created_at", "-pk"]
        # Each index has the list's order (read backwards) and the answers queue's ("Next":
        # the oldest proposed first, read forwards), alone and under each filter.
        indexes = [
            models.Index(fields=["created_at", "id"], name="answer_list"),
            models.Index(fields=["state", "created_at", "id"], name="answer_list_by_state"),
            models.Index(fields=["changed", "created_at", "id"], name="answer_list_by_changed"),
            # "Next"'s two small stages of double review (`actions.reviews.review_stages`).
            models.Index(
                fields=["created_at", "id"],
                name="answer_awaiting_second",
                condition=~Q(first_opinion="") & Q(second_opinion=""),
            ),
            models.Index(
                fields=["created_at", "id"],
                name="answer_both_opinions",
                condition=~Q(first_opinion="") & ~Q(second_opinion="") & Q(state="proposed"),
            ),
        ]

    OUTCOME_FIELD = "state"
    UNDECIDED = State.PROPOSED

    def __str__(self) -> str:
        return self.answer_id

    @property
    def outcome(self) -> str:
        return self.state

    @property
    def external_id(self) -> str:
        return self.answer_id


class AnswerReference(models.Model):
    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="references")
    number = models.PositiveIntegerField()
    original_number = models.PositiveIntegerField()
    title = models.TextField()
    authors = models.JSONField(default=list, blank=True)
    year = models.IntegerField(null=True, blank=True)
    url = models.TextField(blank=True)
    venue = models.TextField(blank=True)
    doi = models.CharField(max_length=200, blank=True)
    snippet = models.TextField(blank=True)

    class Meta:
        ordering = ["answer", "number"]
        constraints = [
            models.UniqueConstraint(fields=["answer", "number"], name="reference_number_unique"),
        ]

    def __str__(self) -> str:
        return f"[{self.number}] {self.title}"


class DecisionQuerySet(models.QuerySet):
    """The log is append-only; bulk changes are refused before they reach the database."""

    def update(self, **kwargs):
        raise AppendOnlyError("the decision log is append-only: rows are never updated")

    def delete(self):
        raise AppendOnlyError("the decision log is append-only: rows are never deleted")

    def blind_to(self, reader) -> DecisionQuerySet:
        """Each row annotated `withheld`: whether it belongs to a double review that `reader`
        may not see yet, by the pages' rules (`SecondOpinions.hides_first_opinion_from`,
        `views.plan_reviews.may_see_copy`). Withheld: the rows on a case or answer whose second
        opinion is awaited, except the reader's own; the rows on a review copy and its entries
        while its plan is open, except to its reviewer, and to curators once both copies are
        in. `reader` None (a command, read by no one in particular) sees none of them."""
        from review.permissions import can_curate

        as_key = Cast("pk", output_field=models.CharField())
        withheld = Q(pk__in=[])
        for model in (Case, Answer):
            pending = model.objects.filter(model.awaiting_second_q()).annotate(key=as_key)
            withheld |= Q(object_type=model._meta.model_name, object_id__in=pending.values("key"))
        if reader is not None:
            withheld &= ~Q(actor=reader)
        copies = Plan.objects.filter(review_of__isnull=False, review_of__status=Plan.Status.OPEN)
        if reader is not None:
            copies = copies.exclude(reviewer=reader)
            if can_curate(reader):
                submitted = Count("review_copies", filter=Q(review_copies__status="adjudicated"))
                both_in = Plan.objects.annotate(n=submitted).filter(n=2).values("pk")
                copies = copies.exclude(review_of__in=both_in)
        copy_entries = Entry.objects.filter(plan__in=copies.values("pk")).annotate(key=as_key)
        withheld |= Q(object_type="plan", object_id__in=copies.annotate(key=as_key).values("key"))
        withheld |= Q(object_type="entry", object_id__in=copy_entries.values("key"))
        return self.annotate(
            withheld=models.Case(
                models.When(withheld, then=models.Value(True)),
                default=models.Value(False),
                output_field=models.BooleanField(),
            )
        )


class AppendOnlyError(Exception):
    pass


class Decision(models.Model):
    """One row per decision on a plan, entry, case or answer. Never updated or deleted:
    the ORM refuses here, and database triggers (migration 0002) refuse underneath it."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    # A snapshot, so the log still says who even if the account is renamed.
    actor_name = models.CharField(max_length=150)
    action = models.CharField(max_length=50, db_index=True)
    object_type = models.CharField(max_length=20)
    object_id = models.CharField(max_length=50)
    before = models.JSONField(default=dict)
    after = models.JSONField(default=dict)
    note = models.TextField(blank=True)
    undoes = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="undone_by"
    )
    at = models.DateTimeField(default=timezone.now, db_index=True)

    objects = DecisionQuerySet.as_manager()

    class Meta:
        ordering = ["at", "pk"]
        indexes = [
            models.Index(fields=["object_type", "object_id", "at"]),
            # One person's decisions over a window (the dashboard's own figures, progress).
            models.Index(fields=["actor", "at"], name="decision_by_actor"),
        ]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.object_type}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnlyError("the decision log is append-only: rows are never updated")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("the decision log is append-only: rows are never deleted")

    # "Accept all proposed of a rule" logs one entry.accept per entry, each with this note: it
    # names the batch one undo takes back, and tells the rule's record that nobody looked.
    RULE_BATCH_NOTE = "accepted with all of {rule} (batch {batch})"
    RULE_BATCH = r"accepted with all of .+ \(batch ([0-9a-f]{10})\)"

    @property
    def rule_batch(self) -> str:
        """The "accept all of a rule" batch this accept belongs to ("" for any other)."""
        match = re.fullmatch(self.RULE_BATCH, self.note)
        return match.group(1) if match and self.action == "entry.accept" else ""

    @classmethod
    def rule_batch_q(cls, prefix: str = "") -> Q:
        """Decisions with a `rule_batch`, as a filter (a test holds the two to one answer)."""
        return Q(
            **{
                f"{prefix}action": "entry.accept",
                f"{prefix}note__regex": rf"^{cls.RULE_BATCH}$",
            }
        )


class ApiToken(models.Model):
    """A bearer token for the JSON API. Only its SHA-256 is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=100)
    key_sha256 = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.user})"


class Lease(models.Model):
    """One reviewer's hold on one item of a queue, so "Next" hands nobody else the same item.

    A lease steers; it guards nothing: a decision is still checked against the item's version.
    It ends when released, when its holder decides, or when its page stops renewing it.
    """

    class Queue(models.TextChoices):
        PLANS = "plans", "Plans"
        CASES = "cases", "Cases"
        ANSWERS = "answers", "Answers"

    queue = models.CharField(max_length=16, choices=Queue.choices)
    item_id = models.PositiveBigIntegerField()
    holder = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="leases"
    )
    taken_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["queue", "item_id"]
        constraints = [
            # The database's own word that one item has one holder, whatever the race.
            models.UniqueConstraint(fields=["queue", "item_id"], name="lease_one_holder"),
        ]

    def __str__(self) -> str:
        return f"{self.queue} {self.item_id} held by {self.holder_id}"

    @property
    def is_live(self) -> bool:
        return self.expires_at > timezone.now()


class Presence(models.Model):
    """Who has an item's page open, as of their page's last poll ("Also here: editor2")."""

    queue = models.CharField(max_length=16, choices=Lease.Queue.choices)
    item_id = models.PositiveBigIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["queue", "item_id", "user"], name="presence_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.queue} {self.item_id}"


class ReviewerSettings(models.Model):
    """What a reviewer chose for themselves."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_settings"
    )
    # After a verdict or an adjudication, stay on the item instead of opening the next one.
    stay_after_deciding = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "reviewer settings"

    def __str__(self) -> str:
        return f"settings of {self.user_id}"


class ConflictMet(models.Model):
    """A decision refused because someone else decided first (the 409), for the progress
    page: a reviewer who meets many is working where others are."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    object_type = models.CharField(max_length=20)
    object_id = models.CharField(max_length=50)
    at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return f"{self.user_id} met a conflict on {self.object_type} {self.object_id}"


class JobQuerySet(models.QuerySet):
    def unheard_since(self, moment) -> JobQuerySet:
        """The twin of `Job.unheard_since`: running jobs nothing was heard from since `moment`."""
        return self.filter(status=Job.Status.RUNNING).filter(
            Q(heartbeat_at__lt=moment) | Q(heartbeat_at__isnull=True, started_at__lt=moment)
        )


class Job(models.Model):
    """Long work run by the task worker: proposing a large document, importing a large
    JSON-lines file, exporting the whole decision log. The input is kept, so a failed job
    can be retried with exactly what was sent."""

    class Kind(models.TextChoices):
        PROPOSE = "propose", "Propose a plan"
        IMPORT_CASES = "import_cases", "Import cases"
        IMPORT_ANSWERS = "import_answers", "Import answers"
        EXPORT_DECISIONS = "export_decisions", "Export the decision log"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    # What `progress` counts, for each kind.
    UNITS = {
        Kind.PROPOSE: "pages extracted",
        Kind.IMPORT_CASES: "lines read",
        Kind.IMPORT_ANSWERS: "lines read",
        Kind.EXPORT_DECISIONS: "decisions exported",
    }

    kind = models.CharField(max_length=32, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveIntegerField(default=0)
    # 0 while the total is not known yet.
    total = models.PositiveIntegerField(default=0)
    input_name = models.CharField(max_length=255, blank=True)
    input_data = models.BinaryField(default=b"")
    options = models.JSONField(default=dict)
    # What came of it: {"plan": id}, an import's counts and rejected lines, an export's size.
    result = models.JSONField(default=dict)
    # An export's file, downloaded from the job's page.
    output = models.BinaryField(default=b"")
    error = models.TextField(blank=True)
    problems = models.JSONField(default=list)
    attempts = models.PositiveIntegerField(default=0)
    task_id = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # When the worker last said it is at this job (it starts it, or writes its progress).
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = JobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} (job {self.pk})"

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.SUCCEEDED, self.Status.FAILED)

    @property
    def can_retry(self) -> bool:
        return self.status == self.Status.FAILED

    def unheard_since(self, moment) -> bool:
        """Whether the job runs but its worker has said nothing since `moment` (the queryset
        twin: `Job.objects.unheard_since`)."""
        heard = self.heartbeat_at or self.started_at
        return self.status == self.Status.RUNNING and heard is not None and heard < moment

    @property
    def unit(self) -> str:
        return self.UNITS[self.kind]

    @property
    def percent(self) -> int | None:
        if not self.total:
            return None
        return min(100, self.progress * 100 // self.total)

    def visible_to(self, user) -> bool:
        """A job's input and result are its starter's (staff see every job)."""
        return user.is_staff or user.pk == self.created_by_id

    def output_chunks(self) -> Iterator[bytes]:
        """The job's file a part at a time (see `JobOutputPart`), one query per part; a job
        finished before parts existed has it whole in `output`."""
        numbers = list(self.output_parts.order_by("number").values_list("pk", flat=True))
        if not numbers:
            yield bytes(self.output)
        for pk in numbers:
            yield bytes(JobOutputPart.objects.values_list("data", flat=True).get(pk=pk))


class JobOutputPart(models.Model):
    """One piece of a job's file (the whole decision log, exported): kept in pieces, so that
    neither writing the export nor downloading it holds the whole log in memory."""

    # About a mebibyte each: few rows for a large log, little memory for any one of them.
    SIZE = 1 << 20

    job = models.ForeignKey(Job, on_delete=models.CASCADE, related_name="output_parts")
    number = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        ordering = ["job", "number"]
        constraints = [
            models.UniqueConstraint(fields=["job", "number"], name="job_output_part_once"),
        ]

    def __str__(self) -> str:
        return f"part {self.number} of job {self.job_id}"

    @classmethod
    def write(cls, job: Job, lines: Iterable[str]) -> int:
        """Keep `lines` as the job's file, in parts (replacing any it had); its size."""
        cls.objects.filter(job=job).delete()
        size, number, buffer = 0, 0, bytearray()
        for line in lines:
            buffer += line.encode("utf-8")
            if len(buffer) >= cls.SIZE:
                cls.objects.create(job=job, number=number, data=bytes(buffer))
                size, number, buffer = size + len(buffer), number + 1, bytearray()
        if buffer or not number:
            cls.objects.create(job=job, number=number, data=bytes(buffer))
        return size + len(buffer)


# --- Second opinions (double review) ---------------------------------------------------------


class ReviewPolicy(Decided):
    """How one queue is reviewed: by one person (today's default), or by two for a drawn share
    of its items and always for items that match a condition. Changed only through
    `review.actions.reviews.set_policy`, so every change is logged."""

    class Queue(models.TextChoices):
        PLANS = "plans", "Plans"
        CASES = "cases", "Cases"
        ANSWERS = "answers", "Answers"

    class Mode(models.TextChoices):
        SINGLE = "single", "Single review"
        DOUBLE = "double", "Double review"

    queue = models.CharField(max_length=16, choices=Queue.choices, unique=True)
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.SINGLE)
    share_percent = models.PositiveSmallIntegerField(default=0)
    seed = models.CharField(max_length=64, blank=True)
    # Always double-reviewed, whatever the draw: cases of these validator reasons ("" for a
    # rationale that passed), plan entries of these proposer rules.
    reasons = models.JSONField(default=list, blank=True)
    rules = models.JSONField(default=list, blank=True)
    # A first opinion against the machine (a case overturned, an answer withdrawn) is checked.
    on_overturn = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "review policies"

    def __str__(self) -> str:
        return f"{self.get_queue_display()}: {self.get_mode_display().lower()}"

    @property
    def is_double(self) -> bool:
        return self.mode == self.Mode.DOUBLE
