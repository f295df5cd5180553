"""A project's guidelines: Markdown, versioned. Each edit adds a row with the next version;
the current guidelines are the highest version, and every decision records the version in
force when it was made (`Decision.guideline_version`)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from grounding.guidelines import Section, split_sections
from review.models.projects import Project


class GuidelineQuerySet(models.QuerySet):
    def current_of(self, project: Project | int) -> Guideline | None:
        """The project's current guidelines (None before anyone wrote any)."""
        return self.filter(project=project).order_by("-version").first()


class Guideline(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="guidelines")
    version = models.PositiveIntegerField()
    text = models.TextField(blank=True)
    # What changed, in the author's words (optional).
    summary = models.CharField(max_length=200, blank=True)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = GuidelineQuerySet.as_manager()

    class Meta:
        ordering = ["project", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["project", "version"], name="guideline_version_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.project} guidelines v{self.version}"

    @property
    def sections(self) -> tuple[Section, ...]:
        return split_sections(self.text)
