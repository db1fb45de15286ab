from __future__ import annotations

from django.apps import AppConfig


class MediaConfig(AppConfig):
    name = "media"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from media import services
        from teams import moves, usage

        moves.register(services.move_to_team, order=30)
        usage.register("media_storage_bytes", services.storage_used)
