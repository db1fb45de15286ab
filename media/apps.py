from __future__ import annotations

from django.apps import AppConfig


class MediaConfig(AppConfig):
    name = "media"
    default_auto_field = "django.db.models.BigAutoField"
