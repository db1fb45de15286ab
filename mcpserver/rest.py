"""The REST API called in-process: one tool call is one request through Django's whole stack.

A tool never reads or writes a model itself. It sends the request the REST API documents to
a `WSGIHandler` of this process, with the caller's `Authorization` header, so authentication,
scopes, team scoping, rate limits, validation and the error object are the API's own and cannot
drift from it. The request is addressed to `PUBLIC_BASE_URL` (its host is an allowed host and
its scheme satisfies the HTTPS redirect of production).

Being a request, it begins and ends with Django's request signals, which close a database
connection left inside a transaction: it is never called from inside one (the `/mcp` view and
`manage.py mcp` hold none).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler

API_PREFIX = "/api/v1"


@dataclass(frozen=True)
class Answer:
    status: int
    body: Any  # the decoded JSON body, or None when there is none
    request_id: str

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


@cache
def _handler() -> WSGIHandler:
    return WSGIHandler()  # loads the middleware once per process


def _query(params: dict[str, Any] | None) -> str:
    pairs = {name: _text(value) for name, value in (params or {}).items() if value is not None}
    return urlencode(pairs)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(str(item) for item in value)  # the API's comma-separated filters
    return str(value)


def _environ(
    method: str, path: str, *, authorization: str, query: str, body: bytes, headers: dict[str, str]
) -> dict[str, Any]:
    base = urlsplit(settings.PUBLIC_BASE_URL)
    scheme = base.scheme or "http"
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": API_PREFIX + path,
        "QUERY_STRING": query,
        "SERVER_NAME": base.hostname or "localhost",
        "SERVER_PORT": str(base.port or (443 if scheme == "https" else 80)),
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": base.netloc or "localhost",
        "HTTP_ACCEPT": "application/json",
        "HTTP_AUTHORIZATION": authorization,
        # Production trusts this header to tell https (behind its proxy); this request is as
        # secure as the one that carried the tool call.
        "HTTP_X_FORWARDED_PROTO": scheme,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scheme,
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    if body:
        environ["CONTENT_TYPE"] = "application/json"
        environ["CONTENT_LENGTH"] = str(len(body))
    for name, value in headers.items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    return environ


def call(
    method: str,
    path: str,
    *,
    authorization: str,
    params: dict[str, Any] | None = None,
    json_body: Any = None,
    headers: dict[str, str] | None = None,
) -> Answer:
    """Send one request to the API (`path` below /api/v1) and read its JSON answer."""
    body = b"" if json_body is None else json.dumps(json_body).encode()
    environ = _environ(
        method, path, authorization=authorization, query=_query(params), body=body, headers=headers or {}
    )
    status: list[int] = []
    written: list[bytes] = []
    response_headers: dict[str, str] = {}

    def start_response(
        line: str,
        header_list: list[tuple[str, str]],
        exc_info: Any = None,  # noqa: ARG001 - WSGI's signature
        /,
    ) -> Callable[[bytes], object]:
        status.append(int(line.split(" ", 1)[0]))
        response_headers.update((name.lower(), value) for name, value in header_list)
        return written.append  # WSGI's write(); Django never calls it

    chunks = _handler()(environ, start_response)
    try:
        content = b"".join([*written, *chunks])
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()  # sends request_finished, as a server does
    decoded = json.loads(content) if content and "json" in response_headers.get("content-type", "") else None
    return Answer(status=status[0], body=decoded, request_id=response_headers.get("x-request-id", ""))
