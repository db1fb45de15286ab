"""Request bodies sent chunked (Transfer-Encoding, no Content-Length) are read, within the body
cap: by gunicorn running the project's WSGI application for real, and by that application
called the way gunicorn calls it. A server that cannot tell where such a body ends gets a 411."""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import os
import subprocess
import time
from collections.abc import Iterator
from typing import Any
from wsgiref.util import setup_testing_defaults

import pytest
from django.conf import settings
from django.core.signals import request_finished, request_started
from django.db import close_old_connections

from bench.common import procfile_command, replace_option
from config.wsgi import application
from tests.config.test_production_logging import _wait_for_listening
from tests.factories import SocialAccountFactory
from tests.publishing.safety_support import database_url

VALIDATE = "/api/v1/publishes/validate"
CAP = 1024 * 1024


@pytest.fixture
def body(owner: Any) -> bytes:
    account = SocialAccountFactory(team=owner.team, platform="x")
    return json.dumps({"content": "Launch day", "targets": [{"account_id": str(account.pk)}]}).encode()


def _pieces(data: bytes, size: int = 7) -> Iterator[bytes]:
    return (data[at : at + size] for at in range(0, len(data), size))


# --- gunicorn, for real -------------------------------------------------------------------


@pytest.fixture
def web(transactional_db: None) -> Iterator[int]:
    """The Procfile's web process on a free port, with one worker, on the test database."""
    argv = replace_option(procfile_command("web", WEB_PORT="0"), "--workers", "1")
    argv = [str(settings.BASE_DIR / argv[0]), *argv[1:]]
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": settings.REDIS_URL}
    process = subprocess.Popen(argv, cwd=settings.BASE_DIR, env=env, stderr=subprocess.PIPE)  # noqa: S603
    try:
        yield _wait_for_listening(process, time.monotonic() + 60)
    finally:
        process.terminate()
        process.communicate(timeout=60)


def _send_chunked(port: int, method: str, path: str, pieces: Iterator[bytes], headers: dict[str, str]) -> Any:
    """(status, body) of the answer. A server may answer before it has read the whole body and
    close the connection (a refusal); the rest of the body then meets a closed socket, and the
    answer already sent is read all the same."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.request(method, path, body=pieces, headers=headers, encode_chunked=True)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


@pytest.mark.postgres
def test_gunicorn_hands_the_api_a_chunked_body(web, owner, body):
    headers = {"Authorization": f"Bearer {owner.key}", "Content-Type": "application/json"}

    status, answer = _send_chunked(web, "POST", VALIDATE, _pieces(body), headers)

    assert status == 200, answer
    assert json.loads(answer)["data"]["valid"] is True


@pytest.mark.postgres
def test_gunicorn_answers_a_chunked_body_over_the_cap_with_413(web, owner):
    headers = {"Authorization": f"Bearer {owner.key}", "Content-Type": "application/json"}
    oversized = json.dumps({"content": "x" * CAP}).encode()

    status, answer = _send_chunked(web, "POST", VALIDATE, _pieces(oversized, 64 * 1024), headers)

    assert status == 413
    assert json.loads(answer)["error"]["code"] == "REQUEST_TOO_LARGE"


@pytest.mark.postgres
def test_a_chunked_put_to_an_upload_url_is_told_the_length_to_send(web, api, owner):
    size = 3 * CAP
    created = api.as_(owner.key).post(
        "/api/v1/media/uploads", {"filename": "a.png", "content_type": "image/png", "size_bytes": size}, format="json"
    )
    url = created.json()["data"]["upload_url"]
    path = url[url.index("/", len("http://")) :]

    status, answer = _send_chunked(web, "PUT", path, _pieces(b"\x00" * size, 64 * 1024), {"Content-Type": "image/png"})

    assert status == 400
    assert json.loads(answer)["error"] | {"request_id": None} == {
        "type": "invalid_request",
        "code": "SIZE_MISMATCH",
        "message": f"Content-Length must be {size}.",
        "request_id": None,
    }


# --- The WSGI application, called as gunicorn calls it ------------------------------------


class Endless(io.RawIOBase):
    """A body that never ends, counting what was read of it."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def read(self, size: int = -1) -> bytes:
        assert size >= 0, "the whole body was asked for"
        self.read_bytes += size
        return b" " * size


def _call(key: str, stream: Any, *, terminated: bool = True) -> tuple[str, bytes]:
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": VALIDATE,
        "CONTENT_TYPE": "application/json",
        "HTTP_AUTHORIZATION": f"Bearer {key}",
        "HTTP_TRANSFER_ENCODING": "chunked",
        "wsgi.input": stream,
        "wsgi.input_terminated": terminated,
    }
    setup_testing_defaults(environ)
    started: list[str] = []
    # As Django's test client does: the test's own connection (and transaction) stays open.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        answer = b"".join(application(environ, lambda status, headers, *_: started.append(status)))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return started[0], answer


@pytest.mark.django_db
def test_a_chunked_body_the_server_ended_is_read(owner, body):
    status, answer = _call(owner.key, io.BytesIO(body))

    assert status.startswith("200"), answer
    assert json.loads(answer)["data"]["valid"] is True


@pytest.mark.django_db
def test_an_endless_chunked_body_is_read_only_to_one_byte_past_the_cap(owner):
    stream = Endless()

    status, answer = _call(owner.key, stream)

    assert status.startswith("413")
    assert json.loads(answer)["error"]["code"] == "REQUEST_TOO_LARGE"
    assert stream.read_bytes == CAP + 1


@pytest.mark.django_db
def test_a_chunked_body_whose_end_the_server_cannot_tell_is_a_411(owner, body):
    status, answer = _call(owner.key, io.BytesIO(body), terminated=False)

    assert status.startswith("411")
    error = json.loads(answer)["error"]
    assert (error["type"], error["code"]) == ("invalid_request", "LENGTH_REQUIRED")
