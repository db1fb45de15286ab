"""`/mcp`: the MCP server's streamable HTTP transport, served by the web process itself.

The SDK's transport is an ASGI application; the web server is gunicorn with sync workers.
Each request is bridged on its own: the view authenticates the key as the API does (DRF with
`ApiKeyAuthentication`, so a missing or bad key is the API's 401 error object), turns the
Django request into an ASGI scope, and runs a fresh `StreamableHTTPSessionManager` in
stateless JSON mode for that one request (`async_to_sync`), collecting the answer into an
`HttpResponse`. No state outlives the request, so any worker answers any request, and the
tools run on the request's own thread (`tools._api`). Only POST is served: with no session
there is no stream to open (GET) or end (DELETE). `/mcp` is an API: it takes keys only (no
session login) and DRF views are exempt from CSRF.

Against DNS rebinding (the MCP transport's rule) Django refuses a Host outside ALLOWED_HOSTS,
and the SDK checks the Host again and, when a browser sent one, the Origin (`_security`); its
plain-text refusals leave as the API's error object (`mcpserver.errors`). Each `/mcp` request
counts against the key's `mcp` rate limit, so a flood of `initialize` or `tools/list` is a
429; a tool call also counts against the limit of the REST operation it runs.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import anyio
from asgiref.sync import async_to_sync
from django.conf import settings
from django.http import HttpResponse
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView
from starlette.types import Message, Scope

from mcpserver.errors import SDK_REFUSALS
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
    # The Host Django read and held against ALLOWED_HOSTS (from SERVER_NAME when none was sent).
    host = request.get_host()
    name, _, port = host.partition(":")
    headers = [(key.lower().encode("latin-1"), value.encode("latin-1")) for key, value in request.headers.items()]
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
        "headers": [*(header for header in headers if header[0] != b"host"), (b"host", host.encode("latin-1"))],
        "client": (django_request.META.get("REMOTE_ADDR", ""), 0),
        "server": (name, int(port) if port.isdigit() else (443 if request.is_secure() else 80)),
    }


def _security(request: Request) -> TransportSecuritySettings:
    """The Host and Origin headers `/mcp` answers. Hosts: the names of ALLOWED_HOSTS, on any
    port. Origins, the pages of this service: those names over http or https on any port,
    PUBLIC_BASE_URL's and CSRF_TRUSTED_ORIGINS. A request without an Origin (any client but a
    browser) is not asked for one."""
    names = [name for name in settings.ALLOWED_HOSTS if name != "*" and not name.startswith(".")]
    hosts = [*names, *(f"{name}:*" for name in names)]
    if len(names) < len(settings.ALLOWED_HOSTS):
        # Django has already matched the Host against a pattern ("*", ".example.com"); the SDK
        # knows exact names only. The pattern does not make a page at that host one of ours:
        # under "*", a rebinding site's own name would pass.
        hosts.append(request.get_host())
    pages = [f"{scheme}://{name}{port}" for name in names for scheme in ("http", "https") for port in ("", ":*")]
    public = urlsplit(settings.PUBLIC_BASE_URL)
    return TransportSecuritySettings(
        allowed_hosts=hosts,
        allowed_origins=[*pages, f"{public.scheme}://{public.netloc}", *settings.CSRF_TRUSTED_ORIGINS],
    )


async def _serve(
    scope: Scope, body: bytes, security: TransportSecuritySettings
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    manager = StreamableHTTPSessionManager(
        app=server._lowlevel_server,  # the MCPServer's protocol server; the SDK offers no public handle
        stateless=True,
        json_response=True,
        security_settings=security,
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


def _is_json(headers: list[tuple[bytes, bytes]]) -> bool:
    return any(name.lower() == b"content-type" and value.startswith(b"application/json") for name, value in headers)


class McpView(APIView):
    permission_classes = [IsCaller]
    throttle_scope = "mcp"
    schema = None  # MCP, not a REST operation: the OpenAPI document leaves it out

    # POST only: a stateless server has no stream to open with GET and no session to end
    # with DELETE, and the SDK would hold a GET open for ever; both are a 405, as the MCP
    # specification allows.
    def post(self, request: Request) -> HttpResponse:
        return self._bridge(request)

    def _bridge(self, request: Request) -> HttpResponse:
        status, headers, content = async_to_sync(_serve)(_scope(request), request.body, _security(request))
        if status in SDK_REFUSALS and not _is_json(headers):
            raise SDK_REFUSALS[status]
        response = HttpResponse(content, status=status)
        for name, value in headers:
            key = name.decode("latin-1")
            if key.lower() not in _HOP_HEADERS:
                response[key] = value.decode("latin-1")
        return response
