from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from demo.seed import DEMO_PASSWORD, seed


class Command(BaseCommand):
    help = (
        "Create demo teams, users, sandbox accounts and API keys (development and tests only). "
        "Applies pending migrations first, reporting on stderr, so stdout stays machine-readable."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--fresh", action="store_true", help="Create a new, uniquely tagged data set.")
        parser.add_argument("--json", action="store_true", help="Print exactly one JSON object on stdout.")

    def handle(self, *args: Any, fresh: bool, json: bool, **options: Any) -> None:
        if not settings.DEVELOPMENT:
            raise CommandError("seed_demo creates users with a known password; it only runs with APP_ENV=development.")
        _migrate_if_needed(self.stderr)
        data = seed(fresh=fresh)
        if json:
            self.stdout.write(_dumps(data.as_json()))
            return
        owner = data.users["owner"].get_username()
        self.stdout.write(
            f"Demo data ready (tag {data.tag}).\n"
            f"  Dashboard:    {settings.PUBLIC_BASE_URL}/  user {owner!r}, password {DEMO_PASSWORD!r}\n"
            f"  Admin:        {settings.PUBLIC_BASE_URL}/admin/  (the same login; {owner!r} is staff)\n"
            f"  API docs:     {settings.PUBLIC_BASE_URL}/api/v1/docs\n"
            f"  Demo API key: {data.keys['acme_owner']}  (team {data.teams['acme'].name!r}, all scopes)\n"
            f"  Try:          curl -H 'Authorization: Bearer {data.keys['acme_owner']}' "
            f"{settings.PUBLIC_BASE_URL}/api/v1/accounts\n"
        )


def _migrate_if_needed(report: Any) -> None:
    executor = MigrationExecutor(connection)
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        call_command("migrate", interactive=False, verbosity=1, stdout=report)


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=2)
