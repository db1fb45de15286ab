from __future__ import annotations

from typing import Any

from rest_framework.routers import SimpleRouter

UUID_PATTERN = "[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"


class ApiRouter(SimpleRouter):
    """Paths without a trailing slash (one is tolerated). Object ids must look like UUIDs, so
    `/accounts/not-a-uuid` is a 404 before any query runs."""

    def __init__(self) -> None:
        super().__init__()
        self.trailing_slash = "/?"  # the constructor only knows "/" or ""

    def get_lookup_regex(self, viewset: Any, lookup_prefix: str = "") -> str:
        lookup_field = getattr(viewset, "lookup_url_kwarg", None) or getattr(viewset, "lookup_field", "pk")
        return f"(?P<{lookup_prefix}{lookup_field}>{UUID_PATTERN})"
