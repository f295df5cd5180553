"""manage.py export_plan PLAN_ID: write the adjudicated plan's JSON.

It reads the plan through `Plan.objects.visible_to`, as the operator, who reads as staff
would: any plan, and an editor's review copy once both copies are in."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from review.adapters.errors import PlanNotAdjudicable
from review.adapters.plans import export_plan
from review.management.commands._common import (
    OPERATOR,
    REFUSED,
    add_project_argument,
    project_named,
    refusal,
    write_atomically,
)
from review.models import Plan


class Command(BaseCommand):
    help = (
        "Write the adjudicated plan PLAN_ID as JSON, exactly as it was frozen when it was "
        "adjudicated. Refused for a plan not yet adjudicated, naming the entries still "
        "undecided."
    )

    def add_arguments(self, parser):
        parser.add_argument("plan_id", metavar="PLAN_ID", type=int)
        parser.add_argument("--out", metavar="F", help="write to F (atomically), not stdout")
        add_project_argument(parser)

    def handle(self, *args, plan_id: int, out: str | None, project: str, **options):
        of = project_named(project)
        plan = Plan.objects.visible_to(OPERATOR).filter(pk=plan_id, project=of).first()
        if plan is None:
            # The same words for another project's plan as for none: --project names where.
            raise CommandError(f"there is no plan with id {plan_id}", returncode=REFUSED)
        try:
            payload = export_plan(plan)
        except PlanNotAdjudicable as refused:
            raise refusal(refused) from refused
        if out:
            write_atomically(out, [payload])
            self.stderr.write(f"wrote adjudicated plan {plan_id} to {out}")
        else:
            self.stdout.write(payload, ending="")
