"""The sandbox WSGI app: the control API plus every platform module's routes, answering late
and reading uploads slowly when the control API says so (`control.set_latency`)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import IO, Any

from werkzeug.exceptions import ClientDisconnected, HTTPException
from werkzeug.routing import Map
from werkzeug.wrappers import Request, Response

from sandbox import control, inbox, viewer
from sandbox.http import Context, json_response
from sandbox.platforms import RULES as PLATFORM_RULES
from sandbox.state import State

# Bodies that are not media: a post's JSON or form fields are read at once whatever the rate.
NOT_UPLOADS = ("application/json", "application/x-www-form-urlencoded")


class PacedInput:
    """A request body that yields at most `rate` bytes a second, read in pieces, so the client's
    send waits (its socket buffers fill) as it would on a platform that ingests that fast."""

    PIECE = 64 * 1024

    def __init__(self, stream: IO[bytes], rate: float) -> None:
        self.stream, self.rate = stream, rate
        self.started, self.given = time.monotonic(), 0

    def read(self, size: int | None = -1) -> bytes:
        # A short read is allowed: werkzeug's LimitedStream asks again for the rest.
        wanted = self.PIECE if size is None or size < 0 else min(size, self.PIECE)
        pause = self.started + (self.given + wanted) / self.rate - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        data = self.stream.read(wanted)
        self.given += len(data)
        return data


def paced(environ: dict[str, Any], rate: float | None) -> None:
    """Read the request's body at `rate` bytes a second when it is a media upload."""
    mimetype = str(environ.get("CONTENT_TYPE", "")).partition(";")[0].strip().lower()
    path = str(environ.get("PATH_INFO", ""))
    if rate and mimetype not in NOT_UPLOADS and not path.startswith("/_sandbox/"):
        environ["wsgi.input"] = PacedInput(environ["wsgi.input"], rate)


class SandboxApp:
    def __init__(self, ctx: Context | None = None) -> None:
        self.ctx = ctx or Context(state=State())
        # Unbound copies: a rule can belong to one map only, and tests build several apps.
        rules = [rule.empty() for rule in (*control.RULES, *viewer.RULES, *inbox.RULES, *PLATFORM_RULES)]
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
        paced(environ, self.ctx.state.upload_bytes_per_second)
        try:
            response = self.dispatch(Request(environ))
        except ClientDisconnected:
            # The client went away before its body arrived (a worker killed mid-upload): nothing
            # was made, and no one is left to read an answer. A platform just drops the
            # connection; this is no error of the stand-in's.
            response = Response(status=400)
        return response(environ, start_response)


def create_app(ctx: Context | None = None) -> SandboxApp:
    return SandboxApp(ctx)
