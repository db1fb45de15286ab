from __future__ import annotations

import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from config.celery import READY_DIR
from demo.seed import seed, welcome_key, welcome_text

POLL_SECONDS = 0.5


class Command(BaseCommand):
    help = (
        "make run's last word: once the web server answers /healthz and every worker has started, "
        "print the dashboard, its logins and a demo key, then wait (honcho stops every process when one ends)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--wait", type=float, default=120.0, help="Seconds to wait for the web server.")
        parser.add_argument("--once", action="store_true", help="Print and exit instead of waiting.")

    def handle(self, *args: Any, wait: float, once: bool, **options: Any) -> None:
        if not settings.DEVELOPMENT:
            raise CommandError("welcome prints demo logins; it only runs with APP_ENV=development.")
        started, deadline = time.time() - 5, time.monotonic() + wait
        if not _poll(_web_answers, deadline):
            raise CommandError(f"The web server did not answer {settings.PUBLIC_BASE_URL}/healthz in {wait:.0f} s.")
        _poll(_workers_ready(started), deadline)
        data = seed(fresh=False, with_keys=False)
        self.stdout.write(welcome_text(data, welcome_key(data)))
        self.stdout.flush()
        while not once:
            time.sleep(3600)


def _poll(ready: Any, deadline: float) -> bool:
    while time.monotonic() < deadline:
        if ready():
            return True
        time.sleep(POLL_SECONDS)
    return False


def _web_answers() -> bool:
    try:
        with urllib.request.urlopen(f"{settings.PUBLIC_BASE_URL}/healthz", timeout=2) as answer:  # noqa: S310 - our own server
            return bool(answer.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def procfile_workers() -> int:
    """How many Celery workers `make run` starts (the Procfile's `celery ... worker` lines)."""
    procfile = Path(settings.BASE_DIR) / "Procfile"
    return sum(1 for line in procfile.read_text().splitlines() if " worker " in line and not line.startswith("#"))


def _workers_ready(since: float) -> Any:
    """True once every Celery worker of the Procfile has marked itself ready since `since`
    (config.celery.mark_ready): their banners are printed by then."""
    expected = procfile_workers()
    folder = Path(settings.VAR_DIR) / READY_DIR

    def ready() -> bool:
        marks = folder.glob("*") if folder.is_dir() else []
        return sum(1 for mark in marks if mark.stat().st_mtime >= since) >= expected

    return ready
