"""OpenAPI pieces shared by every app: the `api-key` security scheme, the error object, and a
decorator that documents an operation's scope and error responses in one place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import serializers

_ERROR_TYPES = {
    400: ("invalid_request", "VALIDATION_ERROR", "The request has invalid fields: platform."),
    401: ("authentication_error", "INVALID_API_KEY", "The API key is not valid."),
    403: ("authorization_error", "MISSING_SCOPE", "This key lacks the scope accounts:read."),
    404: ("not_found", "NOT_FOUND", "Not found."),
    409: ("conflict", "CONFLICT", "The request conflicts with the current state."),
    413: ("request_too_large", "REQUEST_TOO_LARGE", "The request body is larger than 1024 KB."),
    422: ("unprocessable", "NOT_EDITABLE", "The publish is not editable in its current state."),
    429: ("rate_limited", "RATE_LIMITED", "Too many requests. Try again in 12 seconds."),
    500: ("internal_error", "INTERNAL_ERROR", "Something went wrong on our side."),
    503: ("service_unavailable", "SERVICE_UNAVAILABLE", "The service is temporarily unavailable."),
}

_DESCRIPTIONS = {
    400: "Invalid request (`invalid_request`); `details` names the offending fields.",
    401: "Missing, malformed, unknown, expired or revoked API key (`authentication_error`).",
    403: "The key lacks the scope or role this operation needs (`authorization_error`).",
    404: "No such object in the key's team (`not_found`).",
    409: "Conflict with the current state (`conflict`).",
    413: "The JSON body is larger than 1 MB (`request_too_large`); a body nested over 32 levels is a 400.",
    422: "The object's state does not allow this operation.",
    429: "Rate limit exhausted (`rate_limited`), with `Retry-After` and `X-RateLimit-*` headers.",
    500: "Unexpected error (`internal_error`); quote the request_id.",
    503: "A dependency is unavailable; safe to retry.",
}


class ErrorObjectSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """The error object every error answers with (documented as `ErrorObject`)."""

    type = serializers.CharField(help_text="Error class, e.g. `invalid_request`, `not_found`.")
    code = serializers.CharField(help_text="Stable upper-case identifier, e.g. `ACCOUNT_NOT_FOUND`.")
    message = serializers.CharField(help_text="Human-readable explanation.")
    request_id = serializers.CharField(help_text="Also sent as the `X-Request-ID` header.")
    details = serializers.DictField(required=False, help_text="Extra facts, e.g. per-field errors.")


ErrorResponse = inline_serializer(name="ErrorResponse", fields={"error": ErrorObjectSerializer()})


class ApiAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, also documenting the bounds of nested lists
    (`Serializer(many=True, allow_empty=False, max_length=50)`) as minItems and maxItems."""

    def _get_serializer_field_meta(self, field: Any, direction: Any) -> dict[str, Any]:
        meta: dict[str, Any] = super()._get_serializer_field_meta(field, direction)  # type: ignore[no-untyped-call]
        if isinstance(field, serializers.ListSerializer):
            # min_length and max_length are DRF's, missing from its type stubs.
            min_length, max_length = getattr(field, "min_length", None), getattr(field, "max_length", None)
            if not field.allow_empty or min_length is not None:
                meta["minItems"] = max(0 if field.allow_empty else 1, min_length or 0)
            if max_length is not None:
                meta["maxItems"] = max_length
        return meta


def data_envelope(name: str, serializer: Any) -> Any:
    """The schema of `{"data": <serializer>}`, the envelope of single-object and unpaged responses.

    Marked `many=False` so that list actions document the envelope itself, not an array of it."""
    envelope = inline_serializer(name=name, fields={"data": serializer})
    extend_schema_serializer(many=False)(type(envelope))
    return envelope


def error_response(status: int, description: str = "") -> OpenApiResponse:
    """The error object documented for `status`; `description` replaces the usual meaning."""
    type_, code, message = _ERROR_TYPES[status]
    example = {"error": {"type": type_, "code": code, "message": message, "request_id": "req_0193..."}}
    return OpenApiResponse(
        response=ErrorResponse,
        description=description or _DESCRIPTIONS[status],
        examples=[OpenApiExample(f"{status} {code}", value=example, status_codes=[str(status)])],
    )


def api_operation(
    *, scope: str, summary: str, responses: dict[int, Any], errors: tuple[int, ...] = (), **kwargs: Any
) -> Callable[[Any], Any]:
    """`extend_schema` with the scope documented and the common errors (401, 403, 429, 500) added."""
    with_body = kwargs.get("request") is not None
    all_errors = sorted({401, 403, 429, 500, *errors, *((400, 413) if with_body else ())})
    description = kwargs.pop("description", "")
    return extend_schema(
        summary=summary,
        description=f"Requires scope `{scope}`.\n\n{description}".strip(),
        responses={**responses, **{status: error_response(status) for status in all_errors}},
        extensions={"x-required-scope": scope},
        **kwargs,
    )


class ApiKeyScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "teams.authentication.ApiKeyAuthentication"
    name = "api-key"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "sk_...",
            "description": "An API key from the dashboard: `Authorization: Bearer sk_...`.",
        }


def strip_trailing_slashes(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """Routes accept an optional trailing slash; the document shows the canonical form without.
    Path ids matched by the router's UUID pattern are documented as `format: uuid`."""
    result["paths"] = {path.rstrip("/") or "/": item for path, item in result["paths"].items()}
    for item in result["paths"].values():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path" and "pattern" in parameter["schema"]:
                    parameter["schema"] = {"type": "string", "format": "uuid"}
    return result
