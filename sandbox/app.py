"""The sandbox WSGI app: the control API plus every platform module's routes."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map
from werkzeug.wrappers import Request, Response

from sandbox import control, viewer
from sandbox.http import Context, json_response
from sandbox.platforms import RULES as PLATFORM_RULES
from sandbox.state import State


class SandboxApp:
    def __init__(self, ctx: Context | None = None) -> None:
        self.ctx = ctx or Context(state=State())
        # Unbound copies: a rule can belong to one map only, and tests build several apps.
        rules = [rule.empty() for rule in (*control.RULES, *viewer.RULES, *PLATFORM_RULES)]
        self.urls = Map(rules, strict_slashes=False, merge_slashes=False)

    def dispatch(self, request: Request) -> Response:
        if not request.path.startswith("/_sandbox/"):
            self.ctx.state.requests.append(
                {
                    "method": request.method,
                    "path": request.path,
                    "query": request.query_string.decode(),
                    "headers": dict(request.headers),
                    "body": request.get_data(cache=True),
                }
            )
        adapter = self.urls.bind_to_environ(request.environ)
        try:
            endpoint, values = adapter.match()
        except HTTPException as exc:
            return json_response({"error": exc.name, "message": exc.description}, status=exc.code or 404)
        response: Response = endpoint(self.ctx, request, **values)
        if self.ctx.state.latency_seconds and not request.path.startswith("/_sandbox/"):
            time.sleep(self.ctx.state.latency_seconds)  # done, but answered late (`set_latency`)
        return response

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        return self.dispatch(Request(environ))(environ, start_response)


def create_app(ctx: Context | None = None) -> SandboxApp:
    return SandboxApp(ctx)
