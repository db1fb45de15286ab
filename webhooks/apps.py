from __future__ import annotations

from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import listeners as account_listeners
        from teams import moves
        from webhooks import account_events, services

        moves.register(services.move_to_team, order=40)
        account_listeners.register(
            connected=account_events.connected,
            disconnected=account_events.disconnected,
            expired=account_events.expired,
            expiring=account_events.expiring,
        )
