"""A request leaves no reference cycles behind: everything it made is freed when it ends, not
by the cyclic garbage collector, whose full collections stop every thread of a web worker.

Each request goes through the WSGI application as gunicorn calls it (the test client keeps
the request and response tied to each other, which a server does not)."""

from __future__ import annotations

import contextlib
import gc
import io
import json
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from config.wsgi import application

# transaction=True: the WSGI handler closes the connection at the end of each request.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def _eager() -> None:
    """Jobs stay with the broker, as in the web process (no worker runs inside the request)."""


def _call(method: str, path: str, key: str, body: Any = None) -> tuple[int, bytes]:
    raw = b"" if body is None else json.dumps(body).encode()
    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_AUTHORIZATION": f"Bearer {key}",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(raw)),
        "wsgi.input": io.BytesIO(raw),
        "wsgi.errors": sys.stderr,
        "wsgi.url_scheme": "http",
    }
    statuses: list[str] = []
    answer = application(environ, lambda status, headers, *_: statuses.append(status))
    try:
        content = b"".join(answer)
    finally:
        answer.close()
    return int(statuses[0].split()[0]), content


# Garbage is counted by the type of what was freed: the request's own objects come from these
# packages. Other threads (a test's local servers) may leave garbage of their own meanwhile,
# and Django's SQL compiler makes a recursive closure per query with a select_related (a
# plain function, not ours to change).
_REQUEST_PACKAGES = (
    "django.",
    "rest_framework.",
    "config.",
    "accounts.",
    "analytics.",
    "media.",
    "publishing.",
    "teams.",
    "webhooks.",
)


@contextlib.contextmanager
def _collecting() -> Iterator[list[Any]]:
    """What the cyclic garbage collector would have to free of what the block made."""
    found: list[Any] = []
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield found
    finally:
        gc.collect()
        gc.set_debug(0)
        found.extend(thing for thing in gc.garbage if type(thing).__module__.startswith(_REQUEST_PACKAGES))
        gc.garbage.clear()


@pytest.fixture
def publish_body(accounts: Any) -> dict[str, Any]:
    thread = [{"content": "A reply"}, {"content": "Another"}]  # its items are read and shaped too
    targets = [{"account_id": str(accounts.x.pk), "thread": thread}, {"account_id": str(accounts.bluesky.pk)}]
    return {"content": "Hello", "targets": targets}


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "/api/v1/publishes", "valid", 201),
        ("POST", "/api/v1/publishes", "no targets", 400),
        ("GET", "/api/v1/publishes/{id}", None, 200),
        ("GET", "/api/v1/publishes", None, 200),
        ("GET", "/api/v1/accounts", None, 200),
        ("GET", "/api/v1/webhooks", None, 200),
    ],
)
def test_a_request_leaves_no_cycles(owner, publish_body, method, path, body, status):
    created = json.loads(_call("POST", "/api/v1/publishes", owner.key, publish_body)[1])["data"]
    sent = {"valid": publish_body, "no targets": {**publish_body, "targets": []}, None: None}[body]
    path = path.format(id=created["id"])
    assert _call(method, path, owner.key, sent)[0] == status  # warm: first-use caches fill here

    with _collecting() as found:
        answered, content = _call(method, path, owner.key, sent)

    assert answered == status, content
    assert not found, Counter(type(thing).__qualname__ for thing in found).most_common(20)
