from __future__ import annotations

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import listeners as account_listeners
        from notifications import services
        from webhooks import listeners as event_listeners

        event_listeners.register(services.event_recorded)
        account_listeners.register(expired=services.account_expired)
