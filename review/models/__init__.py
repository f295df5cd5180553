"""What the app keeps. Models stay thin: every computation goes through `grounding`
by way of `review.adapters`.

Everything a person changes carries an optimistic `version`; `review.decisions`
is the one place that bumps it and appends to the decision log.
"""

from review.models.answers import SEARCH_CONFIG, Answer, AnswerReference, AnswerSearchVector
from review.models.cases import Case, CaseFacet, Evidence
from review.models.comments import Comment, CommentQuerySet, CommentRevision, Mention
from review.models.decided import Decided, SecondOpinions, SecondOpinionsQuerySet
from review.models.decisions import AppendOnlyError, Decision, DecisionQuerySet
from review.models.documents import Document
from review.models.entries import (
    COUNTER_KEYS,
    Entry,
    EntryQuerySet,
    PlanCounts,
    count_aggregates,
    counter_column,
    merged_ends,
)
from review.models.guidelines import Guideline, GuidelineQuerySet
from review.models.invitations import Invitation, InvitationQuerySet
from review.models.jobs import Job, JobOutputPart, JobQuerySet
from review.models.leases import ConflictMet, Lease, Presence, ReviewerSettings
from review.models.plans import (
    Blockers,
    PathCollision,
    PathCollisionQuerySet,
    Plan,
    PlanQuerySet,
    review_policy_facts,
)
from review.models.policies import ReviewPolicy
from review.models.projects import DEFAULT_SLUG, InProject, Membership, Project, Roles
from review.models.security import SecurityEvent, SecurityLogError
from review.models.sign_on import ClaimRole, SignOnIdentity
from review.models.tokens import ApiToken, TokenGrant
from review.models.webhooks import WebhookDelivery, WebhookEndpoint, WebhookEvent

__all__ = [
    "DEFAULT_SLUG",
    "Answer",
    "AnswerReference",
    "AnswerSearchVector",
    "ApiToken",
    "AppendOnlyError",
    "Blockers",
    "COUNTER_KEYS",
    "Case",
    "CaseFacet",
    "ClaimRole",
    "Comment",
    "CommentQuerySet",
    "CommentRevision",
    "ConflictMet",
    "Decided",
    "Decision",
    "DecisionQuerySet",
    "Document",
    "Entry",
    "EntryQuerySet",
    "Evidence",
    "Guideline",
    "GuidelineQuerySet",
    "InProject",
    "Invitation",
    "InvitationQuerySet",
    "Job",
    "JobOutputPart",
    "JobQuerySet",
    "Lease",
    "Mention",
    "Membership",
    "PathCollision",
    "PathCollisionQuerySet",
    "Plan",
    "PlanCounts",
    "PlanQuerySet",
    "Project",
    "Presence",
    "ReviewPolicy",
    "ReviewerSettings",
    "Roles",
    "SecurityEvent",
    "SecurityLogError",
    "SignOnIdentity",
    "TokenGrant",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookEvent",
    "SEARCH_CONFIG",
    "SecondOpinions",
    "SecondOpinionsQuerySet",
    "count_aggregates",
    "counter_column",
    "merged_ends",
    "review_policy_facts",
]
