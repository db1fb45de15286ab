from __future__ import annotations

from django.apps import AppConfig


class PublishingConfig(AppConfig):
    name = "publishing"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from accounts import merges
        from publishing import ownership
        from teams import moves

        merges.register(ownership.targets_repoint)
        moves.register(ownership.move_to_team, order=20)
