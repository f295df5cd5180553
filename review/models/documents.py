"""The documents plans are proposed on, each revision a document of its own."""

from __future__ import annotations

from django.db import models

from review.models.projects import InProject, Project
from review.permissions import is_member


class DocumentQuerySet(models.QuerySet):
    def visible_to(self, user) -> DocumentQuerySet:
        """The twin of `Document.visible_to`: the documents of the projects `user` works in
        (`user` None, a command's operator, reads as staff would)."""
        if user is None:
            return self.all()
        return self.filter(project__in=Project.objects.of_member(user))


class Document(InProject):
    class MediaType(models.TextChoices):
        MARKDOWN = "markdown", "Markdown"
        TEXT = "text", "Plain text"
        PDF = "pdf", "PDF"

    name = models.CharField(max_length=255)
    media_type = models.CharField(max_length=16, choices=MediaType.choices)
    # The original bytes, so an export can always be replayed against what was proposed on.
    data = models.BinaryField()
    # One stored copy per project: the same bytes uploaded in two projects are two documents,
    # so neither project can learn from an upload that the other holds them.
    sha256 = models.CharField(max_length=64)
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

    objects = DocumentQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            # One line of revisions: a revision is followed by at most one next revision.
            models.UniqueConstraint(fields=["revision_of"], name="document_one_next_revision"),
            models.UniqueConstraint(fields=["project", "sha256"], name="document_once_per_project"),
        ]

    def __str__(self) -> str:
        return self.label

    def visible_to(self, user) -> bool:
        """The members of its project read a document; nobody else may tell it exists."""
        return is_member(user, self.project_id)

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
