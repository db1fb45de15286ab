"""Request ids: every response carries `X-Request-ID`, every log line and error body the same id.
The Content-Security-Policy of every HTML page. Request bodies without a Content-Length: read
within the body cap (`SizedBodies`), or refused with 411 (`LengthRequiredMiddleware`).
Releasing a request's objects once it is answered. UTC around every request
(`TimeZoneMiddleware`).
"""

from __future__ import annotations

import contextvars
import io
import logging
import re
import uuid
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.utils import timezone
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


class TimeZoneMiddleware:
    """Every request starts and ends in UTC (settings.TIME_ZONE). A dashboard page activates its
    team's zone once it knows the team; the activation lives in the worker thread, so without
    this the next request there, an API call among them, would render times in that zone."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        timezone.deactivate()
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()


class RequestIdLogFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id()
        return True


class ClientErrorLogFilter(logging.Filter):
    """A 4xx answer is the caller's mistake, not the server's: Django's request log keeps its
    one line ("Forbidden (Permission denied): /path") but not the traceback of the exception
    that produced it (PermissionDenied, Http404), which says nothing an operator can act on."""

    def filter(self, record: logging.LogRecord) -> bool:
        if 400 <= int(getattr(record, "status_code", 0) or 0) < 500:
            record.exc_info, record.exc_text = None, None
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


class ContentSecurityPolicyMiddleware:
    """A Content-Security-Policy on every HTML page: scripts and styles only from this
    service's static files (no inline script, style or event handler runs, so markup that
    slipped into a page cannot act), images and video also from the media storage (and `blob:`
    for the compose page's previews of files being uploaded), no framing, forms posting only
    here (the accounts page's connect buttons also to the platforms' authorize pages). The
    admin and the API's Swagger UI set inline styles, so their pages allow those; scripts stay
    static files everywhere (the docs load theirs with `?script`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.get("Content-Type", "").startswith("text/html"):
            response.setdefault("Content-Security-Policy", content_security_policy(request.path_info))
        return response


def content_security_policy(path: str) -> str:
    media = " ".join(_media_origins())
    inline_styles = path.startswith((reverse("admin:index"), reverse("docs")))
    directives = {
        "default-src": "'self'",
        "script-src": "'self'",
        "style-src": "'self' 'unsafe-inline'" if inline_styles else "'self'",
        "img-src": f"'self' data: blob: {media}",
        "media-src": f"'self' blob: {media}",
        "connect-src": f"'self' {media}",  # uploads PUT straight to the storage
        "object-src": "'none'",
        "frame-ancestors": "'none'",
        "base-uri": "'self'",
        "form-action": _form_targets(path),
    }
    return "; ".join(f"{name} {value}".strip() for name, value in directives.items())


def _form_targets(path: str) -> str:
    """Connecting an account posts here and is redirected to the platform's authorize page,
    and the browser holds that redirect to form-action too. Those pages (a Bluesky user's own
    server among them) are all https; the sandbox's, in development, are the sandbox's."""
    if path != reverse("dashboard"):
        return "'self'"
    sandbox = _origin(settings.SANDBOX_URL) if settings.DEVELOPMENT else ""
    return f"'self' https: {sandbox}".strip()


def _media_origins() -> list[str]:
    """Where media URLs point: this service's public address (local storage) or the bucket."""
    from media import storage  # an app's module: imported once the apps are ready

    sample = storage.download_url(key="csp", media_id=str(uuid.UUID(int=0)))  # only its origin is read
    origins = {_origin(str(settings.PUBLIC_BASE_URL)), _origin(sample)}
    origins.update(settings.CSP_MEDIA_ORIGINS)
    return sorted(origin for origin in origins if origin)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def _unsized(environ: dict[str, Any]) -> bool:
    return bool(environ.get("HTTP_TRANSFER_ENCODING")) and not environ.get("CONTENT_LENGTH")


class SizedBodies:
    """WSGI middleware (config.wsgi) for chunked request bodies: Transfer-Encoding, no
    Content-Length. Django reads a body only as far as CONTENT_LENGTH says, so it would read
    one of these as empty. gunicorn decodes the chunks and says where the body ends
    (`wsgi.input_terminated`); the body is then read here, at most one byte past
    API_MAX_BODY_BYTES, and handed on with the length read. A larger body is never held whole:
    it arrives declared one byte too long, and Django's and the API's limits answer 413 as for
    any body over the cap. A server that cannot say where the body ends leaves it without a
    length, and `LengthRequiredMiddleware` answers 411."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if _unsized(environ) and environ.get("wsgi.input_terminated"):
            body = environ["wsgi.input"].read(settings.API_MAX_BODY_BYTES + 1)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return self.app(environ, start_response)


class LengthRequiredMiddleware:
    """411 for a body whose end the server could not tell (see `SizedBodies`)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not _unsized(request.META):
            return self.get_response(request)
        from config.errors import error_body  # config.errors imports this module
        from config.parsers import length_required

        error = length_required()
        return JsonResponse(error_body(type=error.type, code=error.code, message=error.message), status=411)
