"""Moving the tests' own database to a migration and back, for the tests of one migration's
data, the way `manage.py migrate` does: through the command, so its pre- and post-migrate
handlers run (on SQLite the plans' counter triggers are lifted while the migrations remake
the plans' table, and put back after them; see `review.apps`). A bare MigrationExecutor
skips them, and a remake of the plans' table then fails on the entries' trigger naming it."""

from __future__ import annotations

from django.apps.registry import Apps
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(app_label: str, name: str) -> Apps:
    """The database at migration `name` of `app_label`; the models as they were there."""
    call_command("migrate", app_label, name, verbosity=0)
    loader = MigrationExecutor(connection).loader
    return loader.project_state([(app_label, name)]).apps


def migrate_to_latest() -> None:
    """Every migration applied again: what a later test on the same database expects."""
    call_command("migrate", verbosity=0)
