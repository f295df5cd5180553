"""manage.py create_api_token USERNAME [--project SLUG[:ROLE,...]]...: a bearer key for the
JSON API, shown once."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from review.actions.tokens import GRANTABLE, create_token, parse_grant
from review.management.commands._common import REFUSED
from review.refusals import ActionRefused


class Command(BaseCommand):
    help = (
        "Create an API token acting as USERNAME and print its key. Only the key's SHA-256 is "
        "stored, so this is the one time it is shown. The token acts for the projects named "
        "by --project, with the roles named there (by default USERNAME's roles there); "
        "without --project, for every project USERNAME works in, with their roles."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", metavar="USERNAME")
        parser.add_argument("--name", default="api", metavar="N", help="what the token is for")
        parser.add_argument(
            "--project",
            action="append",
            metavar="SLUG[:ROLE,...]",
            dest="projects",
            help=f"a project the token acts for, and its roles there ({', '.join(GRANTABLE)}); "
            "repeat for more",
        )

    def handle(self, *args, username: str, name: str, projects, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"there is no user {username!r}", returncode=REFUSED)
        try:
            grants = None if projects is None else [parse_grant(text) for text in projects]
            token, key = create_token(user, name, grants)
        except ActionRefused as refused:
            raise CommandError(str(refused), returncode=REFUSED) from None
        self.stdout.write(key)
        acts_for = "; ".join(
            f"{grant.project.slug} as {grant.role_label}"
            for grant in token.grants.select_related("project")
        )
        self.stderr.write(
            f"token {name!r} for {username}, acting for {acts_for}: keep the key above now; it "
            "is not shown again. Send it as 'Authorization: Bearer <key>'."
        )
