from __future__ import annotations

from django.apps import AppConfig


class AnalyticsConfig(AppConfig):
    name = "analytics"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from analytics import totals
        from publishing import listeners
        from teams import moves

        listeners.register(totals.refresh)
        moves.register(totals.move_to_team, order=25)
