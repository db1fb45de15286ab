"""Request ids: every response carries `X-Request-ID`, every log line and error body the same id."""

from __future__ import annotations

import contextvars
import logging
import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from config.ids import new_id

_current_request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")

# A caller may pass its own id (e.g. from a gateway); anything odd is replaced, never echoed.
_ACCEPTED_ID = re.compile(r"^[A-Za-z0-9._:-]{8,64}$")


def current_request_id() -> str:
    return _current_request_id.get()


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get("X-Request-ID", "")
        request_id = incoming if _ACCEPTED_ID.match(incoming) else f"req_{new_id().hex}"
        token = _current_request_id.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            _current_request_id.reset(token)
        response["X-Request-ID"] = request_id
        for header, value in getattr(request, "rate_limit_headers", {}).items():
            response.setdefault(header, value)
        return response


class RequestIdLogFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id()
        return True
