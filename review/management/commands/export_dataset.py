"""manage.py export_dataset DIR: a project's decision log and adjudicated plans as a dataset
folder (Parquet files and a dataset card), for `datasets.load_dataset` and the Hugging Face Hub.

It reads as `export_decisions` and `export_plan` do: the log for no one in particular (every
double review under way withheld, since the folder may reach anyone) and only plans someone
adjudicated."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from review.adapters.dataset import export_dataset
from review.adapters.errors import ImportRefused
from review.management.commands._common import add_project_argument, project_named, refusal


class Command(BaseCommand):
    help = (
        "Write the project's decision log and its adjudicated plans' entries as Parquet files "
        "in DIR (decisions/, entries/), with a dataset card (README.md: schema, counts, "
        "licence). DIR must not exist or be empty; it is written whole or not at all."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", metavar="DIR")
        parser.add_argument(
            "--licence",
            default="",
            metavar="ID",
            help="the licence the card names, as the Hub spells it (cc-by-4.0, mit…); "
            "without it the card says none was given",
        )
        add_project_argument(parser)

    def handle(self, *args, folder: str, licence: str, project: str, **options):
        of = project_named(project)
        try:
            done = export_dataset(folder, of, licence=licence.strip())
        except ImportRefused as refused:
            raise refusal(refused) from refused
        self.stderr.write(
            f"wrote {done.decisions:,} decisions and {done.entries:,} entries of"
            f" {done.plans:,} adjudicated plans to {done.folder}"
        )
