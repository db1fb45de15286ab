"""Errors of connected accounts."""

from __future__ import annotations

from config.errors import InvalidRequest


class SandboxUnavailable(InvalidRequest):
    """A sandbox account outside development: nothing is sent, and it cannot be connected."""

    code = "SANDBOX_UNAVAILABLE"
    message = (
        "Sandbox accounts exist only in development (APP_ENV=development); "
        "disconnect this one and connect the real account."
    )
