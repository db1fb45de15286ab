"""The API's one JSON parser, with a bounded cost.

A body is read only up to `API_MAX_BODY_BYTES` (1 MB): a larger one is a 413 whether or not
its Content-Length said so. DRF hands JSON parsers `request.body`, which Django reads only up
to DATA_UPLOAD_MAX_MEMORY_SIZE (set to the same limit); the exception handler answers its
RequestDataTooBig with the same 413. The parsed document may nest at most `API_MAX_BODY_DEPTH` levels:
the standard library's decoder recurses, so a body of a few thousand `[` would otherwise end in
a RecursionError deep in the parser (a 500), and deep structures only cost every later step.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from config.errors import InvalidRequest, PayloadTooLarge


class LengthRequired(InvalidRequest):
    status_code = 411
    code = "LENGTH_REQUIRED"


def length_required() -> LengthRequired:
    return LengthRequired("The request body has no Content-Length and its end cannot be told: send Content-Length.")


def too_large() -> PayloadTooLarge:
    limit = settings.API_MAX_BODY_BYTES
    return PayloadTooLarge(f"The request body is larger than {limit // 1024} KB.", details={"max_bytes": limit})


def depth_of(document: Any) -> int:
    """How deep `document` nests (a scalar is 0, `[]` is 1), counted without recursion."""
    deepest, pending = 0, [(document, 0)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, Mapping):
            children = list(node.values())
        elif isinstance(node, list):
            children = node
        else:
            deepest = max(deepest, depth)
            continue
        deepest = max(deepest, depth + 1)
        pending.extend((child, depth + 1) for child in children)
    return deepest


class BoundedJSONParser(JSONParser):
    def parse(self, stream: IO[bytes] | None, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.API_MAX_BODY_BYTES
        request = (parser_context or {}).get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        if declared and declared.isdigit() and int(declared) > limit:
            raise too_large()
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise too_large()
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            document = json.loads(raw.decode(encoding), parse_constant=_refuse_constant)
        except RecursionError:
            raise _too_deep() from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        if depth_of(document) > settings.API_MAX_BODY_DEPTH:
            raise _too_deep()
        return document


def _too_deep() -> InvalidRequest:
    limit = settings.API_MAX_BODY_DEPTH
    return InvalidRequest(f"The request body nests deeper than {limit} levels.", code="BODY_TOO_DEEP")


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")
