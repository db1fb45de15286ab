"""`/mcp`: the MCP server's streamable HTTP transport, served by the web process itself.

The SDK's transport is an ASGI application; the web server is gunicorn with sync workers.
Each request is bridged on its own: the view authenticates the key as the API does (DRF with
`ApiKeyAuthentication`, so a missing or bad key is the API's 401 error object), turns the
Django request into an ASGI scope, and runs a fresh `StreamableHTTPSessionManager` in
stateless JSON mode for that one request (`async_to_sync`), collecting the answer into an
`HttpResponse`. No state outlives the request, so any worker answers any request, and the
tools run on the request's own thread (`tools._api`). Only POST is served: with no session
there is no stream to open (GET) or end (DELETE). `/mcp` is an API: it takes keys only (no
session login), DRF views are exempt from CSRF, and the request is not rate limited twice:
the REST operations each tool calls are limited as the API limits them.
"""

from __future__ import annotations

from typing import Any

import anyio
from asgiref.sync import async_to_sync
from django.http import HttpResponse
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView
from starlette.types import Message, Scope

from mcpserver.tools import server
from teams.authentication import Caller

# Headers of the SDK's answer that Django computes itself.
_HOP_HEADERS = {"content-length", "transfer-encoding", "connection"}


class IsCaller(BasePermission):
    """Any valid key: what a tool may do is decided by the operation it calls."""

    def has_permission(self, request: Request, view: Any) -> bool:  # noqa: ARG002 - DRF's signature
        return isinstance(request.auth, Caller)


def _scope(request: Request) -> Scope:
    django_request = request._request
    host, _, port = request.get_host().partition(":")
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": django_request.path,
        "raw_path": django_request.path.encode(),
        "root_path": "",
        "query_string": django_request.META.get("QUERY_STRING", "").encode("latin-1"),
        "headers": [
            (name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in request.headers.items()
        ],
        "client": (django_request.META.get("REMOTE_ADDR", ""), 0),
        "server": (host, int(port) if port.isdigit() else (443 if request.is_secure() else 80)),
    }


async def _serve(scope: Scope, body: bytes) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    manager = StreamableHTTPSessionManager(
        app=server._lowlevel_server,  # the MCPServer's protocol server; the SDK offers no public handle
        stateless=True,
        json_response=True,
    )
    start: dict[str, Any] = {}
    chunks: list[bytes] = []
    answered = anyio.Event()
    delivered = False

    async def receive() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await answered.wait()  # the client stays connected until the answer is complete
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                answered.set()

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    return start.get("status", 500), list(start.get("headers", [])), b"".join(chunks)


class McpView(APIView):
    permission_classes = [IsCaller]
    throttle_classes = []
    schema = None  # MCP, not a REST operation: the OpenAPI document leaves it out

    # POST only: a stateless server has no stream to open with GET and no session to end
    # with DELETE, and the SDK would hold a GET open for ever; both are a 405, as the MCP
    # specification allows.
    def post(self, request: Request) -> HttpResponse:
        return self._bridge(request)

    def _bridge(self, request: Request) -> HttpResponse:
        status, headers, content = async_to_sync(_serve)(_scope(request), request.body)
        response = HttpResponse(content, status=status)
        for name, value in headers:
            key = name.decode("latin-1")
            if key.lower() not in _HOP_HEADERS:
                response[key] = value.decode("latin-1")
        return response
