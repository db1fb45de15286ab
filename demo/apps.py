from __future__ import annotations

from django.apps import AppConfig


class DemoConfig(AppConfig):
    """Demo data for development, demos and black-box tests (`manage.py seed_demo`). The top
    layer: it may use every app, and the sandbox; no app uses it."""

    name = "demo"
    default_auto_field = "django.db.models.BigAutoField"
