"""manage.py create_api_token USERNAME: a bearer key for the JSON API, shown once."""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from review.management.commands._common import REFUSED
from review.models import ApiToken


class Command(BaseCommand):
    help = (
        "Create an API token acting as USERNAME and print its key. Only the key's SHA-256 is "
        "stored, so this is the one time it is shown."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", metavar="USERNAME")
        parser.add_argument("--name", default="api", metavar="N", help="what the token is for")

    def handle(self, *args, username: str, name: str, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"there is no user {username!r}", returncode=REFUSED)
        if not user.is_active:
            raise CommandError(f"user {username!r} is inactive", returncode=REFUSED)
        if not name.strip() or len(name) > ApiToken._meta.get_field("name").max_length:
            raise CommandError("--name must be 1 to 100 characters", returncode=REFUSED)
        key = secrets.token_urlsafe(32)
        ApiToken.objects.create(
            user=user, name=name, key_sha256=hashlib.sha256(key.encode()).hexdigest()
        )
        self.stdout.write(key)
        self.stderr.write(
            f"token {name!r} for {username}: keep the key above now; it is not shown again. "
            "Send it as 'Authorization: Bearer <key>'."
        )
