"""The sandbox keeps a client's connection open between requests, as the platforms do, and a
body the application does not read never leaks into the next request on that connection."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit

from sandbox.server import KEEP_ALIVE_BODY


def _connection(sandbox: Any) -> http.client.HTTPConnection:
    url = urlsplit(sandbox.url)
    return http.client.HTTPConnection(url.hostname, url.port, timeout=5)


def _ask(connection: http.client.HTTPConnection, method: str, path: str, body: bytes | None = None) -> Any:
    connection.request(method, path, body=body, headers={"Content-Type": "application/json"})
    answer = connection.getresponse()
    return answer, answer.read()


def test_requests_share_one_connection(sandbox):
    connection = _connection(sandbox)
    outcomes = json.dumps({"platform": "x", "outcomes": ["error"]}).encode()

    first, _ = _ask(connection, "POST", "/_sandbox/outcomes", outcomes)
    port = connection.sock.getsockname()[1]
    second, body = _ask(connection, "GET", "/_sandbox/posts")

    assert (first.status, second.status) == (200, 200)
    assert first.getheader("Connection") is None
    assert connection.sock.getsockname()[1] == port  # the same connection answered both
    assert json.loads(body) == {"posts": []}


def test_a_body_left_unread_does_not_reach_the_next_request(sandbox):
    connection = _connection(sandbox)

    reset, _ = _ask(connection, "POST", "/_sandbox/reset", b"GET /_sandbox/posts HTTP/1.1\r\n\r\n" * 100)
    after, body = _ask(connection, "GET", "/_sandbox/posts")

    assert reset.status == 200
    assert after.status == 200
    assert json.loads(body) == {"posts": []}


def test_a_body_too_large_to_hold_closes_the_connection(sandbox):
    connection = _connection(sandbox)

    answer, _ = _ask(connection, "POST", "/_sandbox/reset", b"x" * (KEEP_ALIVE_BODY + 1))

    assert answer.status == 200
    assert answer.getheader("Connection") == "close"
