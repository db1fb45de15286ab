"""Request ids: every response carries `X-Request-ID`, every log line and error body the same id."""

from __future__ import annotations

import contextvars
import logging
import re
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.functional import LazyObject

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


class ReleaseMiddleware:
    """Outermost: once every other middleware has answered, break the reference cycles a
    request leaves behind, so its objects are freed as soon as the answer is sent.

    Django and DRF tie a request's objects in cycles: the view holds its own bound handlers
    and the response, whose `renderer_context` holds the view; DRF's request holds itself
    in `parser_context`; Django's request holds itself through `auser`, a lazy `user` and
    the messages storage. Left alone, a cycle is freed only by the cyclic garbage collector,
    and a process serving requests piles up enough of them that a full collection stops
    every thread of the worker for tens of milliseconds, which is the tail of the latency."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        context = getattr(response, "renderer_context", None)
        if context:  # a DRF answer, rendered by now
            view = context.get("view")
            if view is not None:
                drf_request = getattr(view, "request", None)
                if drf_request is not None:
                    drf_request.parser_context = None
                vars(view).clear()
            response.renderer_context = None  # type: ignore[attr-defined]
        state = vars(request)
        state.pop("auser", None)
        state.pop("_messages", None)
        if isinstance(state.get("user"), LazyObject):
            del state["user"]
        return response
