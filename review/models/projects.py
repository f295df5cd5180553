"""Projects: one team's documents, plans, cases, answers, queues and policies, in an
installation that holds many. A person works in a project as a member with roles there."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from review.models.hooks import DecisionHooks
from review.permissions import fixed_projects

# The project today's data moved into (migration 0017), and where an item lands when the door
# that made it names no project.
DEFAULT_SLUG = "default"


class ProjectQuerySet(models.QuerySet):
    def of_member(self, user) -> ProjectQuerySet:
        """The projects `user` works in: staff work in every one; anyone else in those they
        are a member of; nobody signed out in any."""
        if not getattr(user, "is_authenticated", False):
            return self.none()
        if (fixed := fixed_projects(user)) is not None:
            return self.filter(pk__in=fixed)
        if user.is_staff:
            return self.all()
        return self.filter(memberships__user=user)

    def where_role(self, user, role: str) -> ProjectQuerySet:
        """The projects where `user` holds `role` (staff: every one): the twin of
        `review.permissions.has_role`."""
        if not getattr(user, "is_authenticated", False):
            return self.none()
        if (fixed := fixed_projects(user, role)) is not None:
            return self.filter(pk__in=fixed)
        if user.is_staff:
            return self.all()
        return self.filter(memberships__user=user, **{f"memberships__{role}": True})


class Project(DecisionHooks, models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=50, unique=True)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Staff's choice: its pages are only for members who sign in with a second factor.
    require_second_factor = models.BooleanField(default=False)

    objects = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    @property
    def decision_project_id(self) -> int:
        # The making of a project is the first row of its own log.
        return self.pk

    def members_managed_by(self, user) -> bool:
        """Staff manage every project's members; a lead of this project manages its own."""
        # Read afresh, not from the roles a page caches on the person: a lead who has just
        # left the project must no longer be taken for one in the same request.
        if not getattr(user, "is_authenticated", False):
            return False
        return user.is_staff or self.memberships.filter(user=user, lead=True).exists()

    def webhooks_managed_by(self, user) -> bool:
        """Its webhooks are managed by those who manage its members: staff and its leads."""
        return self.members_managed_by(user)


def default_project_id() -> int:
    """The id of the project named "Default", made if missing: what an item belongs to when
    the door that made it names no project."""
    # Only the id is read: the migrations that add a project to items call this on a table
    # that lacks the columns Project has gained since (require_second_factor).
    found = Project.objects.filter(slug=DEFAULT_SLUG).values_list("pk", flat=True).first()
    return found if found is not None else default_project().pk


def default_project() -> Project:
    """The project named "Default", made if missing."""
    return Project.objects.get_or_create(slug=DEFAULT_SLUG, defaults={"name": "Default"})[0]


class Roles(models.Model):
    """What a person may do in one project beyond reading it. A member with none of them is a
    reader. Staff hold every role in every project without a membership."""

    editor = models.BooleanField(default=False)
    moderator = models.BooleanField(default=False)
    curator = models.BooleanField(default=False)
    lead = models.BooleanField(default=False)

    # The roles in the order pages name them, each with its label.
    NAMES = (
        ("lead", "Lead"),
        ("editor", "Editor"),
        ("moderator", "Moderator"),
        ("curator", "Curator"),
    )

    class Meta:
        abstract = True

    @property
    def role_names(self) -> frozenset[str]:
        """The roles held, by name ("reader" for a member with none)."""
        held = frozenset(name for name, _ in self.NAMES if getattr(self, name))
        return held or frozenset({"reader"})

    @property
    def role_label(self) -> str:
        return ", ".join(label for name, label in self.NAMES if getattr(self, name)) or "Reader"


class Membership(DecisionHooks, Roles):
    """A person's place in one project, with the roles they hold there. Its roles change as
    decisions do (`review.actions.projects`): versioned, each change in the project's log."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    version = models.PositiveIntegerField(default=1)

    class Meta:
        ordering = ["project", "user"]
        constraints = [
            models.UniqueConstraint(fields=["project", "user"], name="membership_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.project} ({self.role_label})"


class InProject(models.Model):
    """A row that belongs to one project: what its members see and nobody else does. Every
    door that makes one names its project (there is no default to fall back on)."""

    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="+")

    class Meta:
        abstract = True
