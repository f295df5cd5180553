"""Long work run by the task worker, and the files it writes."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.conf import settings
from django.db import models
from django.db.models import Q

from review.models.projects import InProject, Project
from review.permissions import is_member


class JobQuerySet(models.QuerySet):
    def visible_to(self, user) -> JobQuerySet:
        """The twin of `Job.visible_to`: the jobs `user` started in projects they still work
        in; every job for staff."""
        if user.is_staff:
            return self.all()
        return self.filter(created_by=user.pk, project__in=Project.objects.of_member(user))

    def unheard_since(self, moment) -> JobQuerySet:
        """The twin of `Job.unheard_since`: running jobs nothing was heard from since `moment`."""
        return self.filter(status=Job.Status.RUNNING).filter(
            Q(heartbeat_at__lt=moment) | Q(heartbeat_at__isnull=True, started_at__lt=moment)
        )


class Job(InProject):
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
        """A job's input and result are its starter's while they are a member of the project
        it was started in (staff see every job); `Job.objects.visible_to` is the twin."""
        if user.is_staff:
            return True
        return user.pk == self.created_by_id and is_member(user, self.project_id)

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
