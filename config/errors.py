"""The error hierarchy. Services raise these; `config.handlers` renders them.

Every error leaves the API as `{"error": {"type", "code", "message", "request_id", "details"?}}`
with the status of spec §7.
"""

from __future__ import annotations

from typing import Any

from config.middleware import current_request_id


class ApplicationError(Exception):
    """An error a client can act on. Subclasses fix status and type; raisers pick a code."""

    status_code = 400
    type = "invalid_request"
    code = "INVALID_REQUEST"
    message = "The request is invalid."

    def __init__(
        self, message: str | None = None, *, code: str | None = None, details: dict[str, Any] | None = None
    ) -> None:
        self.message = message or self.message
        self.code = code or self.code
        self.details = details
        super().__init__(self.message)


class InvalidRequest(ApplicationError):
    pass


class NotFound(ApplicationError):
    status_code = 404
    type = "not_found"
    code = "NOT_FOUND"
    message = "Not found."


class Forbidden(ApplicationError):
    status_code = 403
    type = "authorization_error"
    code = "FORBIDDEN"
    message = "This key may not do that."


class Conflict(ApplicationError):
    status_code = 409
    type = "conflict"
    code = "CONFLICT"


class Unprocessable(ApplicationError):
    status_code = 422
    type = "unprocessable"
    code = "UNPROCESSABLE"


class PayloadTooLarge(ApplicationError):
    status_code = 413
    type = "request_too_large"
    code = "REQUEST_TOO_LARGE"


class QuotaExceeded(ApplicationError):
    status_code = 429
    type = "quota_exceeded"
    code = "QUOTA_EXCEEDED"
    message = "The team's publishing quota for this month is used up."


class ServiceUnavailable(ApplicationError):
    status_code = 503
    type = "service_unavailable"
    code = "SERVICE_UNAVAILABLE"


def error_body(*, type: str, code: str, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"type": type, "code": code, "message": message, "request_id": current_request_id()}
    if details:
        error["details"] = details
    return {"error": error}


def internal_error_body() -> dict[str, Any]:
    return error_body(
        type="internal_error",
        code="INTERNAL_ERROR",
        message="Something went wrong on our side. Quote the request_id if you report it.",
    )
