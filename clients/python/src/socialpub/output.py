"""Where a command's results go: rich tables and lines for a person on a terminal, or with
`--json` exactly one JSON document on stdout. Errors and warnings go to stderr either way."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Any

from rich.console import Console

from socialpub._generated.models import Publish
from socialpub._generated.types import Unset
from socialpub.client import ApiError, ClientError

PIPED_WIDTH = 160  # columns of a table written to a pipe or file (a terminal gives its own)


class Output:
    """Where a command's results go: rich tables on a terminal, or one JSON document."""

    def __init__(self, *, as_json: bool) -> None:
        self.as_json = as_json
        # Piped into a file or another program, a table is not cut to a default 80 columns.
        self.out = Console(highlight=False, width=None if sys.stdout.isatty() else PIPED_WIDTH)
        self.err = Console(stderr=True, highlight=False)

    def json(self, value: Any) -> None:
        print(json.dumps(value, indent=2, default=str))

    def line(self, text: str) -> None:
        self.out.print(text, markup=False, soft_wrap=True)

    def error(self, exc: ClientError) -> None:
        if self.as_json:
            self.json({"error": error_json(exc)})
        self.err.print(f"error: {exc}", markup=False, soft_wrap=True)

    def warnings(self, found: list[dict[str, Any]]) -> None:
        """One stderr line per warning, so a `--json` document on stdout stays the only one."""
        for item in found:
            account = f" on account {item['account_id']}" if item.get("account_id") else ""
            earlier = f", as publish {item['publish_id']} did" if item.get("publish_id") else ""
            self.err.print(f"warning: {item.get('code', 'WARNING')}{account}{earlier}", markup=False, soft_wrap=True)


def headline(found: Publish) -> str:
    """`publish ID: STATUS[, APPROVAL][, scheduled at TIME UTC]`, the first line about a publish."""
    when = f", scheduled at {found.scheduled_at:%Y-%m-%d %H:%M} UTC" if isinstance(found.scheduled_at, datetime) else ""
    approval = (
        "" if isinstance(found.approval_status, Unset) or not found.approval_status else f", {found.approval_status}"
    )
    return f"publish {found.id}: {found.status}{approval}{when}"


def error_json(exc: ClientError) -> dict[str, Any]:
    if isinstance(exc, ApiError):
        return {
            "status": exc.status,
            "type": exc.type,
            "code": exc.code,
            "message": exc.message,
            "request_id": exc.request_id,
            **({"details": exc.details} if exc.details else {}),
        }
    return {"type": "client_error", "message": str(exc)}
