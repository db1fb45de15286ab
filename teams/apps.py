from __future__ import annotations

from django.apps import AppConfig


class TeamsConfig(AppConfig):
    name = "teams"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from teams.caller_cache import connect_signals

        connect_signals()
