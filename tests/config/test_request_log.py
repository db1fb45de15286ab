"""Django's request log as the console shows it: a refused page (403, 404) is one line, with no
traceback of the exception behind it; a server error keeps its traceback."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator

import pytest

from config.middleware import ClientErrorLogFilter
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    """What the configured console handler writes (settings.LOGGING), captured."""
    (handler,) = [
        h for h in logging.getLogger().handlers if any(isinstance(f, ClientErrorLogFilter) for f in h.filters)
    ]
    assert isinstance(handler, logging.StreamHandler)
    stream = io.StringIO()
    previous = handler.setStream(stream)
    try:
        yield stream
    finally:
        handler.setStream(previous)


def test_a_forbidden_page_is_one_line_without_a_traceback(client, console):
    client.force_login(UserFactory(username="teamless"))  # belongs to no team: every page is a 403

    response = client.get("/dashboard/")

    assert response.status_code == 403
    logged = console.getvalue()
    assert "Forbidden (Permission denied): /dashboard/" in logged
    assert "Traceback" not in logged


def test_a_server_error_keeps_its_traceback(console):
    record = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "Internal Server Error: /x", (), None)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record.exc_info = sys.exc_info()
    record.status_code = 500

    logging.getLogger("django.request").handle(record)

    assert "Traceback" in console.getvalue()
