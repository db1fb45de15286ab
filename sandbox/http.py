"""Small helpers every platform module of the sandbox uses."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

from werkzeug.wrappers import Request, Response

from sandbox import tokens
from sandbox.state import State


@dataclass
class Context:
    state: State
    # How long the `timeout` outcome holds an answer: the clients' read timeout plus 5 s.
    hold_seconds: float = field(default_factory=lambda: float(os.environ.get("PLATFORM_TIMEOUT_SECONDS", "30")) + 5)

    def hold(self) -> None:
        time.sleep(self.hold_seconds)


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(json.dumps(data), status=status, headers=headers, content_type="application/json")


def json_body(request: Request) -> Any:
    """The parsed JSON body, or None when it is missing or not JSON (the caller answers 400)."""
    if not (request.mimetype or "").endswith("json"):
        return None
    try:
        return json.loads(request.get_data(cache=True) or b"null")
    except ValueError:
        return None


def bearer_token(request: Request) -> str:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def token_problem(ctx: Context, token: str, platform: str) -> tokens.TokenInfo | str:
    """The token's info, or why it is refused: 'missing', 'invalid', 'expired' or 'revoked'."""
    if not token:
        return "missing"
    info = tokens.parse(token)
    if info is None or info.platform != platform:
        return "invalid"
    if token in ctx.state.revoked:
        return "revoked"
    if info.expired:
        return "expired"
    return info
