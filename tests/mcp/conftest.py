"""MCP clients of the SDK against this service: streamable HTTP to the live server's `/mcp`,
and stdio to a `manage.py mcp` subprocess on the test database. Each helper runs one client
session to its end (`anyio.run`), so the tests themselves stay synchronous and may use the
ORM between calls."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from demo.seed import sandbox_account

Session = Callable[[Client], Awaitable[Any]]


class Mcp:
    """`mcp.call(key, tool, **arguments)` over `/mcp`; `mcp.session(key, fn)` for more."""

    def __init__(self, url: str) -> None:
        self.url = url

    def session(self, key: str | None, fn: Session) -> Any:
        async def run() -> Any:
            headers = {"Authorization": f"Bearer {key}"} if key else {}
            http = create_mcp_http_client(headers=headers)
            async with http, Client(streamable_http_client(self.url, http_client=http)) as client:
                return await fn(client)

        return anyio.run(run)

    def call(self, key: str, tool: str, **arguments: Any) -> Any:
        return self.session(key, lambda client: client.call_tool(tool, arguments))


@pytest.fixture
def mcp(live_server: Any, eager_tasks: None) -> Mcp:
    return Mcp(f"{live_server.url}/mcp")


def data(result: Any) -> Any:
    """The JSON body a successful tool call returned."""
    assert not result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


def error(result: Any) -> dict[str, Any]:
    """The `{"status", "error"}` of a refused tool call."""
    assert result.is_error, result.content[0].text
    return json.loads(result.content[0].text)


@pytest.fixture
def x_account(team: Any) -> Any:
    return sandbox_account(team, "x")
