from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from demo.seed import seed, welcome_text


class Command(BaseCommand):
    help = (
        "Create demo teams, users, sandbox accounts and API keys (development and tests only). "
        "Applies pending migrations first, reporting on stderr, so stdout stays machine-readable."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--fresh", action="store_true", help="Create a new, uniquely tagged data set.")
        parser.add_argument("--json", action="store_true", help="Print exactly one JSON object on stdout.")
        parser.add_argument("--quiet", action="store_true", help="Print nothing (make run prints it once started).")

    def handle(self, *args: Any, fresh: bool, json: bool, quiet: bool, **options: Any) -> None:
        if not settings.DEVELOPMENT:
            raise CommandError("seed_demo creates users with a known password; it only runs with APP_ENV=development.")
        _migrate_if_needed(self.stderr)
        data = seed(fresh=fresh)
        if json:
            self.stdout.write(_dumps(data.as_json()))
            return
        if not quiet:
            self.stdout.write(welcome_text(data, data.keys["acme_owner"]))


def _migrate_if_needed(report: Any) -> None:
    executor = MigrationExecutor(connection)
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        call_command("migrate", interactive=False, verbosity=1, stdout=report)


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=2)
