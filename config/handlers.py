"""The one exception handler that renders every API error, and Django's error views.

DRF and Django errors are translated into the error object of `config.errors`; anything
unexpected becomes a 500 `internal_error` that reveals nothing but the request id.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.views import set_rollback

from config.errors import ApplicationError, error_body, internal_error_body
from config.parsers import too_large

logger = logging.getLogger(__name__)

_MISSING_KEY_MESSAGE = "No API key was sent. Send it as 'Authorization: Bearer sk_...'."


def _drf_details(detail: Any) -> Any:
    """Flatten DRF's ErrorDetail tree into plain strings, keeping its field structure."""
    if isinstance(detail, dict):
        return {key: _drf_details(value) for key, value in detail.items()}
    if isinstance(detail, list):
        return [_drf_details(item) for item in detail]
    return str(detail)


def _authentication_code(exc: drf.APIException) -> str:
    code = exc.get_codes()
    return code.upper() if isinstance(code, str) and code != "not_authenticated" else "MISSING_API_KEY"


def _translate(exc: Exception) -> tuple[int, dict[str, Any], dict[str, str]]:
    """Map an exception to (status, body, extra headers)."""
    if isinstance(exc, RequestDataTooBig):  # Django's own limit, read before any parser
        exc = too_large()
    if isinstance(exc, ApplicationError):
        body = error_body(type=exc.type, code=exc.code, message=exc.message, details=exc.details)
        return exc.status_code, body, {}
    if isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf.PermissionDenied()
    if isinstance(exc, drf.ValidationError):
        details = _drf_details(exc.detail)
        if not isinstance(details, dict):
            details = {"non_field_errors": details}
        message = "The request has invalid fields: " + ", ".join(sorted(details)) + "."
        return 400, error_body(type="invalid_request", code="VALIDATION_ERROR", message=message, details=details), {}
    if isinstance(exc, drf.ParseError):
        return 400, error_body(type="invalid_request", code="MALFORMED_BODY", message=str(exc.detail)), {}
    if isinstance(exc, drf.AuthenticationFailed | drf.NotAuthenticated):
        code = _authentication_code(exc)
        message = _MISSING_KEY_MESSAGE if code == "MISSING_API_KEY" else str(exc.detail)
        body = error_body(type="authentication_error", code=code, message=message)
        return 401, body, {"WWW-Authenticate": 'Bearer realm="api"'}
    if isinstance(exc, drf.PermissionDenied):
        codes = exc.get_codes()
        code = codes.upper() if isinstance(codes, str) and codes != "permission_denied" else "FORBIDDEN"
        return 403, error_body(type="authorization_error", code=code, message=str(exc.detail)), {}
    if isinstance(exc, drf.NotFound):
        return 404, error_body(type="not_found", code="NOT_FOUND", message="Not found."), {}
    if isinstance(exc, drf.MethodNotAllowed):
        body = error_body(type="invalid_request", code="METHOD_NOT_ALLOWED", message=str(exc.detail))
        return 405, body, {}
    if isinstance(exc, drf.Throttled):
        wait = max(1, int(getattr(exc, "wait", None) or 1))
        message = f"Too many requests. Try again in {wait} seconds."
        return 429, error_body(type="rate_limited", code="RATE_LIMITED", message=message), {"Retry-After": str(wait)}
    if isinstance(exc, drf.UnsupportedMediaType):
        return 415, error_body(type="invalid_request", code="UNSUPPORTED_MEDIA_TYPE", message=str(exc.detail)), {}
    if isinstance(exc, drf.NotAcceptable):
        return 406, error_body(type="invalid_request", code="NOT_ACCEPTABLE", message=str(exc.detail)), {}
    if isinstance(exc, drf.APIException):
        code = str(exc.get_codes()).upper()
        return exc.status_code, error_body(type="invalid_request", code=code, message=str(exc.detail)), {}
    if isinstance(exc, OperationalError | InterfaceError):
        # The database is unreachable or refused the transaction (deadlock, serialization):
        # nothing was committed, so the client can safely try again.
        logger.exception("Database unavailable")
        message = "The service cannot reach its database right now. Nothing was changed; try again shortly."
        body = error_body(type="service_unavailable", code="SERVICE_UNAVAILABLE", message=message)
        return 503, body, {"Retry-After": "5"}
    logger.exception("Unhandled error")
    return 500, internal_error_body(), {}


def rendered_error(exc: Exception) -> tuple[int, dict[str, Any]]:
    """The status and body the API answers `exc` with, for an endpoint that reports what
    another request would answer (a create's dry run) instead of answering it."""
    status, body, _ = _translate(exc)
    return status, body


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF's EXCEPTION_HANDLER: every error, expected or not, in the spec's error object."""
    status, body, headers = _translate(exc)
    # Like DRF's own handler: an error inside ATOMIC_REQUESTS or an atomic block rolls back.
    set_rollback()
    return Response(body, status=status, headers=headers)


# Django-level handlers, for errors that never reach a DRF view (unknown paths, crashes in
# middleware). API paths get the error object; other paths keep Django's HTML pages.


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or request.path == "/mcp"


def handler404(request: HttpRequest, exception: Exception | None = None) -> Any:
    if _is_api(request):
        return JsonResponse(error_body(type="not_found", code="NOT_FOUND", message="Not found."), status=404)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception or Http404())


def handler500(request: HttpRequest) -> Any:
    if _is_api(request):
        return JsonResponse(internal_error_body(), status=500)
    from django.views.defaults import server_error

    return server_error(request)


def handler400(request: HttpRequest, exception: Exception | None = None) -> Any:
    if _is_api(request):
        body = error_body(type="invalid_request", code="BAD_REQUEST", message="The request could not be understood.")
        return JsonResponse(body, status=400)
    from django.views.defaults import bad_request

    return bad_request(request, exception or Exception())
