"""Plans: a proposer's entries for one document, reviewed and adjudicated; what stands in
adjudication's way; the paths entries of several documents share."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db import models
from django.db.models import Count, F, Q
from django.utils.functional import cached_property

from grounding.review_policy import drawn_for_second_opinion
from review.models.decided import DecisionHooks
from review.models.documents import Document
from review.models.entries import COUNTER_KEYS, Entry, PlanCounts, counter_column
from review.models.policies import ReviewPolicy
from review.models.projects import InProject, Project
from review.permissions import can_curate, can_decide_plans, is_member
from review.refusals import FROZEN, ActionRefused


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


class PlanQuerySet(models.QuerySet):
    def recount(self) -> int:
        """Rebuild these plans' stored counters from their entries in two set-based
        statements (zero, then the entries' tallies joined in), whatever their number: a
        repair, the triggers keeping them otherwise (`review.counter_triggers`)."""
        from django.db import connections

        connection = connections[self.db]
        plan_ids = self.order_by().values("pk")
        zeroed = (
            Plan.objects.using(self.db)
            .filter(pk__in=plan_ids)
            .update(**{counter_column(key): 0 for key in COUNTER_KEYS})
        )
        tallies = Entry.objects.using(self.db).filter(plan__in=plan_ids).tallies()
        sql, params = tallies.query.get_compiler(connection=connection).as_sql()
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

    def hold_open(self, plan_id: int) -> PlanCounts | None:
        """Lock an open plan's row for a change of its entries, in the caller's transaction,
        before the entries' rows (whose triggers move its counters), and answer its counters
        as held; None, locking nothing, when the plan is not open. The lock waits for the
        plan's row and reads its status as committed, so it is also the re-check that the
        plan is still open. Fixed SQL: building the queryset cost an Accept more than running
        it (`bench_plan_views`)."""
        from django.db import connection

        quote = connection.ops.quote_name
        columns = ", ".join(quote(column) for column in Plan.COUNTER_FIELDS)
        sql = (
            f"SELECT {columns} FROM {quote(Plan._meta.db_table)} "  # noqa: S608
            f"WHERE {quote('id')} = %s AND {quote('status')} = %s"
        )
        if connection.features.has_select_for_no_key_update:
            sql += " FOR NO KEY UPDATE"
        with connection.cursor() as cursor:
            cursor.execute(sql, [plan_id, Plan.Status.OPEN])
            row = cursor.fetchone()
        return (
            None
            if row is None
            else PlanCounts.from_values(dict(zip(COUNTER_KEYS, row, strict=True)))
        )

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

    def in_projects_of(self, user) -> PlanQuerySet:
        """The plans of the projects `user` works in (`user` None, a command's operator,
        works in every one)."""
        if user is None:
            return self.all()
        return self.filter(project__in=Project.objects.of_member(user))

    def visible_to(self, user) -> PlanQuerySet:
        """The plans `user` may see: the twin of `Plan.visible_to` (a test holds the two to
        the same answer). Every plan of their projects; a review copy to its reviewer, and to
        its project's curators and staff once both copies are in. `user` None (a command's
        operator) reads as staff."""
        seen = Q(review_of__isnull=True)
        if user is not None and user.pk is not None:
            seen |= Q(reviewer=user.pk)
        # The plans both of whose copies are in, grouped by the copies' one column.
        handed_in = Plan.objects.filter(review_of__isnull=False, status=Plan.Status.ADJUDICATED)
        if user is not None and not user.is_staff:
            handed_in = handed_in.filter(project__in=Project.objects.where_role(user, "curator"))
        both_in = handed_in.order_by().values("review_of").annotate(n=Count("pk")).filter(n=2)
        seen |= Q(review_of__in=both_in.values("review_of"))
        return self.in_projects_of(user).filter(seen)

    def blind_to(self, reader) -> PlanQuerySet:
        """The review copies whose log rows `reader` may not read yet: those of an open plan
        that `visible_to` keeps from them (the twin of `Plan.blind_to`; a test holds the two
        to the same answer), read by `Decision.objects.blind_to`. `reader` None (a command)
        reads none of them."""
        copies = self.filter(review_of__isnull=False, review_of__status=Plan.Status.OPEN)
        if reader is None:
            return copies
        return copies.exclude(pk__in=Plan.objects.visible_to(reader).values("pk"))

    def with_review_policy(self) -> PlanQuerySet:
        """Each plan annotated with what double review needs to know, in the same query: has
        it review copies, and the plans queue's policy (`actions.plan_reviews`)."""
        return self.annotate(**review_policy_facts())


def review_policy_facts(plan: str = "pk") -> dict:
    """`with_review_policy`'s annotations, for a query that names the plan by `plan` (an
    entry's query names it "plan_id", and so learns its plan's facts in its own query). The
    policy is the one of the plan's project."""
    project = "project" if plan == "pk" else f"{plan.removesuffix('_id')}__project"
    policy = ReviewPolicy.objects.filter(
        queue=ReviewPolicy.Queue.PLANS, project=models.OuterRef(project)
    )
    return {
        "has_review_copies": models.Exists(Plan.objects.filter(review_of=models.OuterRef(plan))),
        **{
            f"policy_{name}": models.Subquery(policy.values(name)[:1])
            for name in ("mode", "share_percent", "seed", "rules")
        },
    }


class Plan(DecisionHooks, InProject):
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
    # The entries' counts (`PlanCounts`), kept by the database's triggers in the transaction
    # of every insert, update or delete of an entry, whichever door wrote it
    # (`review.counter_triggers`), so that no page counts a plan's entries to show its
    # progress. `manage.py recount` rebuilds them, as a repair.
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
            # The project first: a list or Next walks one project's plans along the index.
            models.Index(
                "project",
                F("created_at").desc(),
                F("id").desc(),
                name="plan_list_order",
                condition=Q(review_of__isnull=True),
            ),
            models.Index(
                "project",
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

    # --- who may see and decide it, under double review -------------------------------------

    def is_double_reviewed(self, entries=None) -> bool:
        """Whether two editors review this plan: once a copy exists, always; otherwise as its
        queue's policy says (a drawn share of plans, or any entry of a listed rule). Read from
        the annotations of `Plan.objects.with_review_policy()` when the plan came that way (the
        plan page counts its queries), else in one query (`review_facts`); `entries`, when
        loaded already, spares reading the rules."""
        if self.is_review_copy:
            return False
        facts = self.__dict__ if "policy_mode" in self.__dict__ else self.review_facts()
        if facts.get("has_review_copies"):
            return True
        if facts.get("policy_mode") != ReviewPolicy.Mode.DOUBLE or not self.is_open:
            return False
        listed = facts["policy_rules"] or []
        if isinstance(listed, str):  # a JSON column read through a subquery may come back as text
            listed = json.loads(listed)
        if listed:
            entries = self.entries.only("rules") if entries is None else entries
            if any(rule in listed for entry in entries for rule in entry.rules or []):
                return True
        return drawn_for_second_opinion(
            f"plan-{self.pk}",
            seed=facts["policy_seed"] or "",
            percent=facts["policy_share_percent"] or 0,
        )

    @property
    def in_curation(self) -> bool:
        """Both copies are in and the plan is still open: a curator settles it."""
        return self.is_open and not self.is_review_copy and self.both_reviews_in

    @property
    def both_reviews_in(self) -> bool:
        """Both editors handed in their copy of this plan (one query)."""
        return self.review_copies.filter(status=Plan.Status.ADJUDICATED).count() == 2

    def visible_to(self, user) -> bool:
        """The members of its project see a plan (nobody else may tell it exists); a review
        copy only its reviewer, and curators and staff once both copies are in (each editor
        sees only their own review). `user` None (a command's operator) reads as staff would.
        `Plan.objects.visible_to` is the twin."""
        if not is_member(user, self.project_id):
            return False
        if not self.is_review_copy or (user is not None and self.reviewer_id == user.pk):
            return True
        curates = user is None or can_curate(user, self.project_id)
        return curates and self.review_of.both_reviews_in

    def blind_to(self, reader) -> bool:
        """Whether `reader` may not read this plan's rows of the decision log yet: a review
        copy they may not see, while its plan is open (`Plan.objects.blind_to` is the twin)."""
        if not self.is_review_copy or self.review_of.status != Plan.Status.OPEN:
            return False
        return reader is None or not self.visible_to(reader)

    def decide_refusal(self, user) -> str:
        """Why `user` may not decide this plan or its entries ("" when they may): editors
        decide plans; a review copy only its reviewer; a double-reviewed plan only in copies."""
        if not can_decide_plans(user, self.project_id):
            return "Only editors decide plans."
        if self.is_review_copy and self.reviewer_id != user.pk:
            return "Only its reviewer decides a review copy."
        if self.is_double_reviewed():
            return "This plan is double-reviewed: decide it in your own copy."
        return ""

    def decidable_by(self, user) -> bool:
        return not self.decide_refusal(user)

    def current_plan(self) -> tuple[Document, Plan | None]:
        """What stands for this plan now: its document's latest revision, and the latest plan
        (not a review copy) of that revision (None when it has none)."""
        latest = self.document.latest_revision()
        return latest, Plan.objects.latest_of(latest)

    def refuse_unless_open(self) -> None:
        """Refuse (ActionRefused) any change to a plan that is no longer open, saying why:
        adjudicated (frozen), or superseded by a newer revision (naming the plan to decide
        instead)."""
        if self.is_superseded:
            raise ActionRefused(self.superseded_reason())
        if not self.is_open:
            raise ActionRefused(FROZEN)

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
        """Hold `counts` (just read) on this object, as if it had been read again."""
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
            f" ON policy.{quote('queue')} = %s AND policy.{quote('project_id')} = %s"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [self.pk, ReviewPolicy.Queue.PLANS, self.project_id])
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


class PathCollisionQuerySet(models.QuerySet):
    def refresh(self, paths: Iterable[str] | None = None) -> None:
        """Record afresh which documents collide on `paths` (every path when None): the one
        rule of what a collision is. Called in the transaction of whatever changes it: a plan
        stored, an entry rejected or un-rejected or given another path, a document superseded
        by a revision. Entries of more than one document using a path (rejected entries
        aside) collide: exported side by side, one would overwrite the other. Only a
        document's latest revision counts: its revisions share their paths by design. Only
        documents of one project collide: another project's paths are none of its business."""
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
        shared = set(
            live.order_by()
            .values("plan__project", "path")
            .annotate(documents=Count("plan__document", distinct=True))
            .filter(documents__gt=1)
            .values_list("plan__project", "path")
        )
        pairs = (
            live.filter(path__in={path for _, path in shared})
            .order_by()
            .values_list("plan__project", "path", "plan__document")
            .distinct()
        )
        recorded.delete()
        PathCollision.objects.bulk_create(
            (
                PathCollision(project_id=project, path=path, document_id=document)
                for project, path, document in pairs.iterator()
                if (project, path) in shared
            ),
            batch_size=2000,
        )


class PathCollision(InProject):
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
