"""The tiktok stand-in."""

from __future__ import annotations

from werkzeug.routing import Rule

RULES: list[Rule] = []
